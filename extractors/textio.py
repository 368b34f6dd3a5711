"""Read a text source whatever its encoding: UTF-8 (BOM or not), UTF-16, GB18030/GBK, Big5.

Binary, empty or oversized (`check_size`, 8 MB by default) files are refused with an error naming the file. Line endings are normalised
to `\n`. Bytes that decode under several Chinese encodings (Big5 bytes are mostly valid
GB18030 too) go to the one whose characters are the common characters of written Chinese.
A saved web page that is not UTF-8 is decoded with the charset its `<meta>` declares
(Shift_JIS, EUC-JP, windows-1252...: guessing would read Shift_JIS as GB18030).
Anything else is guessed with charset-normalizer, where Western European (windows-1252, Latin-1's superset)
wins every tie against the Central-European pages; a guessed encoding is reported (logger
`rolecorpus.textio`: "read as cp1252 (a guess); pass --encoding to override").
"""

from __future__ import annotations

import codecs
import logging
import re
import unicodedata
from pathlib import Path

from .errors import InputError

log = logging.getLogger("rolecorpus.textio")

_CJK_CANDIDATES = ("gb18030", "big5")
# The ~300 most frequent characters of written Chinese, simplified and traditional forms: a right
# decoding of Chinese text is mostly made of them, a wrong one (Big5 read as GB18030) rarely.
_COMMON_HAN = set(
    "的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后"
    "小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长"
    "知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最"
    "间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市"
    "眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计"
    "或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让"
    "認這來個國說們為時會著過學對裡後麼沒於還發當無開見經頭從動兩長樣現將與點聲話兒問機給幾業間門東氣聽"
    "電關並內軍產萬處總場師書員華報馬張難數車應親覺請愛讓麼啊吧呢嗎吗哈曰道"
)


def _looks_binary(data: bytes) -> bool:
    head = data[:8192]
    if b"\x00" in head:
        return True
    ctrl = sum(1 for b in head if b < 9 or 13 < b < 32)
    return ctrl > max(8, len(head) // 50)


_META_CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)
# what browsers really mean by a declared name
_CHARSET_ALIASES = {"iso-8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252", "us-ascii": "cp1252",
                    "gb2312": "gb18030", "gbk": "gb18030", "x-sjis": "cp932", "shift_jis": "cp932",
                    "shift-jis": "cp932", "sjis": "cp932"}


def _declared_charset(data: bytes) -> str | None:
    """The charset a web page declares in a `<meta>` tag, if Python knows it."""
    m = _META_CHARSET.search(data[:8192])
    if not m:
        return None
    name = m.group(1).decode("ascii").lower()
    name = _CHARSET_ALIASES.get(name, name)
    try:
        codecs.lookup(name)
    except LookupError:
        return None
    return name


def _cjk_ratio(text: str) -> float:
    if not text:
        return 0.0
    return sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff" or "\u3000" <= ch <= "\u303f") / len(text)


def _common_han_share(text: str) -> float:
    """Share of the text's Han characters that are common ones (0 when there are none)."""
    han = [ch for ch in text if "\u4e00" <= ch <= "\u9fff"]
    return sum(ch in _COMMON_HAN for ch in han) / len(han) if han else 0.0


def _unreadable_share(text: str) -> float:
    """Share of characters that no text file holds: controls (but tab/newline/CR/FF), unassigned, private use."""
    sample = text[:8192]
    if not sample:
        return 0.0
    bad = sum(1 for ch in sample if ch not in "\t\n\r\f" and unicodedata.category(ch) in ("Cc", "Cn", "Co", "Cs"))
    return bad / len(sample)


def decode_bytes(data: bytes, path: str | Path, encoding: str | None = None) -> str:
    if encoding:
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError) as e:
            raise InputError(f"cannot decode as {encoding}: {e}", path) from None
        return text.lstrip("\ufeff")
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    # UTF-16 without BOM: zero bytes (every ASCII character, newlines included, has one), and text
    # once decoded. A binary file full of zero bytes may decode as UTF-16 too, but into control
    # characters, unassigned code points or broken surrogates.
    if len(data) >= 4 and b"\x00" in data[:8192]:
        # little-endian puts the zero byte of an ASCII character second: try that order first
        order = ("utf-16-le", "utf-16-be") if data[1::2].count(0) >= data[0::2].count(0) else ("utf-16-be", "utf-16-le")
        for enc in order:
            try:
                text = data.decode(enc)
            except UnicodeDecodeError:
                continue
            if _unreadable_share(text) < 0.01:
                return text
    if _looks_binary(data):
        raise InputError("looks like a binary file, not text", path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    declared = _declared_charset(data)
    if declared:  # not UTF-8 whatever it says: trust the page's declaration
        try:
            return data.decode(declared)
        except UnicodeDecodeError:
            pass
    best: tuple[float, float, str] | None = None
    for enc in _CJK_CANDIDATES:
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        ratio = _cjk_ratio(text)
        if ratio <= 0.05:
            continue
        score = _common_han_share(text)
        if best is None or score > best[0]:
            best = (score, ratio, text)
    if best is not None:
        return best[2]
    guess = _western_guess(data)
    if guess is not None:
        enc, text = guess
        log.warning("%s: no encoding declared and not UTF-8; read as %s (a guess); pass --encoding to override",
                    path, enc)
        return text
    raise InputError("cannot tell the text encoding; pass --encoding (e.g. gb18030, big5, utf-16, latin-1)", path)


# single-byte pages a guesser may prefer over Western European for a text that decodes the same or
# equally well under windows-1252 (French `très` read as cp1250 is `trčs` only where they differ)
_WESTERN = "cp1252"


def _western_guess(data: bytes) -> tuple[str, str] | None:
    """(encoding, text) for bytes that are no Unicode and no CJK: charset-normalizer's guess, except that
    windows-1252 (Latin-1's superset) wins every tie: same mess, coherence within 0.02 of the best."""
    try:
        from charset_normalizer import from_bytes

        matches = list(from_bytes(data))
    except ImportError:  # pragma: no cover
        matches = []
    try:
        western = data.decode(_WESTERN)
    except UnicodeDecodeError:
        western = None
    if not matches:
        return (_WESTERN, western) if western is not None and _unreadable_share(western) < 0.01 else None
    best = matches[0]
    if western is not None:
        if str(best) == western:
            return _WESTERN, western
        for m in matches:
            if m.encoding == _WESTERN and m.chaos <= best.chaos + 0.01 and m.coherence >= best.coherence - 0.02:
                return _WESTERN, western
    return best.encoding, str(best)


DEFAULT_MAX_MB = 8.0


def max_text_bytes() -> int:
    """The largest text source accepted: `$ROLECORPUS_MAX_TEXT_MB` megabytes (default 8: the longest novels are
    under 8 MB), so memory and time stay bounded by a work, not by whatever file is given. Measured
    (benchmarks/big_inputs.py, one core): 8 MB of English novel 27 s CPU and 219 MB; 8 MB of Chinese 13 s, 299 MB;
    the worst text seen, 8 MB of dialogue on a single line, 29 s and 975 MB; memory grows with the lines found,
    so 16 MB of that would pass 1 GB."""
    import os

    raw = os.environ.get("ROLECORPUS_MAX_TEXT_MB", "")
    try:
        mb = float(raw) if raw.strip() else DEFAULT_MAX_MB
    except ValueError:
        raise InputError(f"ROLECORPUS_MAX_TEXT_MB must be a number of megabytes, not {raw!r}") from None
    return int(mb * 1_000_000)


_WORK = "text than one work holds"


def check_size(path: str | Path, limit: int | None = None, what: str = _WORK) -> None:
    """Refuse a text source larger than `limit` (default `max_text_bytes()`) before reading a byte of it."""
    size, limit = Path(path).stat().st_size, max_text_bytes() if limit is None else limit
    if size > limit:
        hint = "split it, or raise ROLECORPUS_MAX_TEXT_MB" if what == _WORK else "is it the right file?"
        raise InputError(f"{size / 1e6:.1f} MB is more {what} (limit {limit / 1e6:g} MB); {hint}", path)


def check_regular_file(path: str | Path, limit: int | None = None, what: str = _WORK) -> Path:
    """The checks before reading a source: it exists, is a regular file (not a directory, a FIFO, a device such
    as /dev/zero, a socket: reading those might never end) and is not larger than `limit`."""
    path = Path(path)
    try:
        path.stat()
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except OSError as e:  # a name too long, a loop of symlinks, no permission to look
        raise InputError(f"cannot open: {e.strerror or e}", path) from None
    except ValueError:  # a NUL byte in the name
        raise InputError("the file name holds a NUL byte", repr(str(path))) from None
    if path.is_dir():
        raise InputError("is a directory, expected a file", path)
    if not path.is_file():
        raise InputError("not a regular file", path)
    check_size(path, limit, what)
    return path


def read_source_bytes(path: str | Path, limit: int | None = None, what: str = _WORK) -> bytes:
    """The bytes of a source after `check_regular_file`; an unreadable file is one `InputError`."""
    path = check_regular_file(path, limit, what)
    try:
        return path.read_bytes()
    except OSError as e:  # permission denied, an I/O error
        raise InputError(f"cannot read: {e.strerror or e}", path) from None


def read_text(path: str | Path, encoding: str | None = None, keep_offsets: bool = False) -> str:
    """Return the file's text with `\n` line endings, or raise InputError.

    `keep_offsets=True` keeps every character offset of the decoded text (`\r\n` becomes ` \n`
    rather than `\n`), for sources whose gold annotations count characters (PDNC novels).
    """
    path = Path(path)
    data = read_source_bytes(path)
    if not data.strip():
        raise InputError("file is empty", path)
    text = decode_bytes(data, path, encoding)
    text = text.replace("\r\n", " \n" if keep_offsets else "\n").replace("\r", "\n")
    if not text.strip():
        raise InputError("file is empty", path)
    return text


def guess_language(text: str) -> str:
    """`zh` when Chinese characters make a good share of the text's first 200,000 characters, else `en`."""
    sample = "".join(text[:200_000].split())
    return "zh" if _cjk_ratio(sample) > 0.3 else "en"

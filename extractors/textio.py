"""Read a text source whatever its encoding: UTF-8 (BOM or not), UTF-16, GB18030/GBK, Big5.

Binary or empty files are refused with an error naming the file. Line endings are normalised
to `\n`.
"""

from __future__ import annotations

from pathlib import Path

from .errors import InputError

_CJK_CANDIDATES = ("gb18030", "big5")


def _looks_binary(data: bytes) -> bool:
    head = data[:8192]
    if b"\x00" in head:
        return True
    ctrl = sum(1 for b in head if b < 9 or 13 < b < 32)
    return ctrl > max(8, len(head) // 50)


def _cjk_ratio(text: str) -> float:
    if not text:
        return 0.0
    return sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff" or "\u3000" <= ch <= "\u303f") / len(text)


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
    # UTF-16 without BOM: many zero bytes at even or odd positions
    if len(data) >= 4 and data[1::2].count(0) > len(data) // 4:
        try:
            return data.decode("utf-16-le")
        except UnicodeDecodeError:
            pass
    if len(data) >= 4 and data[0::2].count(0) > len(data) // 4:
        try:
            return data.decode("utf-16-be")
        except UnicodeDecodeError:
            pass
    if _looks_binary(data):
        raise InputError("looks like a binary file, not text", path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    best: tuple[float, str] | None = None
    for enc in _CJK_CANDIDATES:
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        score = _cjk_ratio(text)
        if best is None or score > best[0]:
            best = (score, text)
    if best is not None and best[0] > 0.05:
        return best[1]
    try:
        from charset_normalizer import from_bytes

        match = from_bytes(data).best()
    except ImportError:  # pragma: no cover
        match = None
    if match is not None and match.encoding:
        return str(match)
    raise InputError("cannot tell the text encoding; pass --encoding (e.g. gb18030, big5, utf-16, latin-1)", path)


def read_text(path: str | Path, encoding: str | None = None) -> str:
    """Return the file's text with `\n` line endings, or raise InputError."""
    path = Path(path)
    if not path.exists():
        raise InputError("no such file", path)
    if path.is_dir():
        raise InputError("is a directory, expected a file", path)
    data = path.read_bytes()
    if not data.strip():
        raise InputError("file is empty", path)
    text = decode_bytes(data, path, encoding)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise InputError("file is empty", path)
    return text

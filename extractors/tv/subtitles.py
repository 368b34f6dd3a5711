"""Import subtitles as lines: `.srt` via pysrt, `.ass`/`.ssa`/`.vtt` via pysubs2.

- Text and timing come from the file; ASS override tags (`{\\i1}`), HTML tags and `\\N` breaks are
  cleaned; a cue whose every line starts with `- ` (two speakers in one cue) becomes two lines.
- The speaker comes from the ASS `Name` (actor) field, a WebVTT voice tag `<v Name>` or a `NAME:` prefix, resolved through the
  character aliases (`evidence: subtitle`); an unknown name still gives a slug id.
- Signs, songs, karaoke, titles and credits are dropped: styles whose name says so, events with
  karaoke timing tags (`\\k`), vector drawings (`\\p1`) and comments.
- Broken timing (unparseable, negative, end before start) raises InputError naming the file and
  the row (line number in the file); an undecodable file asks for `--encoding`. A directory, a FIFO, a device
  or a file over 8 MB (`SUBTITLE_MAX_BYTES`) is refused before a byte is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..characters import AliasResolver
from ..errors import InputError
from ..records import Line
from ..textio import check_regular_file, decode_bytes, max_text_bytes, read_source_bytes

FORMATS = {".srt": "srt", ".ass": "ass", ".ssa": "ssa", ".vtt": "vtt"}

# Style-name tokens that mark non-dialogue events (typesetting, songs, credits).
_DROP_TOKENS = {"op", "ed", "ts", "oped", "insert", "lyrics", "lyric", "romaji", "kanji", "eng_song", "credits",
                "credit", "staff", "logo", "note", "notes", "tl", "typeset", "typesetting", "kfx", "fx", "screen"}
_DROP_PREFIXES = ("sign", "song", "kara", "title", "lyric", "typeset", "credit", "opening", "ending")
_KARAOKE_TAG = re.compile(r"\{[^}]*\\[kK][fo]?\d")
_DRAWING_TAG = re.compile(r"\{[^}]*\\p[1-9]")
_VTT_VOICE = re.compile(r"^\s*<v(?:\.[\w.-]+)*\s+([^>]+)>")
_OVERRIDE = re.compile(r"\{[^}]*\}")
_HTML = re.compile(r"</?[a-zA-Z][^>]*>")
_SRT_TIME = re.compile(r"^\s*(-?\d+):(\d{1,2}):(\d{1,2})[,.](\d{1,3})\s*-->\s*(-?\d+):(\d{1,2}):(\d{1,2})[,.](\d{1,3})")
_VTT_TIME = re.compile(r"^\s*(?:(-?\d+):)?(-?\d{1,2}):(\d{1,2})\.(\d{1,3})\s*-->\s*(?:(-?\d+):)?(-?\d{1,2}):(\d{1,2})\.(\d{1,3})")
# NAME: prefix — up to four words, each capitalised (or all caps), optional (V.O.)/(O.S.) marker.
_NAME_PREFIX = re.compile(
    r"^\s*((?:[A-Z\u00C0-\u024F][\w'\u00C0-\u024F.\-]*)(?:\s+[A-Z\u00C0-\u024F][\w'\u00C0-\u024F.\-]*){0,3})"
    r"(?:\s*\((?:V\.?O\.?|O\.?S\.?|CONT'?D)\))?\s*[:：]\s*(?=\S)(.*)$", re.S)
_CJK_NAME_PREFIX = re.compile(r"^\s*([\u4e00-\u9fff\u3040-\u30ff·]{1,8})\s*[:：]\s*(?=\S)(.*)$", re.S)  # + kana
_NOT_NAMES = {"note", "warning", "subtitles", "subtitle", "translation", "translator", "caption", "captions",
              "www", "http", "https", "sync", "synced", "edited", "ps", "re", "q", "a"}


@dataclass
class Cue:
    row: int          # line number of the cue's timing line in the file (1-based)
    start: float
    end: float
    text: str         # raw text (may contain tags and \N)
    name: str = ""    # ASS actor field
    style: str = ""


def _style_tokens(style: str) -> list[str]:
    s = re.sub(r"([a-z])([A-Z])", r"\1 \2", style)  # camelCase -> words
    return [t for t in re.split(r"[^0-9a-zA-Z]+", s.lower()) if t]


def is_non_dialogue_style(style: str) -> bool:
    """True for sign/song/karaoke/title/credit styles: 'Sign', 'OP Romaji', 'Karaoke-JP', 'ED_eng'."""
    for tok in _style_tokens(style):
        if tok in _DROP_TOKENS or tok.startswith(_DROP_PREFIXES):
            return True
    return False


def clean_text(raw: str) -> str:
    """Strip ASS override blocks and HTML tags, turn \\N / \\n / \\h into spaces/newlines."""
    t = raw.replace("\\N", "\n").replace("\\n", "\n").replace("\\h", " ")
    t = _OVERRIDE.sub("", t)
    t = _HTML.sub("", t)
    lines = [" ".join(part.split()) for part in t.split("\n")]
    return "\n".join(p for p in lines if p)


def _seconds(h: str | None, m: str, s: str, frac: str) -> float:
    hours = int(h) if h else 0
    neg = any(str(x).startswith("-") for x in (h, m) if x)
    val = abs(hours) * 3600 + abs(int(m)) * 60 + int(s) + int(frac.ljust(3, "0")[:3]) / 1000
    return -val if neg else val


def _check_timing(cues: list[Cue], path: Path) -> None:
    for i, c in enumerate(cues, start=1):
        if c.start < 0 or c.end < 0:
            raise InputError(f"subtitle {i} has a negative time ({c.start:.3f} --> {c.end:.3f})", path, c.row)
        if c.end < c.start:
            raise InputError(f"subtitle {i} ends ({c.end:.3f} s) before it starts ({c.start:.3f} s)", path, c.row)


def _timing_rows(text: str, pattern: re.Pattern | None = None) -> list[int]:
    return [i for i, ln in enumerate(text.split("\n"), start=1) if "-->" in ln]


def _read_srt(text: str, path: Path) -> list[Cue]:
    import pysrt

    rows = _timing_rows(text)
    lines = text.split("\n")
    for row in rows:
        if not _SRT_TIME.match(lines[row - 1]):
            raise InputError(f"cannot parse the timing {lines[row - 1].strip()!r}", path, row)
    for row in rows:
        m = _SRT_TIME.match(lines[row - 1])
        a, b = _seconds(*m.groups()[:4]), _seconds(*m.groups()[4:])
        if a < 0 or b < 0:  # pysrt cannot represent negative times; check on the raw text
            raise InputError(f"negative time in {lines[row - 1].strip()!r}", path, row)
    try:
        subs = pysrt.SubRipFile.from_string(text, error_handling=pysrt.ERROR_RAISE)
    except pysrt.Error as e:
        raise InputError(f"not a valid SubRip file ({e})", path) from None
    if len(subs) != len(rows):
        raise InputError(f"found {len(subs)} subtitles but {len(rows)} timing lines", path)
    return [Cue(row=row, start=it.start.ordinal / 1000, end=it.end.ordinal / 1000, text=it.text)
            for row, it in zip(rows, subs)]


def _read_pysubs2(text: str, path: Path, fmt: str) -> list[Cue]:
    import pysubs2

    if fmt == "vtt":
        lines = text.split("\n")
        rows = _timing_rows(text)
        for row in rows:
            if not _VTT_TIME.match(lines[row - 1]):
                raise InputError(f"cannot parse the timing {lines[row - 1].strip()!r}", path, row)
            m = _VTT_TIME.match(lines[row - 1])
            a, b = _seconds(*m.groups()[:4]), _seconds(*m.groups()[4:])
            if a < 0 or b < 0:
                raise InputError(f"negative time in {lines[row - 1].strip()!r}", path, row)
            if b < a:
                raise InputError(f"cue ends ({b:.3f} s) before it starts ({a:.3f} s)", path, row)
    else:
        rows = [i for i, ln in enumerate(text.split("\n"), start=1) if re.match(r"^\s*(Dialogue|Comment)\s*:", ln)]
        lines = text.split("\n")
        ts = r"-?\d+:\d{1,2}:\d{1,2}(?:[.,]\d+)?"
        for row in rows:
            fields = lines[row - 1].split(":", 1)[1].split(",")
            if len(fields) < 3 or not all(re.fullmatch(ts, f.strip()) for f in fields[1:3]):
                raise InputError(f"cannot parse the timing of event {lines[row - 1].strip()[:60]!r}", path, row)
            if any(f.strip().startswith("-") for f in fields[1:3]):
                raise InputError("negative time in event", path, row)
    try:
        subs = pysubs2.SSAFile.from_string(text, format_=fmt)
    except Exception as e:  # noqa: BLE001 - pysubs2 raises several types for malformed files
        raise InputError(f"not a valid {fmt.upper()} file ({e.__class__.__name__}: {e})", path) from None
    if fmt == "vtt":
        events = list(subs.events)
    else:
        events = list(subs.events)
        if len(events) != len(rows):  # pysubs2 skipped something; fall back to event order
            rows = rows[: len(events)] + [0] * max(0, len(events) - len(rows))
    rows = rows + [0] * max(0, len(events) - len(rows))
    cues = []
    for row, ev in zip(rows, events):
        if getattr(ev, "is_comment", False):
            continue
        name = (ev.name or "").strip()
        if fmt == "vtt" and row and not name and row < len(lines):
            voice = _VTT_VOICE.match(lines[row])  # pysubs2 drops <v Name>; read it from the raw cue text
            name = voice.group(1).strip() if voice else ""
        cues.append(Cue(row=row, start=ev.start / 1000, end=ev.end / 1000, text=ev.text,
                        name=name, style=ev.style or ""))
    return cues


# a feature film's subtitles are well under 1 MB; a larger file is not subtitles (or is many films at once)
SUBTITLE_MAX_BYTES = 8_000_000


def _max_subtitle_bytes() -> int:
    return min(SUBTITLE_MAX_BYTES, max_text_bytes())


def read_cues(path: str | Path, encoding: str | None = None) -> list[Cue]:
    """All timed cues of a subtitle file, timing validated."""
    path = Path(path)
    check_regular_file(path, _max_subtitle_bytes(), "than a subtitle file holds")
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputError(f"unknown subtitle format {path.suffix!r} (expected {', '.join(FORMATS)})", path)
    data = read_source_bytes(path, _max_subtitle_bytes(), "than a subtitle file holds")
    if not data.strip():
        raise InputError("subtitle file is empty", path)
    text = decode_bytes(data, path, encoding)
    if "\ufffd" in text and encoding is None:
        raise InputError("cannot tell the text encoding; pass --encoding (e.g. gb18030, big5, utf-16, latin-1)", path)
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    cues = _read_srt(text, path) if fmt == "srt" else _read_pysubs2(text, path, fmt)
    _check_timing(cues, path)
    if not cues:
        raise InputError("no subtitles found", path)
    return cues


def split_name(text: str, resolver: AliasResolver | None) -> tuple[str | None, str]:
    """('Diane', 'Hello?') from 'DIANE: Hello?'; (None, text) when the prefix is not a name."""
    m = _NAME_PREFIX.match(text) or _CJK_NAME_PREFIX.match(text)
    if not m:
        return None, text
    name, rest = m.group(1).strip(), m.group(2).strip()
    if resolver is not None and resolver.resolve(name):
        return name, rest
    if name.casefold() in _NOT_NAMES or len(name) > 30:
        return None, text
    return name, rest


def subtitle_lines(path: str | Path, work: str, *, source: str | None = None, unit: str | None = None,
                   resolver: AliasResolver | None = None, encoding: str | None = None) -> list[Line]:
    """Dialogue lines from a subtitle file, sign/karaoke events dropped, speakers from names."""
    path = Path(path)
    source = source or path.name
    unit = unit or path.stem
    out: list[Line] = []
    for cue in sorted(read_cues(path, encoding), key=lambda c: c.start):  # ASS events need not be in order
        if cue.style and is_non_dialogue_style(cue.style):
            continue
        if _KARAOKE_TAG.search(cue.text) or _DRAWING_TAG.search(cue.text):
            continue
        voice = _VTT_VOICE.match(cue.text)
        if voice and not cue.name:
            cue.name = voice.group(1).strip()
        text = clean_text(cue.text)
        if not text:
            continue
        parts = text.split("\n")
        if len(parts) > 1 and all(p.lstrip().startswith(("-", "–", "—")) for p in parts):
            pieces = [p.lstrip("-–— ").strip() for p in parts]
            shared = True
        else:
            pieces = [" ".join(parts)]
            shared = False
        for piece in pieces:
            if not piece:
                continue
            name = cue.name or None
            if name:
                body = piece
                pre, rest = split_name(piece, resolver)
                if pre and resolver is not None and resolver.resolve(pre):
                    name, body = pre, rest
            else:
                name, body = split_name(piece, resolver)
            speaker = confidence = evidence = None
            if name:
                speaker = resolver.speaker_id(name) if resolver is not None else AliasResolver().speaker_id(name)
                confidence, evidence = 1.0, "subtitle"
            extra = {"row": cue.row}
            if cue.style:
                extra["style"] = cue.style
            if shared:
                extra["shared_cue"] = True
            out.append(Line(work=work, source=source, unit=unit, index=len(out), kind="dialogue", text=body,
                            speaker=speaker, name=name, start=round(cue.start, 3), end=round(cue.end, 3),
                            confidence=confidence, evidence=evidence, extra=extra))
    if not out:
        raise InputError("no dialogue subtitles left after dropping signs, songs and karaoke", path)
    return out

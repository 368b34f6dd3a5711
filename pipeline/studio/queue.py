"""The review queue: every doubtful line of every configured work that nobody has decided yet, most useful first,
with its context, the speaker a reviewer may accept, and the audio clip of exactly that line.

Most useful first: voice labels marked `maybe` (a guess to confirm), then voice `unknown` / `too-short`, then
novel quotations the rules held back, then wiki quotes with no owner, then any other line with no speaker; within
a kind, lines with a proposed speaker first, then in the order of the work.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from extractors.errors import InputError
from extractors.records import Line, read_lines

from ..paths import Project
from ..review import doubt, line_keys, proposal, read_review, review_path
from ..settings import load_settings

_KIND_ORDER = {"novel": 2, "wiki": 3}


@dataclass
class Item:
    work: str
    unit: str
    key: str
    line: Line
    doubt: str
    proposal: str | None
    guesses: list = field(default_factory=list)
    context: list = field(default_factory=list)
    clip: str | None = None
    rank: tuple = ()


def _context(lines: list[Line], i: int, prop: str | None, before: int = 3, after: int = 2) -> list[dict]:
    """The lines around line i in its unit; the doubtful one is labelled with the proposed speaker and a `?`."""
    unit = lines[i].unit
    out = []
    for j in range(max(0, i - before), min(len(lines), i + after + 1)):
        ln = lines[j]
        if ln.unit != unit:
            continue
        who = "(narration)" if ln.kind != "dialogue" else (ln.speaker or ln.name or "?")
        out.append({"who": f"{prop or 'who'}?" if j == i else who, "text": ln.text, "here": j == i})
    return out


def _rank(kind: str, why: str, prop: str | None, order: int) -> tuple:
    first = 0 if why == "voice maybe" else 1 if why.startswith("voice") else _KIND_ORDER.get(kind, 4)
    return (first, prop is None, order)


def work_items(project: Project, work: str, kind: str, sources: str) -> list[Item]:
    """The undecided doubtful lines of one work (none when its lines are not built yet)."""
    path = project.lines(work)
    if not path.is_file():
        return []
    lines = read_lines(path)
    decided = read_review(review_path(project.root, sources, work))
    items = []
    for i, (ln, key) in enumerate(zip(lines, line_keys(lines))):
        why = doubt(ln)
        if why is None or key in decided:
            continue
        prop = proposal(ln)
        voice = ln.extra.get("voice") if isinstance(ln.extra, dict) else None
        clip = None
        if ln.start is not None and ln.end is not None:
            clip = "/clip?" + urlencode({"work": work, "key": key})
        items.append(Item(work, ln.unit, key, ln, why, prop, list((voice or {}).get("guesses") or [])[:3],
                          _context(lines, i, prop), clip, _rank(kind, why, prop, len(items))))
    return items


def review_queue(project: Project, work: str | None = None) -> list[Item]:
    """The queue across works (or of one work), most useful first."""
    settings = load_settings(project.pipeline_yaml)
    if work is not None and work not in settings.works:
        raise InputError(f"unknown work {work!r} (configured: {', '.join(settings.works) or 'none'})")
    works = [work] if work else list(settings.works)
    items = [it for w in works for it in work_items(project, w, settings.works[w].kind, settings.sources)]
    order = {w: n for n, w in enumerate(works)}
    return sorted(items, key=lambda it: (it.rank[0], it.rank[1], order[it.work], it.rank[2]))


def find_line(project: Project, work: str, key: str) -> Line:
    """The line of `work` with review key `key` (InputError when there is none)."""
    lines = read_lines(project.lines(work))
    for ln, k in zip(lines, line_keys(lines)):
        if k == key:
            return ln
    raise InputError(f"no line {key!r} in the lines of {work} (rebuilt since the page was drawn? reload it)")


def project_file(project: Project, rel: str | Path) -> Path:
    """`rel` resolved against the project root; InputError for a path outside the project (`..`, absolute, links)."""
    path, root = (project.root / rel).resolve(), project.root.resolve()
    if path != root and root not in path.parents:
        raise InputError(f"{rel}: a path outside the project ({root}) is refused")
    return path


def _named_paths(project: Project) -> tuple[set[Path], set[Path]]:
    """(files, folders) that configs/pipeline.yaml names as media: every work's input and the paths in its options
    (subtitles, labels...), every voice model's labels and media, every season's names, media and episodes."""
    settings = load_settings(project.pipeline_yaml)
    named: list[str] = []
    for spec in settings.works.values():
        named.append(spec.input)
        named += [v for v in spec.options.values() if isinstance(v, str)]
    for voice in settings.voices.values():
        named += [voice.labels, voice.media]
    for season in settings.seasons.values():
        named += [season.names, season.media]
        try:
            named += [str(p) for p in project.root.glob(season.episodes)]
        except (NotImplementedError, ValueError):  # an absolute pattern: outside the project, nothing to serve
            pass
    files, folders = set(), set()
    root = project.root.resolve()
    for rel in named:
        path = (project.root / rel).resolve()
        if path != root and root in path.parents:
            (folders if path.is_dir() else files).add(path)
    return files, folders


def configured_media(project: Project, rel: str | Path) -> Path:
    """`rel` when it is a media file of the configured works: a file configs/pipeline.yaml names, a file in a folder
    it names, or a companion beside a named file with the same stem (episode.srt beside episode.mkv); never a
    hidden path (.git, .cache, .dvc), configs/, or anything outside the project (InputError)."""
    path = project_file(project, rel)
    parts = path.relative_to(project.root.resolve()).parts
    if not parts or any(p.startswith(".") for p in parts) or parts[0] == "configs":
        raise InputError(f"{rel}: not a media file of a configured work (hidden files and configs/ are never served)")
    files, folders = _named_paths(project)
    if (path in files or any(f in path.parents for f in folders)
            or any(path.parent == f.parent and path.name.startswith(f.stem + ".") for f in files)):
        return path
    raise InputError(f"{rel}: not a media file of a configured work (only the files configs/pipeline.yaml names "
                     "are served)")


def media_file(project: Project, work: str, source: str) -> Path:
    """The media file a line's `source` names: the work's input, or a file in the sources folder; only a media
    file of the configured works (`configured_media`)."""
    settings = load_settings(project.pipeline_yaml)
    spec = settings.works.get(work)
    candidates = []
    if spec is not None and Path(spec.input).name == Path(source).name:
        candidates.append(project.root / spec.input)
    candidates += [project.root / settings.sources / source, project.root / source]
    for cand in candidates:
        path = project_file(project, cand)
        if path.is_file():
            return configured_media(project, path)
    raise InputError(f"no media file {source!r} for work {work} in the project")


def clip_wav(project: Project, work: str, key: str) -> bytes:
    """Exactly the line's stretch of its episode (start..end), as a WAV file."""
    import soundfile as sf

    ln = find_line(project, work, key)
    if ln.start is None or ln.end is None:
        raise InputError(f"line {key!r} of {work} has no times")
    media = media_file(project, work, ln.source)
    try:  # WAV, FLAC, OGG...: read only the stretch
        with sf.SoundFile(media) as f:
            rate = f.samplerate
            f.seek(max(0, int(ln.start * rate)))
            data = f.read(max(1, int((ln.end - ln.start) * rate)), dtype="int16")
    except RuntimeError:  # libsndfile cannot read it (video, AAC...): decode it with ffmpeg
        from extractors.tv import SAMPLE_RATE, decode_audio

        rate = SAMPLE_RATE
        data = decode_audio(media, check_silence=False)[int(ln.start * rate):int(ln.end * rate)]
    buf = io.BytesIO()
    sf.write(buf, data, rate, format="WAV", subtype="PCM_16")
    return buf.getvalue()

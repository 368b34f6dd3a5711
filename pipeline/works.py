"""Register works and characters in `configs/pipeline.yaml`, the one place `dvc repro`, `rolecorpus build` and the
studio read them from.

Edits are round-trip (ruamel.yaml: the file's comments and layout stay), made under a file lock, checked with
every rule the loader applies before anything is written, and written atomically: no edit can leave a project
that does not load.
"""

from __future__ import annotations

import io
import re
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import yaml
from filelock import FileLock
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import CommentMark
from ruamel.yaml.tokens import CommentToken

from extractors.atomic import atomic_write_text
from extractors.characters import (Character, character_path, check_characters, load_character, load_characters,
                                   normalize_name, save_character)
from extractors.errors import InputError
from extractors.ids import check_id
from extractors.registry import guess_kind, kinds
from extractors.textio import guess_language, read_text

from .paths import Project
from .settings import Settings, load_settings, settings_from_data

KINDS = ("auto", *kinds())
TEXT_KINDS = ("novel", "script", "wiki")
SUBTITLE_SUFFIXES = (".srt", ".ass", ".ssa", ".vtt")


def _yaml() -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 120
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def _lock(project: Project) -> FileLock:
    project.configs.mkdir(parents=True, exist_ok=True)
    return FileLock(str(project.configs / ".pipeline.yaml.lock"), timeout=30)


def _render(project: Project, change: Callable[[CommentedMap], object]) -> tuple[str, Settings, object]:
    """The text pipeline.yaml would have after `change`, the settings it loads as (checked), and what `change`
    returned."""
    path = project.pipeline_yaml
    y = _yaml()
    doc = y.load(path.read_text(encoding="utf-8")) if path.exists() else None
    doc = doc if doc is not None else CommentedMap()
    if not isinstance(doc, CommentedMap):
        raise InputError("expected a mapping of stage names to parameters", path)
    result = change(doc)
    out = io.StringIO()
    y.dump(doc, out)
    text = out.getvalue()
    return text, settings_from_data(yaml.safe_load(text), path), result


def edit_pipeline(project: Project, change: Callable[[CommentedMap], object]) -> tuple[Settings, object]:
    """Apply `change` to the round-trip document of pipeline.yaml and write it, if the result loads; returns the
    new settings and what `change` returned. Nothing is written when `change` or the check raises."""
    with _lock(project):
        text, settings, result = _render(project, change)
        atomic_write_text(project.pipeline_yaml, text)
    return settings, result


def _section(doc: CommentedMap, name: str) -> CommentedMap:
    if doc.get(name) is None:
        doc[name] = CommentedMap()
    section = doc[name]
    if not isinstance(section, dict):
        raise InputError(f"{name}: expected a mapping", None)
    return section


def _append(section: CommentedMap, key: str, value) -> None:
    """Add `key` as the last entry of `section`. What trailed the old last entry (blank lines and the comments
    before the next section) moves down to trail the new one; an end-of-line comment stays on its line."""
    last = list(section)[-1] if len(section) else None
    section[key] = value
    entry = section.ca.items.get(last) if last is not None else None
    token = entry[2] if entry and len(entry) > 2 else None
    if token is None:
        return
    if token.value.startswith("#"):  # `key: value  # note`, its line end, then what trails
        first, rest = token.value.split("\n", 1) if "\n" in token.value else (token.value, "")
        if not rest:
            return
        token.value, moved = first + "\n", "\n" + rest
    else:                            # the line end, then what trails
        entry[2], moved = None, token.value
    section.ca.items[key] = [None, None, CommentToken(moved, CommentMark(0), None), None]


def _flow(**values) -> CommentedMap:
    m = CommentedMap((k, v) for k, v in values.items() if v not in (None, {}, []))
    m.fa.set_flow_style()
    return m


# ---- works ----------------------------------------------------------------------------------------------------

@dataclass
class WorkAdded:
    work: str
    kind: str
    input: str
    title: str
    language: Optional[str]
    created: bool            # False: the same work was already registered (a no-op)
    copied_from: Optional[Path] = None


def default_title(path: Path, text: str | None) -> str:
    """A Project Gutenberg `Title:` line when the text has one, else the file name in words (`the_sun` -> The Sun)."""
    if text:
        m = re.search(r"^\ufeff?Title:[ \t]*(\S[^\r\n]*)", text[:5000], re.MULTILINE)
        if m:
            return m.group(1).strip()
    words = re.sub(r"[_\-.]+", " ", path.stem).strip()
    return words[:1].upper() + words[1:] if words else path.stem


def default_work_id(path: Path) -> str:
    wid = re.sub(r"[^\w\-]+", "_", path.stem.lower()).strip("_-") or "work"
    return check_id(wid[:64], "work id (from the file name; pass --id)")


def _same_file(a: Path, b: Path) -> bool:
    return a.is_file() and b.is_file() and a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()


def _project_input(project: Project, path: Path, work: str) -> tuple[Path, Optional[Path]]:
    """The input as a path inside the project: a file or folder outside it is copied to data/raw/ first (DVC and
    the studio see only the project; into data/raw/<work>/ when another file has its name). Returns (path inside,
    the original when copied)."""
    path = path.expanduser().resolve()
    root = project.root.resolve()
    if path == root or root in path.parents:
        return path, None
    dest = root / "data" / "raw" / path.name
    if dest.exists() and not _same_file(dest, path):
        dest = root / "data" / "raw" / work / path.name
    if dest.exists():
        if not _same_file(dest, path):
            raise InputError(f"{dest.relative_to(root)} already exists and is another file; rename one of them", path)
        return dest, None
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.copy.tmp")
    if path.is_dir():
        shutil.copytree(path, tmp)
    else:
        shutil.copyfile(path, tmp)
    tmp.replace(dest)
    return dest, path


def _subtitles_beside(media: Path) -> Optional[Path]:
    for suffix in SUBTITLE_SUFFIXES:
        p = media.with_suffix(suffix)
        if p.is_file():
            return p
    return None


def add_work(project: Project, source: Path, work: Optional[str] = None, kind: str = "auto",
             title: Optional[str] = None, language: Optional[str] = None, files: Optional[str] = None) -> WorkAdded:
    """Register `source` as a work. The same registration again is a no-op; another work under the same id, or
    the same input under another id, is an InputError."""
    if kind not in KINDS:
        raise InputError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if language is not None and language not in ("en", "zh"):
        raise InputError(f"--language must be en or zh, not {language!r}")
    if not source.exists():
        raise InputError("no such file or folder", source)
    wid = check_id(work, "--id") if work else default_work_id(source)
    kind = guess_kind(source) if kind == "auto" else kind
    text = read_text(source) if kind in TEXT_KINDS and source.is_file() else None
    language = language or (guess_language(text) if text is not None else None)
    title = title or default_title(source, text)
    settings = load_settings(project.pipeline_yaml)
    inside, copied = _project_input(project, source, wid)
    if kind == "tv" and copied is not None and copied.is_file() and (subs := _subtitles_beside(copied)) is not None:
        _project_input(project, subs, wid)  # an episode's subtitles travel with it (found beside it by name)
    rel = inside.relative_to(project.root.resolve()).as_posix()
    existing = settings.works.get(wid)
    if existing is not None:
        if existing.kind == kind and existing.input == rel:
            return WorkAdded(wid, kind, rel, existing.display_title(wid), existing.language, False, copied)
        raise InputError(f"work {wid!r} is already registered with {existing.kind} {existing.input}; pass another "
                         "--id", project.pipeline_yaml)
    for other, spec in settings.works.items():
        if spec.input == rel and spec.files == files:
            raise InputError(f"{rel} is already registered as work {other!r}", project.pipeline_yaml)
    options = {}
    if kind == "tv" and inside.is_file() and (subs := _subtitles_beside(inside)) is not None:
        options["subtitles"] = subs.relative_to(project.root.resolve()).as_posix()
    entry = _flow(kind=kind, input=rel, files=files, title=title, language=language, options=_flow(**options))
    edit_pipeline(project, lambda doc: _append(_section(doc, "works"), wid, entry))
    return WorkAdded(wid, kind, rel, title, language, True, copied)


def work_rows(project: Project) -> list[dict]:
    """One row per registered work: id, kind, title, input, and the characters linked to it."""
    settings = load_settings(project.pipeline_yaml)
    rows = []
    for wid, spec in settings.works.items():
        chars = [cid for cid, c in settings.characters.items() if wid in c.works()]
        built = project.lines(wid).exists()
        rows.append({"id": wid, "kind": spec.kind, "title": spec.display_title(wid), "input": spec.input,
                     "language": spec.language or spec.options.get("language"), "characters": chars, "built": built})
    return rows


# ---- characters -----------------------------------------------------------------------------------------------

def project_characters(project: Project, settings: Settings | None = None) -> dict[str, Character]:
    """The configured characters, each with the works pipeline.yaml links it to (`Character.works`)."""
    settings = settings or load_settings(project.pipeline_yaml)
    chars = load_characters(project.configs)
    for cid, spec in settings.characters.items():
        if cid in chars:
            chars[cid].works = spec.works()
    check_shared_names(chars, project.pipeline_yaml)
    return chars


def check_shared_names(chars: dict[str, Character], where: Path) -> None:
    """Two characters linked to one work may not share a name (id, name or alias): its lines would go to whichever
    sorts first. Refused, naming both (characters of different works may each have their John)."""
    owner: dict[tuple[str, str], str] = {}
    for cid, ch in chars.items():
        for work in ch.works:
            for n in dict.fromkeys(normalize_name(x) for x in ch.names()):
                other = owner.setdefault((work, n), cid)
                if n and other != cid:
                    raise InputError(f"{other!r} and {cid!r} are both linked to work {work!r} and both answer to "
                                     f"{n!r}: give the name to one of them (aliases: in configs/characters/)", where)


def work_first(characters: dict[str, Character], work: str | None) -> list[Character]:
    """The characters with those of `work` first: where two claim one name, the work's own gets it."""
    mine = [c for c in characters.values() if work is not None and work in c.works]
    return mine + [c for c in characters.values() if not (work is not None and work in c.works)]


def works_title(settings: Settings, works: list[str]) -> str:
    """What a character's prompt says it comes from: the first linked work's title."""
    return settings.works[works[0]].display_title(works[0])


def work_language(settings: Settings, works: list[str]) -> str:
    """The language of a character of these works: the first work's that says one, else en."""
    langs = [settings.works[w].language or settings.works[w].options.get("language") for w in works]
    return next((lang for lang in langs if lang in ("en", "zh")), "en")


def check_works(settings: Settings, works: list[str], where: Path) -> None:
    for w in works:
        check_id(w, "--work")
        if w not in settings.works:
            raise InputError(f"--work {w!r} is not a registered work (known: {', '.join(settings.works) or 'none'}); "
                             "add it with `rolecorpus works add FILE --id " + w + "`", where)


def _link(doc: CommentedMap, cid: str, works: list[str]) -> None:
    chars = _section(doc, "characters")
    old = chars.get(cid)
    old_works = [] if old is None else ([old["work"]] if isinstance(old.get("work"), str) else list(old.get("work") or []))
    merged = list(dict.fromkeys([*old_works, *works]))
    value = merged[0] if len(merged) == 1 else merged
    if old is None:
        _append(chars, cid, _flow(work=value))
    else:
        old["work"] = value


def register_characters(project: Project, new: list[Character], works: list[str], overwrite: bool = False
                        ) -> list[Path]:
    """Write the character files and link each character to `works` under `characters:` of pipeline.yaml. Every
    file is checked against the characters already configured (one name, one character per series) and the
    pipeline against the loader's rules before anything is written; returns the files written."""
    settings = load_settings(project.pipeline_yaml)
    check_works(settings, works, project.pipeline_yaml)
    configured = load_characters(project.configs)
    for ch in new:
        if ch.id in configured and not overwrite:
            raise InputError(f"character {ch.id!r} ({configured[ch.id].name}) already exists; pass --force to "
                             "overwrite", character_path(project.configs, ch.id))
    check_characters({**configured, **{ch.id: ch for ch in new}}, project.configs / "characters")
    linked = project_characters(project, settings)
    for ch in new:
        ch.works = list(dict.fromkeys([*linked.get(ch.id, ch).works, *works]))
    check_shared_names({**linked, **{ch.id: ch for ch in new}}, project.pipeline_yaml)

    def link_all(doc: CommentedMap) -> None:
        for ch in new:
            _link(doc, ch.id, works)

    _render(project, link_all)  # checked before any file is written
    created = [ch for ch in new if ch.id not in configured]
    written = [save_character(project.configs, ch) for ch in new]
    try:
        edit_pipeline(project, link_all)
    except InputError:
        for ch in created:  # a file of this call alone: the project stays as it was
            character_path(project.configs, ch.id).unlink(missing_ok=True)
        raise
    return written


def link_character(project: Project, cid: str, works: list[str]) -> None:
    """Link an existing character to more works."""
    settings = load_settings(project.pipeline_yaml)
    check_works(settings, works, project.pipeline_yaml)
    edit_pipeline(project, lambda doc: _link(doc, cid, works))


def silent_characters(work: str, lines: list, characters: dict[str, Character]) -> list[str]:
    """One line for each character linked to `work` that the work's lines give nothing to, naming who it might
    be: the names the text gives lines to that no configured character has (sharing a name word first)."""
    dialogue = [ln for ln in lines if ln.kind == "dialogue"]
    spoken = Counter(ln.speaker for ln in dialogue if ln.speaker)
    free = Counter(ln.name for ln in dialogue if ln.name and (not ln.speaker or ln.speaker not in characters))
    notes = []
    for ch in characters.values():
        if work not in ch.works or spoken.get(ch.id):
            continue
        words = {w for n in ch.names() for w in normalize_name(n.replace("_", " ")).split() if len(w) > 2}
        ranked = sorted(free.items(), key=lambda kv: (not words & set(normalize_name(kv[0]).split()), -kv[1]))
        hint = ", ".join(f"{name} ({n} lines)" for name, n in ranked[:3])
        notes.append(f"warning: {ch.id} ({ch.name}) has no line in {work}"
                     + (f"; the names the text gives lines to that it might be: {hint} (add the right one to "
                        f"aliases: in configs/characters/{ch.id}.yaml)" if hint else ""))
    return notes


def select(settings: Settings, targets: list[str]) -> tuple[set[str], set[str]]:
    """The works and characters `rolecorpus build TARGET...` builds: a work with the characters linked to it, a
    character with every work it is linked to. No targets: everything registered."""
    if not targets:
        return set(settings.works), set(settings.characters)
    works, chars = set(), set()
    for t in targets:
        if t in settings.works:
            works.add(t)
            chars.update(cid for cid, spec in settings.characters.items() if t in spec.works())
        elif t in settings.characters:
            chars.add(t)
        else:
            raise InputError(f"{t!r} is neither a registered work nor a registered character (works: "
                             f"{', '.join(settings.works) or 'none'}; characters: {', '.join(settings.characters) or 'none'})")
    for cid in chars:
        works.update(settings.characters[cid].works())
    return works, chars


def create_character(project: Project, ch: Character, works: list[str], force: bool = False) -> Path:
    """Write a new character (an existing one only with `force`) linked to `works`; without works, the older form
    in which its series names the work. The terminal's `add-character` and the studio's form both come here."""
    check_id(ch.id, "character id")
    path = character_path(project.configs, ch.id)
    if path.exists() and not force:
        old = load_character(path)
        raise InputError(f"character {ch.id!r} ({old.name}) already exists; pass --force to overwrite", path)
    if works:
        return register_characters(project, [ch], works, overwrite=force)[0]
    return save_character(project.configs, ch)

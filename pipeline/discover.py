"""Meet the cast of a source: the people of a novel (names, aliases, gender, narrator) or the speakers of a script,
most frequent first, and which configured character each one already is; draft character files for them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from extractors.characters import AliasResolver, Character, normalize_name, save_character, slug
from extractors.contract import ExtractContext
from extractors.errors import InputError
from extractors.novel import CastMember, discover_cast
from extractors.novel import configured_matches
from extractors.novel import detect_language, read_novel
from extractors.novel import configured_for
from extractors.novel import written_forms
from extractors.registry import get_extractor

from .paths import Project
from .settings import load_settings
from .works import project_characters, register_characters

DRAFTABLE = ("novel", "script")


@dataclass
class Cast:
    work: str                     # the work id (or the file's stem for an unregistered file)
    kind: str
    language: str
    title: str
    source: Path
    members: list[CastMember]
    matched: Optional[dict[str, str]]  # member id -> the configured character it is (None: none configured)
    registered: bool              # the work is in pipeline.yaml (drafts can be linked to it)


def _script_cast(source: Path, top: int) -> list[CastMember]:
    """The speakers of a script, by the lines its cues give them: `ROSALIND` -> Rosalind, with the cue as alias."""
    extractor = get_extractor("script")()
    ctx = ExtractContext(options=extractor.Options(), resolver=AliasResolver())
    lines = [ln for ln in extractor.extract(source, "discover", ctx) if ln.kind == "dialogue" and ln.speaker]
    counts = Counter(ln.speaker for ln in lines)
    cue: dict[str, str] = {}
    for ln in lines:
        cue.setdefault(ln.speaker, ln.name or ln.speaker)
    members = []
    for sid, n in counts.most_common(top):
        written = str(cue[sid]).strip()
        name = written.title() if written.isupper() else written
        members.append(CastMember(name=name, aliases=[written] if written != name else [], lines=n, speaks=n,
                                  count=n))
    return members


def _script_matches(members: list[CastMember], mine: list[Character]) -> dict[str, str]:
    """Member id -> the configured character one of its names resolves to."""
    resolver = AliasResolver(mine)
    matched = {}
    for m in members:
        cid = next((c for c in map(resolver.resolve, (m.name, *m.aliases)) if c), None)
        if cid:
            matched[m.id] = cid
    return matched


def find_cast(project: Project, source: str, top: int, work: Optional[str] = None,
              language: Optional[str] = None) -> Cast:
    """The cast of `source`: a registered work id, or a novel's file (with `work` the id its characters are
    configured under)."""
    settings = load_settings(project.pipeline_yaml)
    characters = project_characters(project, settings)
    path = Path(source)
    if source in settings.works and not path.is_file():
        spec = settings.works[source]
        wid, kind, path = source, spec.kind, project.root / spec.input
        if spec.files or path.is_dir():
            raise InputError(f"work {wid!r} is a folder of files; discover the cast of one of them (a file path)")
        language = language or spec.language or spec.options.get("language")
        title, registered = spec.display_title(wid), True
    elif path.is_file():
        wid, kind = work or path.stem, "novel"
        registered = wid in settings.works
        title = settings.works[wid].display_title(wid) if registered else wid
    else:
        known = ", ".join(settings.works) or "none"
        raise InputError(f"{source!r} is neither a registered work (known: {known}) nor a file")
    if kind not in DRAFTABLE:
        hint = ("`rolecorpus speakers discover EPISODES` finds the voices of episodes" if kind == "tv"
                else "a quote page names its character: `add-character ID --work " + wid + "`")
        raise InputError(f"work {wid!r} is a {kind} source: {hint}")
    mine = configured_for(characters, wid, path)
    if kind == "script":
        members = _script_cast(path, top)
        lang = language or "en"
        matched = _script_matches(members, mine) if mine else None
    else:
        text = read_novel(path)
        lang = language or detect_language(text)
        members = discover_cast(text, lang, top)
        mine = written_forms(mine, text) if lang == "zh" else mine
        matched = configured_matches(mine, members, lang) if mine else None
    if not members:
        raise InputError("no speaking characters found (no quotations with speech tags such as 'said Anne', no "
                         "speaker cues)", path)
    return Cast(wid, kind, lang, title, path, members, matched, registered)


def _draft_id(member: CastMember) -> str:
    cid = member.id
    return cid if cid and cid[0].isalnum() else slug("character " + member.name)


def draft_characters(project: Project, cast: Cast) -> tuple[list[Path], list[str]]:
    """Character files for the members no configured character already is, linked to the work in pipeline.yaml
    (an unregistered file: written with the work id as series, the older link). Existing files are never
    overwritten: such members are returned as skipped ids."""
    configured = project_characters(project)
    taken = {normalize_name(n) for c in configured.values() if cast.work in c.works or c.series == cast.work
             for n in c.names()}
    new, skipped = [], []
    for m in cast.members:
        cid = (cast.matched or {}).get(m.id) or _draft_id(m)
        if cid in configured or (cast.matched or {}).get(m.id) or normalize_name(m.name) in taken:
            skipped.append(cid)
            continue
        ch = m.to_character(cast.title if cast.registered else cast.work, cast.language)
        ch.mentions = None
        if not cast.registered:
            ch.sources = [cast.source.name]
        new.append(ch)
        taken.update(normalize_name(n) for n in ch.names())
    if not new:
        return [], skipped
    if cast.registered:
        return register_characters(project, new, [cast.work]), skipped
    return [save_character(project.configs, ch) for ch in new], skipped

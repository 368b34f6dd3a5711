"""The people a configured cast leaves out, so that their words are not put in a configured character's mouth.

A user names the characters they want (`configs/characters/*.yaml`), seldom everyone who speaks. Attributed
with only those, every quotation of a side character is decided among the configured few. So the cast is also
discovered in the text (`cast.discover_cast`), and each member that a speech tag names (`speaks` >= 1) and that
no configured name matches (`names.NameIndex.lookup` over its name and aliases) joins the attribution as one of
the `others`: a candidate like any character, whose lines come out with no speaker, only the `name` the text
gives them. Members only ever addressed (`"Len, …"`) stay out: a nickname the configuration lacks would otherwise
take its owner's replies.

The narrator is found the same way: with no configured character marked `narrator: true` and a text told in the
first person, the discovered narrator's names pick the one configured character they match, who becomes the
narrator; if they match none, the narrator joins the others (`mark_narrator` does this alone for `extract_novel`).
A member whose names resolve to one configured character lends it the names it was merged with and its gender
guess (`_complete_names`). Figures: `benchmarks/novel_others.py`, docs/benchmarks.md.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Callable

from extractors.characters import Character

from .en.scan import title_class
from .member import CastMember
from .names import NameIndex, name_tokens
from ..text.simplified import written_forms


@lru_cache(maxsize=2)
def _discovered(text: str, language: str) -> tuple[CastMember, ...]:
    """The cast found in the text (`cast.discover_cast`), once per text: `complete_cast` and then `extract_novel`'s
    `mark_narrator` both ask for it on the user's path. Read only."""
    from .discover import discover_cast

    return tuple(discover_cast(text, language, by_lines=False))


def complete_cast(configured: list[Character], text: str, language: str, work: str
                  ) -> tuple[list[Character], list[Character]]:
    """The configured characters (completed from the text: `_complete_names`, and the narrator marked when the text
    has one and the configuration does not say), and the discovered people who speak in the text and match none of
    them (ids never clash)."""
    if language == "zh":  # `贾宝玉` configured for a traditional text is its `賈寶玉`
        configured = written_forms(configured, text)
    cast = _discovered(text, language)
    configured, _, resolve = _complete_names(configured, cast, language)
    configured = _mark_narrator(configured, cast, resolve)
    taken = {c.id for c in configured}
    narrated = any(c.narrator for c in configured)  # `said I` is theirs, whatever name the text gives them
    others = []
    for m in cast:
        if m.speaks < 1 or m.id in taken or any(resolve(n) for n in [m.name, *m.aliases]) or (m.narrator and narrated):
            continue
        taken.add(m.id)
        others.append(m.to_character(work, language))
    return configured, others


def mark_narrator(configured: list[Character], text: str, language: str) -> list[Character]:
    """The configured characters with the first-person narrator marked (a copy) when the text is told in the first
    person and none is marked: the discovered narrator's names single out one of them (`Hastings`, whom the others
    call `Mr. Hastings`). Unchanged otherwise."""
    if not configured or any(c.narrator for c in configured):
        return configured
    cast = _discovered(text, language)
    if not any(m.narrator for m in cast):
        return configured
    return _mark_narrator(configured, cast, _complete_names(configured, cast, language)[2])


def configured_matches(configured: list[Character], cast: list[CastMember], language: str) -> dict[str, str]:
    """Discovered member id -> the configured character it is taken for (as `complete_cast` decides)."""
    return _complete_names(configured, cast, language)[1]


def others_for(configured: list[Character], text: str, language: str, work: str) -> list[Character]:
    """The others of `complete_cast`: discovered people who speak and match no configured character."""
    return complete_cast(configured, text, language, work)[1]


def configured_resolver(index: NameIndex, gender: dict[str, str | None]) -> Callable[[str], str | None]:
    """A discovered name -> the configured character it names: through the name index (`Elizabeth`, `Darcy`), or
    `Mr.` (Monsieur, Signor, ...) and the surname of a man configured without a title or with that one (`Mr.
    Gradgrind` for `Thomas Gradgrind`; `Mr. Thomas`, a young master's name, is not him). Never a woman's title:
    `Mrs. Bennet` and `Miss Bennet` are seldom `Elizabeth Bennet` (and a titled woman's short forms are in the index
    already: `Mrs. Lynde`)."""
    def resolve(name: str) -> str | None:
        cid = index.lookup(name)
        if cid or index.language == "zh":
            return cid
        head, _, rest = " ".join(name.split()).partition(" ")
        cid = index.lookup(rest) if rest and title_class(head) == "mr" else None
        if not cid or gender.get(cid) != "male":
            return None
        c = index.characters[cid]
        surnames = {t[-1].casefold() for t in (name_tokens(n)[1] for n in [c.name, *c.aliases]) if t}
        return cid if title_class(c.name.split()[0]) in (None, "mr") and rest.casefold() in surnames else None
    return resolve


def _complete_names(configured: list[Character], cast: list[CastMember], language: str
                    ) -> tuple[list[Character], dict[str, str], Callable[[str], str | None]]:
    """Each configured character with the names and gender of the discovered members that name only them: a member
    whose names resolve to one configured character (`Elizabeth` for `Elizabeth Bennet`) lends it the names it was
    merged with (`Lizzy`, `Eliza`, `Miss Elizabeth Bennet`) and its gender guess when none is configured. Genders
    first, so that `Mr. X` can then be matched to a man (`configured_resolver`). Also returns member id -> the
    configured character it is, and the resolver (configured names and those genders)."""
    index = NameIndex(configured, language)
    gender = dict(index.gender)
    for m in cast:
        cid = _one_owner(m, index.lookup, index)
        if cid and m.gender in ("male", "female") and not gender[cid]:
            gender[cid] = m.gender
    resolve = configured_resolver(index, gender)
    owner = {m.id: cid for m in cast if (cid := _one_owner(m, resolve, index))}
    extra: dict[str, list[str]] = {}
    for m in cast:
        if m.id in owner:
            extra.setdefault(owner[m.id], []).extend(n for n in [m.name, *m.aliases] if index.lookup(n) is None)
    completed = [replace(c, aliases=list(dict.fromkeys([*c.aliases, *extra.get(c.id, [])])),
                         gender=c.gender or gender[c.id])
                 if c.id in extra or gender[c.id] != index.gender[c.id] else c for c in configured]
    return completed, owner, resolve


def _one_owner(m: CastMember, resolve: Callable[[str], str | None], index: NameIndex) -> str | None:
    """The one configured character a discovered member's names resolve to, unless one of its full names gives
    another first name than the character's own (`Lawrence Cavendish`, merged with `Mr. Cavendish`, is not
    `John Cavendish`)."""
    names = [m.name, *m.aliases]
    ids = {resolve(n) for n in names} - {None}
    if len(ids) != 1:
        return None
    cid = next(iter(ids))
    own = name_tokens(index.characters[cid].name)[1]
    if len(own) >= 2 and index.language != "zh":
        if any(len(t) >= 2 and t[0].casefold() != own[0].casefold() for t in (name_tokens(n)[1] for n in names)):
            return None
    return cid


def _mark_narrator(configured: list[Character], cast: list[CastMember], resolve: Callable[[str], str | None]
                   ) -> list[Character]:
    """The configured character the discovered narrator's names single out, marked as the narrator (a copy);
    unchanged when one is marked already, when the text has no narrator, or when the names match none or several."""
    narrator = next((m for m in cast if m.narrator), None)
    if narrator is None or any(c.narrator for c in configured):
        return configured
    ids = {resolve(n) for n in [narrator.name, *narrator.aliases]} - {None}
    if len(ids) != 1:
        return configured
    return [replace(c, narrator=True) if c.id in ids else c for c in configured]

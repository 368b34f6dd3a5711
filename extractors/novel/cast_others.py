"""The people a configured cast leaves out, so that their words are not put in a configured character's mouth.

A user names the characters they want (`configs/characters/*.yaml`), seldom everyone who speaks. Attributed
with only those, every quotation of a side character is decided among the configured few: on the twelve PDNC
dev novels with only the three most quoted characters configured, the lines given to them were right 0.62-0.93
of the time (Hard Times 0.62, A Room with a View 0.70, Pride and Prejudice 0.72). So the cast is also
discovered in the text (`cast.discover_cast`), and each member that a speech tag names (`speaks` >= 1) and that
no configured name matches (`names.NameIndex.lookup` over its name and aliases) joins the attribution as one of
the `others`: a candidate like any character, whose lines come out with no speaker, only the `name` the text
gives them (as a script's cue for a character nobody configured does). Members only ever addressed (`"Len,
…"`) stay out: a nickname the configuration lacks would otherwise take its owner's replies.

Measured (`benchmarks/novel_others.py`): with the three most quoted characters configured, the precision of
their lines rises to 0.80-0.99 (Hard Times 0.80: its configuration gives the father the son's name `Tom
Gradgrind`); with the whole gold cast configured, accuracy moves by at most -0.003. On 红楼梦 1-8 (cues named by
the text, few turn-taking guesses) the lines of 1-3 configured characters are the same with or without the others.
"""

from __future__ import annotations

from extractors.characters import Character

from .names import NameIndex


def others_for(configured: list[Character], text: str, language: str, work: str) -> list[Character]:
    """Discovered people who speak in the text and match no configured character (ids never clash); the
    discovered narrator only when no configured character is the narrator."""
    from .cast import discover_cast

    index = NameIndex(configured, language)
    taken = {c.id for c in configured}
    narrated = any(c.narrator for c in configured)  # `said I` is theirs, whatever name the text gives them
    others = []
    for m in discover_cast(text, language, by_lines=False):
        if m.speaks < 1 or m.id in taken or any(index.lookup(n) for n in [m.name, *m.aliases]) \
                or (m.narrator and narrated):
            continue
        taken.add(m.id)
        others.append(m.to_character(work, language))
    return others

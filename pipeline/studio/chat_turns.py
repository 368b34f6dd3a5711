"""The chat page's transcript (the turns so far travel in the page's form, so a reload of the form keeps them and
the studio keeps no state per visitor) and the characters one can chat with (those with a package)."""

from __future__ import annotations

import json
import re

from extractors.characters import load_characters

from ..paths import Project

MAX_TURNS = 60       # the transcript shown and carried: the latest turns
MAX_CHARS = 4000     # one turn's text as carried in the form


def packaged(project: Project) -> list[str]:
    """The configured characters that have a package (built: data/characters/ID/manifest.json)."""
    return [cid for cid in sorted(load_characters(project.configs))
            if (project.package(cid) / "manifest.json").is_file()]


def chat_turns(carried: str, role: str, text: str, name: str, answer) -> list[list[str]]:
    """The transcript the form carried (JSON [[who, text], ...]; anything else reads as empty) with this turn and
    the answer (the LLM's reply, else the best original line) added."""
    try:
        turns = [[str(w)[:100], str(t)[:MAX_CHARS]] for w, t in json.loads(carried or "[]")]
    except (ValueError, TypeError):
        turns = []
    reply = answer.reply if answer.reply is not None else (answer.best_line[1] if answer.best_line else "…")
    if answer.reply is None:  # the original line as the story has it, `Rosalind:「…」`: the transcript names the speaker
        m = re.fullmatch(r"\s*[^:：「」\n]{1,40}[:：]\s*「(.*)」\s*", reply, flags=re.S)
        reply = m.group(1) if m else reply
    return (turns + [[role, text], [name, reply]])[-MAX_TURNS:]

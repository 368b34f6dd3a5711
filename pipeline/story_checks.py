"""What a reader would trip on in a story (issue 40, point 4), for any character's stories: `story_problems`.

A story a reader keeps
- opens with no bare speech tag or tail of a quotation it does not hold (`旁白:said Alice.`, `旁白:cried the Mouse, …`);
- has no cue cut off from its quotation, at its end or inside (`旁白:谦曰：`, `旁白:…, remarking,` before narration);
- shows every speaker on one line, as a name, not with tag words (`the ⏎ Pigeon:`, `said Alice:`, `玄德曰:`);
- shows no `?` speaker (a line nobody is given has the name the text uses or `stories.UNATTRIBUTED`);
- shows one label per person (speaker id): not `Cohn` in one line and `Robert Cohn` in the next.

Used by tests/pipeline/test_story_quality.py on the sample characters, and usable on anyone's: `rolecorpus`'s stories file
read with `stories.read_stories`, each story passed here. The patterns are those `stories.tidy` removes by.
"""

from __future__ import annotations

import re
from typing import Iterable

from .stories import NARRATOR, SPEECH_VERBS_EN, Story, is_cue, is_fragment, is_speech_tag

_DIALOGUE = re.compile(r"^(?P<who>[^:：\n]*)[:：]「(?P<text>.*)」$")
_NARRATION = re.compile("^" + NARRATOR + r"[:：](?P<text>.*)$")
_TAG_WORDS_EN = re.compile(r"(?<![\w'’-])(?:" + SPEECH_VERBS_EN + r")\b")
_TAG_WORDS_ZH = re.compile(r"(?:曰|[笑问問答叫喝说說]道)$")
_NO_SPEAKER = {"", "?", "？", "None", "null"}


def _field(story, key: str, default=None):
    return story.get(key, default) if isinstance(story, dict) else getattr(story, key, default)


def story_problems(story: Story | dict) -> list[str]:
    """The problems of one story (a `Story` or its record as read from a stories file); [] when it has none."""
    text = _field(story, "text", "") or ""
    records = _field(story, "lines", []) or []
    rows: list[tuple[str | None, str]] = []  # (label or None for narration, words)
    problems: list[str] = []
    for n, raw in enumerate(text.split("\n"), 1):
        m = _NARRATION.match(raw)
        if m:
            rows.append((None, m["text"]))
            continue
        m = _DIALOGUE.match(raw)
        if m:
            rows.append((m["who"], m["text"]))
            continue
        problems.append(f"line {n} is no `Speaker:「words」` or `{NARRATOR}:words` line (a name or a line broken over "
                        f"two lines?): {raw[:60]!r}")
    if not rows:
        return problems + ["the story has no lines"]
    n_text = len(text.split("\n"))
    if records and len(records) != n_text:
        problems.append(f"{n_text} text lines for {len(records)} line records (a line broken over two?)")
    first = rows[0]
    if first[0] is None and (is_fragment(first[1]) or is_speech_tag(first[1])):
        problems.append(f"opens with a bare speech tag: {NARRATOR}:{first[1][:60]}")
    for k, (who, words) in enumerate(rows):
        if who is not None or not is_cue(words):
            continue
        if k + 1 == len(rows):
            problems.append(f"ends on a cut-off cue: {NARRATOR}:{words[-60:]}")
        elif rows[k + 1][0] is None:
            problems.append(f"a cue cut off from its quotation (line {k + 1}): {NARRATOR}:{words[-60:]}")
    for k, (who, _) in enumerate(rows):
        if who is None:
            continue
        if who.strip() in _NO_SPEAKER:
            problems.append(f"line {k + 1} shows no speaker ({who!r}); unattributed lines show the name the text uses "
                            "or the unattributed marker")
        elif _TAG_WORDS_EN.search(who) or _TAG_WORDS_ZH.search(who.strip()):
            problems.append(f"line {k + 1}: the speaker label holds tag words: {who!r}")
        elif who != who.strip() or "  " in who:
            problems.append(f"line {k + 1}: the speaker label has stray spaces: {who!r}")
    if records and len(records) == len(rows):
        labels: dict[str, set[str]] = {}
        for rec, (who, _) in zip(records, rows):
            sid = rec.get("speaker") if isinstance(rec, dict) else None
            if who is not None and sid:
                labels.setdefault(sid, set()).add(who)
        for sid, seen in sorted(labels.items()):
            if len(seen) > 1:
                problems.append(f"speaker {sid!r} shown under {len(seen)} labels: {', '.join(sorted(seen))}")
    return problems


def stories_problems(stories: Iterable[Story | dict]) -> dict[str, list[str]]:
    """{story id: its problems} for the stories that have any."""
    out = {}
    for s in stories:
        p = story_problems(s)
        if p:
            out[str(_field(s, "id", "?"))] = p
    return out

"""`synth questions`: new questions for the character, seeded by each story (the paper's §5).

For every story (except those holding a held-out exchange of `eval chat`), the lines before the character's first
turn are the seed: the LLM is asked, with `configs/prompts/synth.<language>.txt`, for `per_story` new lines someone
might say to the character at such a moment, one `Speaker:「line」` per row. Near-duplicates are removed by
embedding cosine (`synth.dedup`): against the questions already kept, every original prompting line of the package,
and the held-out prompts (so no question repeats a test exchange). The result is `data/train/ID/questions.jsonl`.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from extractors.errors import InputError
from extractors.ids import check_id

from .evalchat import Exchange, exchanges, parse_story, story_ids, write_jsonl
from .paths import Project
from .runtime import _LINE, CharacterBot
from .stories import UNATTRIBUTED, UNATTRIBUTED_ZH

_NUMBERING = re.compile(r"^\s*(?:\d+\s*[.)、．]|[-*•·])\s*")
# the narration's label, a line nobody is given, the prompt's placeholders: no one asks as these
NO_SPEAKER = ("旁白", "Speaker", "说话人", UNATTRIBUTED, UNATTRIBUTED_ZH)
_PLAIN = re.compile(r"^(?P<who>[^:：「」\n]{1,30})[:：]\s*(?P<text>.+)$")


@dataclass
class Question:
    id: str      # <story id>-<n>
    story: str
    role: str    # who asks
    text: str    # the words


def train_dir(project: Project, cid: str) -> Path:
    return project.root / "data" / "train" / check_id(cid, "character id")


def seed_context(bot: CharacterBot, text: str) -> tuple[list[str], str | None]:
    """The story's lines before the character's first turn, and the last other speaker among them."""
    lines, last = [], None
    for raw, (who, _) in zip([r for r in text.splitlines() if r.strip()], parse_story(text)):
        if who == bot.name:
            return lines, last
        lines.append(raw.strip())
        last = who or last
    return [], None  # the character never speaks: nothing to seed


def prompt_template(project: Project, language: str) -> str:
    folder = project.configs / "prompts"
    path = folder / f"synth.{language}.txt"
    if not path.exists():
        path = folder / "synth.en.txt"
    if not path.exists():
        raise InputError("no question prompt (configs/prompts/synth.en.txt)", path)
    return path.read_text(encoding="utf-8")


def seed_requests(bot: CharacterBot, template: str, per_story: int, skip: set[str]
                  ) -> list[tuple[str, str, list[dict], set[str]]]:
    """(story id, default asker, messages, the people of the scene) for every story with lines before the
    character's turn."""
    series = bot.config.get("series") or "the story"
    out = []
    for sid, text in zip(story_ids(bot), bot.texts):
        lines, last = seed_context(bot, text)
        if sid in skip or not lines:
            continue
        people = sorted({who for who, _ in parse_story("\n".join(lines)) if who and who not in NO_SPEAKER})
        content = template.format(name=bot.name, series=series, n=per_story, context="\n".join(lines),
                                  people=", ".join(people) or last or "User")
        out.append((sid, last or "User", [{"role": "user", "content": content}], set(people)))
    return out


def parse_questions(bot: CharacterBot, sid: str, asker: str, answer: str, per_story: int,
                    people: set[str] | None = None) -> list[Question]:
    """The lines of the LLM's answer as questions: `Speaker:「line」`, `Speaker: line`, or bare lines. A speaker
    who is not one of the scene's `people` (a small model invents names) becomes the default asker."""
    out: list[Question] = []
    for raw in answer.splitlines():
        line = _NUMBERING.sub("", raw.strip()).strip()
        m = _LINE.match(line) or _PLAIN.match(line)
        who, text = (m["who"].strip(), m["text"].strip()) if m else (asker, line)
        if people and who not in people and who != bot.name and who not in NO_SPEAKER:
            who = asker
        text = text.strip().strip("「」\"“”").strip()
        if not text or who == bot.name or who in NO_SPEAKER:
            continue
        out.append(Question(f"{sid}-{len(out) + 1}", sid, who, text))
        if len(out) == per_story:
            break
    return out


def dedupe(embedder, questions: list[Question], originals: list[str], threshold: float) -> list[Question]:
    """The questions in order, without any whose cosine with a kept question or an original line is >= threshold."""
    if not questions:
        return []
    texts = [q.text for q in questions]
    vecs = np.asarray(embedder.encode(texts + list(originals)), dtype=np.float64)
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    qv, ov = vecs[: len(texts)], vecs[len(texts):]
    kept: list[int] = []
    for i, v in enumerate(qv):
        against = np.vstack([ov, qv[kept]]) if kept else ov
        if len(against) and float(np.max(against @ v)) >= threshold:
            continue
        kept.append(i)
    return [questions[i] for i in kept]


def generate(bot: CharacterBot, client, template: str, per_story: int, held: list[Exchange], threshold: float,
             temperature: float | None = None, stories: int | None = None) -> tuple[list[Question], int]:
    """The kept questions and how many the LLM proposed (from the first `stories` seeding stories when given)."""
    skip = {e.story for e in held}
    reqs = seed_requests(bot, template, per_story, skip)[:stories]
    if not reqs:
        raise InputError(f"no story of {bot.name!r} has lines before their turn to seed questions")
    answers = client.complete_many([m for _, _, m, _ in reqs], temperature=temperature, desc="synth questions")
    proposed = [q for (sid, asker, _, people), a in zip(reqs, answers)
                for q in parse_questions(bot, sid, asker, a or "", per_story, people)]
    originals = sorted({e.prompt for e in exchanges(bot)} | {e.prompt for e in held})
    return dedupe(bot.embedder, proposed, originals, threshold), len(proposed)


def write_questions(path: Path, questions: list[Question]) -> None:
    write_jsonl(path, [asdict(q) for q in questions])


def read_questions(path: Path) -> list[Question]:
    if not path.exists():
        raise InputError("no questions; run `rolecorpus synth questions` first", path)
    try:
        return [Question(**json.loads(r)) for r in path.read_text(encoding="utf-8").splitlines() if r.strip()]
    except (ValueError, TypeError) as e:
        raise InputError(f"malformed questions file ({e.__class__.__name__})", path) from None

"""`synth dialogues`: training records from the questions (answered by the chat runtime) and from the stories.

Each question is answered with the runtime's full prompt over the package without the stories holding a held-out
exchange of `eval chat`; each story's own dialogue is exported too (`original: true`). Two files, `chat.jsonl`
and `chatharuhi.jsonl`, one record per dialogue in the same order: docs/training-and-eval.md."""

from __future__ import annotations

import re
from collections import Counter

from .evalchat import Exchange, bot_without, holding, parse_story, story_ids
from .runtime import STORY_HEADER, CharacterBot
from .synth import Question


def records(rid: str, original: bool, system_prompt: str, stories: list[str], history: list[dict], query: str,
            answer: str) -> tuple[dict, dict]:
    """The chat record and the ChatHaruhi-fields record of one dialogue."""
    system = system_prompt if not stories else system_prompt + "\n" + STORY_HEADER + "\n" + "\n###\n".join(stories)
    messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": query},
                {"role": "assistant", "content": answer}]
    chat = {"id": rid, "original": original, "messages": messages}
    haruhi = {"id": rid, "original": original, "system_prompt": system_prompt, "stories": stories,
              "history": history, "query": query, "answer": answer}
    return chat, haruhi


def story_turns(bot: CharacterBot, text: str) -> list[dict]:
    """A story as alternating turns: the character's lines (words) are assistant turns, the rest user turns."""
    turns: list[dict] = []
    raws = [r.strip() for r in text.splitlines() if r.strip()]
    for raw, (who, words) in zip(raws, parse_story(text)):
        role, content = ("assistant", words) if who == bot.name else ("user", raw)
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += "\n" + content
        else:
            turns.append({"role": role, "content": content})
    return turns


def _trim(turns: list[dict]) -> list[dict]:
    while turns and turns[0]["role"] == "assistant":
        turns = turns[1:]
    while turns and turns[-1]["role"] == "user":
        turns = turns[:-1]
    return turns


def segments(turns: list[dict], held_replies: set[str]) -> list[list[dict]]:
    """The dialogue cut at each held-out exchange (its reply turn and the prompting turn before it are dropped)."""
    segs, cur = [], []
    for t in turns:
        if t["role"] == "assistant" and any(ln in held_replies for ln in t["content"].split("\n")):
            if cur and cur[-1]["role"] == "user":
                cur.pop()
            segs.append(cur)
            cur = []
            continue
        cur.append(t)
    segs.append(cur)
    return [s for s in map(_trim, segs) if s]


def original_records(bot: CharacterBot, held: list[Exchange]) -> list[tuple[dict, dict]]:
    """One record per stretch of each story's dialogue; retrieval without the story itself and the held-out ones."""
    held_pos = holding(bot, held)
    replies = {e.reply for e in held}
    todo = []
    for pos, (sid, text) in enumerate(zip(story_ids(bot), bot.texts)):
        for k, seg in enumerate(segments(story_turns(bot, text), replies), start=1):
            todo.append((pos, f"orig-{sid}-{k}", seg))
    bot.embedder.encode([seg[-2]["content"] for _, _, seg in todo])  # one batch; retrieval then hits the cache
    out = []
    for pos, rid, seg in todo:
        stories = [t for _, t in bot_without(bot, held_pos | {pos}).retrieve(seg[-2]["content"])]
        out.append(records(rid, True, bot.system_prompt, stories, seg[:-2], seg[-2]["content"], seg[-1]["content"]))
    return out


_REFUSAL = re.compile(r"^\W*(?:I'?m sorry|I am sorry|sorry, (?:but )?I|as an ai\b|I can(?:no|')t (?:assist|help))", re.I)
_SCRIPT = re.compile(r"(?:^|[\s\"“”」.!?])(?P<who>[A-Z\u4e00-\u9fff][\w .'\u4e00-\u9fff]{0,30})[:：]\s*[\"“「]")
_SELF = re.compile(r"\b(?:I am|I'm|my name is|call me)\s+$", re.I)


def unusable(bot: CharacterBot, answer: str) -> str | None:
    """Why an LLM answer is no line of the character's (None when it is one): `empty`; a `refusal`; a `script`
    (it writes a scene, `Celia: "…" Rosalind: "…"`, not the character's reply); `third person` (it talks about the
    character by name, as a narrator or another person would)."""
    if not answer.strip():
        return "empty"
    if _REFUSAL.search(answer):
        return "refusal"
    if _SCRIPT.search(answer):
        return "script"
    names = {n for n in (bot.name, bot.name.split()[0]) if len(n) > 1}
    for n in names:
        for m in re.finditer(rf"(?<![\w\u4e00-\u9fff]){re.escape(n)}(?![\w])", answer):
            if not _SELF.search(answer[:m.start()]) and not re.search(r"(?:我是|我叫)$", answer[:m.start()]):
                return "third person"
    return None


def synthetic_records(bot: CharacterBot, held: list[Exchange], questions: list[Question], client,
                      temperature: float | None = None) -> tuple[list[tuple[dict, dict]], Counter]:
    """Each question answered by the LLM with the runtime's full prompt, and the answers left out, counted by
    why (`unusable`): a small model's refusals, scenes and narrator's answers would teach a fine-tuned model to
    answer that way."""
    sbot = bot_without(bot, holding(bot, held))
    queries = [bot.query_text(q.role, q.text) for q in questions]
    bot.embedder.encode(queries)
    retrieved = [sbot.retrieve(q) for q in queries]
    prompts = [sbot.build_messages(q, st) for q, st in zip(queries, retrieved)]
    answers = client.complete_many(prompts, temperature=temperature, desc="synth dialogues")
    out, dropped = [], Counter()
    for q, query, st, a in zip(questions, queries, retrieved, answers):
        answer = bot.clean_reply(a or "")
        why = unusable(bot, answer)
        if why:
            dropped[why] += 1
            continue
        out.append(records(f"synth-{q.id}", False, bot.system_prompt, [t for _, t in st], [], query, answer))
    return out, dropped

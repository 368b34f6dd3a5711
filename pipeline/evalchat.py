"""`eval chat`: how close a chatbot's reply to a classic prompt is to what the character really said (paper §6).

An exchange is a line by another speaker followed by the character's reply in one story of the package. The
held-out exchanges are chosen once per character, deterministically: those whose reply has at least
`eval_chat.min_reply_tokens` tokens, in a seeded shuffle (`eval_chat.seed`), the first `eval_chat.n` (the longest
others fill in when too few are long). They are written to `data/eval/ID/heldout.jsonl`, which `synth` reads so no
training record repeats one. Each exchange is asked of a bot built over the package *without the stories that hold
it* (the package on disk is not touched): `retrieval` (the best original line of the retrieved stories, no LLM),
`rag` (the full ChatHaruhi prompt: system prompt, retrieved stories, query) and `prompt-only` (system prompt and
query). Replies are scored with `pipeline.evalscore` (embedding cosine, ROUGE-L F).
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path

from extractors.atomic import atomic_open
from extractors.errors import InputError
from extractors.ids import check_id

from .evalscore import cosines, mean, rouge_l
from .paths import Project
from .retrieval import StoryIndex
from .runtime import _LINE, CharacterBot
from .tokens import count_tokens

BOTS = ("rag", "prompt-only", "retrieval")
LLM_BOTS = ("rag", "prompt-only")


@dataclass
class Exchange:
    id: str       # <story id>:<n>, the n-th exchange of the story
    story: str
    role: str     # who says the prompting line (as the story names them)
    prompt: str   # the prompting line's words
    reply: str    # the character's words
    tokens: int   # the reply's tokens (cl100k)


def eval_dir(project: Project, cid: str) -> Path:
    return project.root / "data" / "eval" / check_id(cid, "character id")


def heldout_path(project: Project, cid: str) -> Path:
    return eval_dir(project, cid) / "heldout.jsonl"


def story_ids(bot: CharacterBot) -> list[str]:
    """The ids of the package's stories, in role-file order (stories/NNNN.txt sorted; positions if they differ)."""
    ids = sorted(p.stem for p in (bot.package_dir / "stories").glob("*.txt"))
    return ids if len(ids) == len(bot.texts) else [f"{i + 1:04d}" for i in range(len(bot.texts))]


def parse_story(text: str) -> list[tuple[str | None, str]]:
    """(speaker, words) per line of a rendered story; speaker None for narration and action."""
    out = []
    for raw in text.splitlines():
        m = _LINE.match(raw.strip())
        if m:
            out.append((m["who"].strip(), m["text"]))
        elif raw.strip():
            out.append((None, raw.strip().split(":", 1)[-1]))
    return out


def exchanges(bot: CharacterBot) -> list[Exchange]:
    """Every exchange of the package: another speaker's line, then the character's (narration may lie between)."""
    out = []
    for sid, text in zip(story_ids(bot), bot.texts):
        prev, n = None, 0
        for who, words in parse_story(text):
            if who is None:
                continue
            if who == bot.name and prev is not None:
                n += 1
                out.append(Exchange(f"{sid}:{n}", sid, prev[0], prev[1], words, count_tokens(words)))
            prev = (who, words) if who != bot.name else None
    return out


def pick_heldout(exs: list[Exchange], n: int, seed: int, min_tokens: int) -> list[Exchange]:
    """The first `n` long exchanges of a seeded shuffle; the longest others fill in when too few are long."""
    long_ = [e for e in exs if e.tokens >= min_tokens]
    random.Random(seed).shuffle(long_)
    rest = sorted((e for e in exs if e.tokens < min_tokens), key=lambda e: (-e.tokens, e.id))
    return (long_ + rest)[:n]


def write_jsonl(path: Path, rows: list[dict]) -> None:
    with atomic_open(path) as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def read_heldout(path: Path) -> list[Exchange]:
    try:
        return [Exchange(**json.loads(raw)) for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()]
    except (ValueError, TypeError) as e:
        raise InputError(f"malformed held-out file ({e.__class__.__name__}); rerun `rolecorpus eval chat`", path) from None


def reply_line(bot: CharacterBot, ex: Exchange) -> str:
    return f"{bot.name}:「{ex.reply}」"


def holding(bot: CharacterBot, exs: list[Exchange]) -> set[int]:
    """Positions of the stories that hold any of the exchanges' replies (normally the exchange's own story)."""
    lines = [reply_line(bot, e) for e in exs]
    return {i for i, t in enumerate(bot.texts) if any(ln in t for ln in lines)}


def bot_without(bot: CharacterBot, drop: set[int]) -> CharacterBot:
    """A copy of the bot whose index lacks the stories at `drop` (and whose history is empty)."""
    keep = [i for i in range(len(bot.texts)) if i not in drop]
    b = copy.copy(bot)
    b.texts = [bot.texts[i] for i in keep]
    b._story_tokens = [bot._story_tokens[i] for i in keep]
    b.index = StoryIndex(bot.index.matrix[keep]) if keep else StoryIndex(bot.index.matrix[:0])
    b.history = []
    return b


def retrieval_reply(bot: CharacterBot, ex: Exchange) -> str:
    """The offline baseline: the character's words in the best original line of the retrieved stories."""
    stories = bot.retrieve(bot.query_text(ex.role, ex.prompt))
    best = bot.best_original_line(ex.prompt, stories)
    if best is None:
        return ""
    m = _LINE.match(best[1])
    return m["text"] if m else best[1]


def bot_messages(bot: CharacterBot, ex: Exchange, kind: str) -> list[dict]:
    """The messages an LLM bot sends: the full prompt (`rag`) or the system prompt and query (`prompt-only`)."""
    query = bot.query_text(ex.role, ex.prompt)
    if kind == "prompt-only":
        return [{"role": "system", "content": bot.system_prompt}, {"role": "user", "content": query}]
    return bot.build_messages(query, bot.retrieve(query))


def prewarm(bot: CharacterBot, held: list[CharacterBot], exs: list[Exchange], lines: bool) -> None:
    """Embed every query (and, for `lines`, every line of the stories they retrieve) in a few batches: the
    embedder's cache then answers the one-text calls of retrieval, which cost far more one at a time."""
    queries = [bot.query_text(e.role, e.prompt) for e in exs]
    bot.embedder.encode(queries + [e.prompt for e in exs])
    if lines:
        words = {w for b, q in zip(held, queries) for _, story in b.retrieve(q) for who, w in parse_story(story) if who}
        bot.embedder.encode(sorted(words))


def ask_all(bot: CharacterBot, exs: list[Exchange], kind: str, client=None) -> list[str]:
    """Each exchange's reply from the bot `kind`, its own story removed from the index."""
    held = [bot_without(bot, holding(bot, [e])) for e in exs]
    prewarm(bot, held, exs, lines=kind == "retrieval")
    if kind == "retrieval":
        return [retrieval_reply(b, e) for b, e in zip(held, exs)]
    answers = client.complete_many([bot_messages(b, e, kind) for b, e in zip(held, exs)], desc=f"eval chat {kind}")
    return [bot.clean_reply(a or "") for a in answers]


def score(embedder, exs: list[Exchange], replies: list[str]) -> tuple[list[dict], dict]:
    """Per-exchange rows and the summary {n, cosine, rougeL} (means)."""
    cos = cosines(embedder, replies, [e.reply for e in exs])
    rows = [{"id": e.id, "story": e.story, "query": f"{e.role}:「{e.prompt}」", "original": e.reply, "reply": r,
             "cosine": c, "rougeL": rouge_l(r, e.reply)} for e, r, c in zip(exs, replies, cos)]
    summary = {"n": len(rows), "cosine": mean([r["cosine"] for r in rows]), "rougeL": mean([r["rougeL"] for r in rows])}
    return rows, summary


def heldout_for(bot: CharacterBot, n: int, seed: int, min_tokens: int) -> list[Exchange]:
    return pick_heldout(exchanges(bot), n, seed, min_tokens)


def heldout_rows(exs: list[Exchange]) -> list[dict]:
    return [asdict(e) for e in exs]

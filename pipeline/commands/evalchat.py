"""CLI: `rolecorpus eval chat ID` — score chatbots on held-out exchanges of the character (pipeline/evalchat.py).

Writes data/eval/ID/heldout.jsonl (the held-out exchanges, read by `synth`), data/eval/ID/chat_<bot>.jsonl (one row
per exchange: query, original, reply, cosine, rougeL) and metrics/eval_chat_ID.json ({bot: {n, cosine, rougeL}};
the entries of bots not run this time are kept), plus metrics/llm_eval_chat_ID.json when an LLM bot ran.
"""

from __future__ import annotations

import json
import sys
from typing import List, Optional

import typer

from extractors.atomic import atomic_write_text
from extractors.errors import InputError
from extractors.llm import llm_configured

from ..cli_app import eval_app, one_line_errors
from ..evalchat import BOTS, LLM_BOTS, ask_all, eval_dir, heldout_for, heldout_path, heldout_rows, score, write_jsonl
from ..llm import client_for, llm_metrics_path
from ..paths import Project
from ..settings import load_settings
from ..bots import open_bot as _bot


def _bots(given: list[str]) -> list[str]:
    for b in given:
        if b not in BOTS:
            raise InputError(f"unknown --bot {b!r} (known: {', '.join(BOTS)})")
    if given:
        return list(dict.fromkeys(given))
    if llm_configured():
        return list(BOTS)
    print("note: no LLM configured (OPENAI_BASE_URL / OPENAI_API_KEY): scoring the offline retrieval bot only",
          file=sys.stderr)
    return ["retrieval"]


def _write_metrics(project: Project, cid: str, summaries: dict) -> None:
    path = project.metrics / f"eval_chat_{cid}.json"
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = {}
    merged = {**(old if isinstance(old, dict) else {}), **summaries}
    atomic_write_text(path, json.dumps(merged, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


def _table(name: str, summaries: dict) -> str:
    rows = [f"{'bot':<12} {'n':>4} {'cosine':>8} {'ROUGE-L':>8}"]
    for bot, s in summaries.items():
        cos = "-" if s["cosine"] is None else f"{s['cosine']:.4f}"
        rl = "-" if s["rougeL"] is None else f"{s['rougeL']:.4f}"
        rows.append(f"{bot:<12} {s['n']:>4} {cos:>8} {rl:>8}")
    return f"{name}: reply vs original line on held-out exchanges\n" + "\n".join(rows)


@eval_app.command("chat")
@one_line_errors
def eval_chat(
    character: str = typer.Argument(..., metavar="ID", help="Character id (a built package)."),
    n: Optional[int] = typer.Option(None, "--n", min=1, help="Exchanges to score: the first N held-out ones (default and most: eval_chat.n, 30)."),
    bot: List[str] = typer.Option([], "--bot", help="rag (full prompt + LLM), prompt-only (system prompt + LLM) or retrieval (best original line, offline); repeatable. Default: all three with an LLM configured, else retrieval."),
) -> None:
    """Ask bots the line before each held-out long reply of the character (its story removed from the index) and
    score their reply against the original: embedding cosine (as the paper) and ROUGE-L F."""
    project = Project.current()
    settings = load_settings(project.pipeline_yaml)
    cfg = settings.eval_chat
    chatbot, _ = _bot(character, None, True)
    cid = chatbot.package_dir.name
    held = heldout_for(chatbot, cfg.n, cfg.seed, cfg.min_reply_tokens)
    if n is not None and n > cfg.n:
        raise InputError(f"--n {n} is more than the {cfg.n} held-out exchanges; raise eval_chat.n (synth leaves out "
                         "exactly those)", project.pipeline_yaml)
    exs = held[: n or cfg.n]
    bots = _bots(bot)
    client = None
    if any(b in LLM_BOTS for b in bots):
        client = client_for(project, settings)
    if not exs:
        print(f"note: {cid} has no exchanges (another speaker's line, then theirs): nothing to score", file=sys.stderr)
    write_jsonl(heldout_path(project, cid), heldout_rows(held))
    summaries = {}
    for b in bots:
        replies = ask_all(chatbot, exs, b, client) if exs else []
        rows, summaries[b] = score(chatbot.embedder, exs, replies)
        write_jsonl(eval_dir(project, cid) / f"chat_{b}.jsonl", rows)
    _write_metrics(project, cid, summaries)
    if client is not None:
        client.write_metrics(llm_metrics_path(project, "eval_chat", cid))
    typer.echo(_table(chatbot.name, summaries))

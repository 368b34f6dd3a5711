"""CLI: `rolecorpus synth questions ID` and `rolecorpus synth dialogues ID` -> data/train/ID/.

questions: data/train/ID/questions.jsonl (pipeline/synth.py); dialogues: data/train/ID/chat.jsonl (OpenAI chat
records) and data/train/ID/chatharuhi.jsonl (the paper's fields), originals first (pipeline/synth_records.py).
Both leave out the held-out exchanges of `eval chat` (data/eval/ID/heldout.jsonl, or the same choice made here when
that file is absent). LLM accounting: metrics/llm_synth_questions_ID.json, metrics/llm_synth_dialogues_ID.json.
"""

from __future__ import annotations

import sys
from typing import Optional

import typer

from ..cli_app import one_line_errors, synth_app
from ..evalchat import Exchange, heldout_for, heldout_path, read_heldout, write_jsonl
from ..llm import client_for, llm_metrics_path
from ..paths import Project
from ..runtime import CharacterBot
from ..settings import Settings, load_settings
from ..synth import generate, prompt_template, read_questions, train_dir, write_questions
from ..synth_records import original_records, synthetic_records
from ..bots import open_bot as _bot


def _held(project: Project, settings: Settings, bot: CharacterBot) -> list[Exchange]:
    path = heldout_path(project, bot.package_dir.name)
    if path.exists():
        return read_heldout(path)
    print(f"note: no {path}: leaving out the held-out exchanges `eval chat` would choose", file=sys.stderr)
    cfg = settings.eval_chat
    return heldout_for(bot, cfg.n, cfg.seed, cfg.min_reply_tokens)


def _setup(character: str):
    project = Project.current()
    settings = load_settings(project.pipeline_yaml)
    bot, _ = _bot(character, None, True)
    return project, settings, bot


@synth_app.command("questions")
@one_line_errors
def questions(
    character: str = typer.Argument(..., metavar="ID", help="Character id (a built package)."),
    per_story: Optional[int] = typer.Option(None, "--per-story", min=1, help="New questions asked per story (default: synth.per_story, 5)."),
    stories: Optional[int] = typer.Option(None, "--stories", min=1, help="Ask from the first N stories only: a trial run on a slow local model (default: every story). A later full run reuses their answers from the cache."),
) -> None:
    """Ask the LLM for new questions in the spirit of each story's lines before the character's turn; drop
    near-duplicates (embedding cosine >= synth.dedup) -> data/train/ID/questions.jsonl."""
    project, settings, bot = _setup(character)
    cid = bot.package_dir.name
    client = client_for(project, settings)
    held = _held(project, settings, bot)
    template = prompt_template(project, bot.config.get("language") or "en")
    kept, proposed = generate(bot, client, template, per_story or settings.synth.per_story, held,
                              settings.synth.dedup, settings.synth.temperature, stories=stories)
    out = train_dir(project, cid) / "questions.jsonl"
    write_questions(out, kept)
    client.write_metrics(llm_metrics_path(project, "synth_questions", cid))
    typer.echo(f"{cid}: {len(kept)} questions ({proposed - len(kept)} of {proposed} dropped as near-duplicates) -> {out}")


@synth_app.command("dialogues")
@one_line_errors
def dialogues(character: str = typer.Argument(..., metavar="ID", help="Character id (a built package).")) -> None:
    """Answer each question with the chat runtime's full prompt (system prompt, retrieved stories, history, query)
    and export the stories' own exchanges too (original: true) -> data/train/ID/chat.jsonl, chatharuhi.jsonl."""
    project, settings, bot = _setup(character)
    cid = bot.package_dir.name
    qs = read_questions(train_dir(project, cid) / "questions.jsonl")
    client = client_for(project, settings, temperature=settings.chat.temperature)
    held = _held(project, settings, bot)
    originals = original_records(bot, held)
    synthetic, dropped = synthetic_records(bot, held, qs, client)
    rows = originals + synthetic
    out = train_dir(project, cid)
    write_jsonl(out / "chat.jsonl", [c for c, _ in rows])
    write_jsonl(out / "chatharuhi.jsonl", [h for _, h in rows])
    client.write_metrics(llm_metrics_path(project, "synth_dialogues", cid))
    note = (f", {sum(dropped.values())} answers left out: " + ", ".join(f"{why} {n}" for why, n in sorted(dropped.items()))
            if dropped else "")
    typer.echo(f"{cid}: {len(rows)} dialogues ({len(originals)} original, {len(synthetic)} synthetic{note}) -> "
               f"{out}/chat.jsonl, chatharuhi.jsonl")

"""CLI: `ask` (one question) and `chat` (interactive loop) with a character package."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from extractors.characters import get_character
from extractors.errors import InputError
from extractors.llm import chat_model_from_env, llm_configured, llm_model_name, redact_secrets

from ..cli_app import app
from ..embedders import CachedEmbedder, VectorCache, make_embedder
from ..paths import Project
from ..runtime import Answer, CharacterBot
from ..settings import load_settings


def _bot(character: str, model: Optional[str], no_llm: bool, story_tokens: Optional[int] = None,
         history_tokens: Optional[int] = None) -> tuple[CharacterBot, Optional[str]]:
    project = Project.current()
    settings = load_settings(project.pipeline_yaml)
    ch = get_character(project.configs, character)
    pkg = project.package(ch.id)
    if not pkg.is_dir():
        raise InputError(f"no package for {ch.id!r}; build it with `rolecorpus package {ch.id}` (or `dvc repro`)", pkg)
    chat = settings.chat
    llm, note = None, None
    if not no_llm and llm_configured():
        name = model or llm_model_name(chat.model)
        llm = chat_model_from_env(name, temperature=chat.temperature, timeout=chat.timeout)
    else:
        note = "no LLM configured (set OPENAI_BASE_URL / OPENAI_API_KEY and ROLECORPUS_LLM_MODEL): showing retrieved stories and the best original line"
    emb = CachedEmbedder(make_embedder(settings.embed.model_dump()), VectorCache(project.cache / "vectors"))
    bot = CharacterBot(pkg, emb, llm, story_tokens or chat.story_tokens, history_tokens or chat.history_tokens)
    return bot, note


def _show(bot: CharacterBot, ans: Answer, show_prompt: bool, note: Optional[str]) -> None:
    if show_prompt:
        typer.echo("----- prompt (messages sent) -----")
        for m in ans.messages:
            typer.echo(f"[{m['role']}]\n{m['content']}\n")
        typer.echo("----- end of prompt -----")
    if ans.reply is not None:
        typer.echo(f"{bot.name}: {ans.reply}")
        return
    typer.echo(note or "no LLM configured", err=True)
    typer.echo(f"retrieved {len(ans.stories)} stories:")
    for score, text in ans.stories:
        typer.echo(f"--- story (cosine {score:.3f}) ---\n{text}")
    if ans.best_line:
        prompt, reply, score = ans.best_line
        typer.echo(f"\nbest original line (score {score:.3f}):\n  {prompt}\n  {reply}")


def _check_text(text: str, what: str) -> None:
    """Refuse an argument that is no valid text (bytes the terminal's encoding could not decode) or is empty."""
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise InputError(f"{what} is not valid UTF-8 text; check the terminal's encoding (LANG/LC_ALL)")
    if not text.strip():
        raise InputError(f"{what} is empty")


@app.command("ask")
def ask(
    character: str = typer.Argument(..., metavar="ID", help="Character id (a built package)."),
    text: str = typer.Argument(..., help="What you say to the character."),
    role: str = typer.Option("User", "--as", help="Who is speaking (a name from the story, or yourself)."),
    show_prompt: bool = typer.Option(False, "--show-prompt", help="Print the exact messages sent to the LLM."),
    model: Optional[str] = typer.Option(None, "--model", help="Chat model name (default: $ROLECORPUS_LLM_MODEL or configs chat.model)."),
    no_llm: bool = typer.Option(False, "--no-llm", help="Retrieve only, even if an LLM is configured."),
    story_tokens: Optional[int] = typer.Option(None, "--story-tokens", help="Token budget for retrieved stories (default: configs chat.story_tokens, 1500)."),
    history_tokens: Optional[int] = typer.Option(None, "--history-tokens", help="Token budget for the history (default: configs chat.history_tokens, 1200)."),
) -> None:
    """Ask the character one question: retrieve its stories and answer (with an LLM if configured)."""
    _check_text(text, "the question")
    _check_text(role, "--as")
    bot, note = _bot(character, model, no_llm, story_tokens, history_tokens)
    _show(bot, bot.ask(role, text), show_prompt, note)


@app.command("chat")
def chat(
    character: str = typer.Argument(..., metavar="ID", help="Character id (a built package)."),
    role: str = typer.Option("User", "--as", help="Who is speaking."),
    show_prompt: bool = typer.Option(False, "--show-prompt", help="Print the exact messages sent each turn."),
    model: Optional[str] = typer.Option(None, "--model", help="Chat model name."),
    no_llm: bool = typer.Option(False, "--no-llm", help="Retrieve only, even if an LLM is configured."),
    story_tokens: Optional[int] = typer.Option(None, "--story-tokens", help="Token budget for retrieved stories (default: configs chat.story_tokens, 1500)."),
    history_tokens: Optional[int] = typer.Option(None, "--history-tokens", help="Token budget for the history (default: configs chat.history_tokens, 1200)."),
) -> None:
    """Talk with the character; history is kept within the history token budget. Ctrl-D or /quit ends."""
    bot, note = _bot(character, model, no_llm, story_tokens, history_tokens)
    typer.echo(f"Chatting with {bot.name} as {role}. /quit to leave.", err=True)
    while True:
        try:
            text = input(f"{role}> ") if sys.stdin.isatty() else sys.stdin.readline()
        except EOFError:
            break
        if text == "" and not sys.stdin.isatty():
            break
        text = text.strip()
        if not text:
            continue
        if text in ("/quit", "/exit"):
            break
        if any("\ud800" <= ch <= "\udfff" for ch in text):
            typer.echo("error: that line is not valid UTF-8 text; check the terminal's encoding", err=True)
            continue
        try:
            _show(bot, bot.ask(role, text), show_prompt, note)
        except InputError as e:
            typer.echo(f"error: {' '.join(redact_secrets(str(e)).split())}", err=True)

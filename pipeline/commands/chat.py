"""CLI: `ask` (one question) and `chat` (interactive loop) with a character package."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from extractors.errors import InputError
from extractors.llm import redact_secrets

from ..cli_app import app
from ..bots import open_bot
from ..runtime import Answer, CharacterBot


SHOWN = 3  # stories listed after an answer, one line each; --show-stories prints them all in full
WIDTH = 96  # characters of a story's first line shown in that list


def _bot(character: str, model: Optional[str], no_llm: bool, story_tokens: Optional[int] = None,
         history_tokens: Optional[int] = None) -> tuple[CharacterBot, Optional[str]]:
    return open_bot(character, model, no_llm, story_tokens, history_tokens)


def _first_line(story: str) -> str:
    """A story's first line, cut to WIDTH characters: enough to recognise the scene."""
    line = next((ln.strip() for ln in story.splitlines() if ln.strip()), "")
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"


def _show_stories(stories: list[tuple[float, str]], full: bool) -> None:
    if not stories:
        typer.echo("(no story retrieved)")
        return
    if full:
        for n, (score, text) in enumerate(stories, 1):
            typer.echo(f"\n--- story {n} of {len(stories)} (score {score:.3f}) ---\n{text}")
        return
    more = len(stories) - SHOWN
    hint = f"; {more} more with --show-stories" if more > 0 else ""
    typer.echo(f"\nstories used ({len(stories)}{hint}):")
    for score, text in stories[:SHOWN]:
        typer.echo(f"  {score:.2f}  {_first_line(text)}")


def _show(bot: CharacterBot, ans: Answer, show_prompt: bool, show_stories: bool) -> None:
    """The answer first (the LLM's, else the best original line with the line it answers), then the stories."""
    if show_prompt:
        typer.echo("----- prompt (messages sent) -----")
        for m in ans.messages:
            typer.echo(f"[{m['role']}]\n{m['content']}\n")
        typer.echo("----- end of prompt -----")
    if ans.reply is not None:
        typer.echo(f"{bot.name}: {ans.reply}")
    elif ans.best_line:
        prompt, reply, score = ans.best_line
        typer.echo(f"best original line (score {score:.3f}):\n  {prompt}\n  {reply}")
    else:
        typer.echo(f"{bot.name} has no line that answers this.")
    _show_stories(ans.stories, show_stories)


def _check_text(text: str, what: str) -> None:
    """Refuse an argument that is no valid text (bytes the terminal's encoding could not decode) or is empty."""
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise InputError(f"{what} is not valid UTF-8 text; check the terminal's encoding (LANG/LC_ALL)")
    if not text.strip():
        raise InputError(f"{what} is empty")


_ID = typer.Argument(..., metavar="ID", help="Character id (a built package).")
_MODEL = typer.Option(None, "--model", help="Chat model (default: $ROLECORPUS_LLM_MODEL, else chat.model).")
_NO_LLM = typer.Option(False, "--no-llm", help="Answer with the best original line even if an LLM is configured.")
_STORIES = typer.Option(False, "--show-stories", help="Print every story used, in full.")
_STORY_TOKENS = typer.Option(None, "--story-tokens", help="Token budget of the stories (default: chat.story_tokens).")
_HISTORY_TOKENS = typer.Option(None, "--history-tokens", help="Token budget of the history (default: "
                               "chat.history_tokens).")


@app.command("ask")
def ask(
    character: str = _ID,
    text: str = typer.Argument(..., help="What you say to the character."),
    role: str = typer.Option("User", "--as", help="Who is speaking (a name from the story, or yourself)."),
    show_stories: bool = _STORIES,
    show_prompt: bool = typer.Option(False, "--show-prompt", help="Print the exact messages sent to the LLM."),
    model: Optional[str] = _MODEL,
    no_llm: bool = _NO_LLM,
    story_tokens: Optional[int] = _STORY_TOKENS,
    history_tokens: Optional[int] = _HISTORY_TOKENS,
) -> None:
    """Ask a character one question; prints the answer and the stories it drew on."""
    _check_text(text, "the question")
    _check_text(role, "--as")
    bot, note = _bot(character, model, no_llm, story_tokens, history_tokens)
    if note:
        typer.echo(note, err=True)
    _show(bot, bot.ask(role, text), show_prompt, show_stories)


@app.command("chat")
def chat(
    character: str = _ID,
    role: str = typer.Option("User", "--as", help="Who is speaking."),
    show_stories: bool = _STORIES,
    show_prompt: bool = typer.Option(False, "--show-prompt", help="Print the exact messages sent each turn."),
    model: Optional[str] = _MODEL,
    no_llm: bool = _NO_LLM,
    story_tokens: Optional[int] = _STORY_TOKENS,
    history_tokens: Optional[int] = _HISTORY_TOKENS,
) -> None:
    """Talk with a character, keeping the conversation; /quit or Ctrl-D ends."""
    bot, note = _bot(character, model, no_llm, story_tokens, history_tokens)
    if note:
        typer.echo(note, err=True)  # once per session, not every turn
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
            _show(bot, bot.ask(role, text), show_prompt, show_stories)
            typer.echo()
        except InputError as e:
            typer.echo(f"error: {' '.join(redact_secrets(str(e)).split())}", err=True)

"""CLI: `rolecorpus profile ID` — an LLM-drafted profile from the character's own lines, written to
`configs/profiles/ID.md` for a person to edit (pipeline/profile.py); `package` puts it into the system prompt."""

from __future__ import annotations

import json
import sys

import typer

from extractors.atomic import atomic_write_text
from extractors.characters import AliasResolver, Character, get_character, load_characters
from extractors.errors import InputError
from extractors.llm_client import STAT_KEYS
from extractors.records import Line, read_lines

from ..cli_app import app, one_line_errors
from ..llm import client_for, llm_metrics_path
from ..paths import Project
from ..profile import compute_facts, draft_profile, is_untouched_draft, profile_path
from ..settings import Settings, load_settings
from ..stories import read_stories


def works_lines(project: Project, settings: Settings, ch: Character) -> list[Line]:
    """The lines of every work `characters.<id>.work` names; the character must have stories (segment first)."""
    read_stories(project.stories(ch.id))  # a character without stories: one line, before any LLM work
    spec = settings.characters.get(ch.id)
    if spec is None:
        raise InputError(f"characters.{ch.id}.work is not set (the works whose lines are {ch.id}'s corpus)",
                         project.pipeline_yaml)
    lines: list[Line] = []
    for work in spec.works():
        lines.extend(read_lines(project.lines(work)))
    return lines


@app.command("profile")
@one_line_errors
def profile(
    character: str = typer.Argument(..., metavar="ID", help="Character id (configs/characters/ID.yaml)."),
    force: bool = typer.Option(False, "--force", help="Redraft and replace a profile a person has edited."),
) -> None:
    """Draft configs/profiles/ID.md with an LLM, for a person to edit; `package ID` puts it into the system prompt.

    Sections: identity, speaking style, catchphrases with their counts, the people ID answers most, what ID never says.

    The counts come from the corpus (the lines of the character's works), the prose from the LLM.

    LLM: OPENAI_BASE_URL / OPENAI_API_KEY / ROLECORPUS_LLM_MODEL and `llm:`; prompts: configs/prompts/profile.*.txt.

    An edited profile is kept (no LLM call) unless --force. Answers are cached: a rerun makes no call."""
    project = Project.current()
    settings = load_settings(project.pipeline_yaml)
    ch = get_character(project.configs, character)
    lines = works_lines(project, settings, ch)
    out = profile_path(project.configs, ch.id)
    if out.exists() and not force and not is_untouched_draft(out.read_text(encoding="utf-8", errors="replace")):
        print(f"note: {out}: edited by hand, kept as it is (no LLM call); --force redrafts and replaces it",
              file=sys.stderr)
        kept = dict.fromkeys(STAT_KEYS, 0) | {"kept_edited_profile": True}
        atomic_write_text(llm_metrics_path(project, "profile", ch.id), json.dumps(kept, indent=2) + "\n")
        return
    opts = settings.profile
    facts = compute_facts(ch, lines, AliasResolver(load_characters(project.configs)), top_phrases=opts.catchphrases,
                          top_people=opts.people, samples=opts.samples)
    client = client_for(project, settings, desc=f"profile {ch.id}")
    text = draft_profile(client, facts, project.configs)
    atomic_write_text(out, text)
    client.write_metrics(llm_metrics_path(project, "profile", ch.id))
    s = client.stats
    typer.echo(f"{ch.id}: profile from {facts.lines} lines ({len(facts.catchphrases)} catchphrases, "
               f"{len(facts.interlocutors)} people; LLM calls {s['calls']}, cache hits {s['cache_hits']}) -> {out}")

"""The chat runtime over a built package, as `ask`, `chat`, `synth`, `eval chat` and the studio open it: the
project's embedder and chat settings, and the LLM from the environment when one is configured."""

from __future__ import annotations

from typing import Optional

from extractors.characters import get_character
from extractors.errors import InputError
from extractors.llm import chat_model_from_env, llm_configured, llm_model_name

from .embedders import CachedEmbedder, VectorCache, make_embedder
from .paths import Project
from .runtime import CharacterBot
from .settings import load_settings

NO_LLM = ("note: no LLM configured (set OPENAI_BASE_URL, OPENAI_API_KEY and ROLECORPUS_LLM_MODEL, or see "
          "docs/llm.md): answering with the best original line")


def open_bot(character: str, model: Optional[str] = None, no_llm: bool = False, story_tokens: Optional[int] = None,
             history_tokens: Optional[int] = None, project: Project | None = None) -> tuple[CharacterBot, Optional[str]]:
    """The bot over the character's package, and the notice to print once when no LLM will answer (None when one
    will, or when `no_llm` asked for none)."""
    project = project or Project.current()
    settings = load_settings(project.pipeline_yaml)
    ch = get_character(project.configs, character)
    pkg = project.package(ch.id)
    if not pkg.is_dir():
        raise InputError(f"no package for {ch.id!r}; build it with `rolecorpus build` (or `rolecorpus package {ch.id}`)",
                         pkg)
    chat = settings.chat
    llm, note = None, None
    if not no_llm and llm_configured():
        name = model or llm_model_name(chat.model)
        llm = chat_model_from_env(name, temperature=chat.temperature, timeout=chat.timeout)
    elif not no_llm:
        note = NO_LLM
    emb = CachedEmbedder(make_embedder(settings.embed.model_dump()), VectorCache(project.cache / "vectors"))
    bot = CharacterBot(pkg, emb, llm, story_tokens or chat.story_tokens, history_tokens or chat.history_tokens)
    return bot, note

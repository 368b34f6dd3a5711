"""Build a LangChain chat model for any OpenAI-compatible endpoint from the environment.

Secrets come only from `OPENAI_API_KEY` / `OPENAI_BASE_URL`; the model name from
`ROLECORPUS_LLM_MODEL` (or `OPENAI_MODEL`) unless given. Nothing here logs the key.
"""

from __future__ import annotations

import os

from .errors import InputError


def llm_configured() -> bool:
    """True when an endpoint or key is set in the environment."""
    return bool(os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"))


def redact_secrets(text: str) -> str:
    """`text` with the API key (if one is set) replaced by `***`: for error messages a server may echo."""
    key = os.environ.get("OPENAI_API_KEY")
    return text.replace(key, "***") if key and len(key) >= 4 else text


def llm_model_name(default: str | None = None) -> str | None:
    return os.environ.get("ROLECORPUS_LLM_MODEL") or os.environ.get("OPENAI_MODEL") or default


def chat_model_from_env(model: str | None = None, temperature: float = 0.0, timeout: float = 60.0, max_retries: int = 0):
    """A `langchain_openai.ChatOpenAI` for the configured endpoint, or InputError if none is set."""
    if not llm_configured():
        raise InputError("no LLM configured: set OPENAI_BASE_URL and/or OPENAI_API_KEY (and ROLECORPUS_LLM_MODEL)")
    try:
        from langchain_openai import ChatOpenAI
    except ImportError:  # pragma: no cover
        raise InputError("langchain-openai is not installed: pip install 'rolecorpus[llm]'") from None
    name = model or llm_model_name("gpt-4o-mini")
    return ChatOpenAI(
        model=name,
        temperature=temperature,
        timeout=timeout,
        max_retries=max_retries,
        api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
        base_url=os.environ.get("OPENAI_BASE_URL") or None,
    )

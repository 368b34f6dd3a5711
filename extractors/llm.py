"""Build a LangChain chat model for any OpenAI-compatible endpoint from the environment.

Secrets come only from `OPENAI_API_KEY` / `OPENAI_BASE_URL`; the model name from
`ROLECORPUS_LLM_MODEL` (or `OPENAI_MODEL`) unless given. Nothing here logs the key.
"""

from __future__ import annotations

import os
import re

from .errors import InputError


def llm_configured() -> bool:
    """True when an endpoint or key is set in the environment."""
    return bool(os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"))


_SECRET_ENV = ("OPENAI_API_KEY", "ROLECORPUS_API_KEY", "AZURE_OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN")
_SECRET_PATTERNS = (
    re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?)(?:bearer\s+|basic\s+)?[^\s\"',}]+"),
    re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|access[_-]?token|password|secret)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}&]{4,}"),
    re.compile(r"()\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}"),
)


def redact_secrets(text: object) -> str:
    """`text` with every secret scrubbed: the keys set in the environment (and their visible tails), any
    `Authorization` value, `Bearer` tokens, `api_key=` values and `sk-...` style keys become `***`.
    Use it wherever an exception's text can reach the user or a log."""
    text = str(text)
    for name in _SECRET_ENV:
        key = os.environ.get(name)
        if key and len(key) >= 4:
            text = text.replace(key, "***")
            if len(key) >= 12:  # servers often echo a key shortened: `sk-abc...wxyz`
                text = text.replace(key[:8], "***").replace(key[-4:], "***")
    for pat in _SECRET_PATTERNS:
        text = pat.sub(lambda m: m.group(1) + "***", text)
    return text


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

"""The LLM client of the stages after the package (profile, synth, annotate, eval chat), built from settings.

`client_for` reads `llm:` of configs/pipeline.yaml (model, temperature, limits, retries, rate, concurrency) and the
endpoint from the environment (OPENAI_BASE_URL / OPENAI_API_KEY; ROLECORPUS_LLM_MODEL overrides the model). With no
endpoint configured it is a one-line InputError, before any work is done. Metrics: `llm_metrics_path`.
"""

from __future__ import annotations

import os
from pathlib import Path

from extractors.errors import InputError
from extractors.ids import check_id
from extractors.llm import is_local_endpoint, llm_configured, llm_model_name
from extractors.llm_client import LLMClient

from .paths import Project
from .settings import Settings


def client_for(project: Project, settings: Settings, *, temperature: float | None = None,
               chat_model=None, desc: str = "LLM") -> LLMClient:
    """The one client for an LLM stage; `chat_model` replaces the endpoint's model (tests, plugins); `desc` names
    its single requests in the progress lines."""
    if chat_model is None and not llm_configured():
        raise InputError("no LLM configured: set OPENAI_BASE_URL and/or OPENAI_API_KEY "
                         "(and ROLECORPUS_LLM_MODEL) in the environment")
    cfg = settings.llm
    return LLMClient(project.cache, model=llm_model_name(cfg.model), chat_model=chat_model,
                     temperature=cfg.temperature if temperature is None else temperature, timeout=cfg.timeout,
                     first_token=cfg.first_token, silence=cfg.silence, max_tokens=cfg.max_tokens,
                     json_mode=cfg.json_mode, max_retries=cfg.max_retries,
                     requests_per_minute=cfg.requests_per_minute, concurrency=concurrency(cfg.concurrency),
                     desc=desc)


def concurrency(configured: int) -> int:
    """Requests in flight: as configured, else 1 for a server on this machine (llama.cpp, Ollama answer one at a
    time: more would only queue there, each eating into its own time limit) and 4 for a remote endpoint."""
    if configured:
        return configured
    return 1 if is_local_endpoint(os.environ.get("OPENAI_BASE_URL")) else 4


def llm_metrics_path(project: Project, stage: str, cid: str) -> Path:
    """`metrics/llm_<stage>_<ID>.json`: what one LLM stage paid for one character (declared in dvc.yaml)."""
    return project.metrics / f"llm_{check_id(stage, 'stage')}_{check_id(cid, 'character id')}.json"

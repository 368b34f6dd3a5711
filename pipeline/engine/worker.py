"""One worker: what a job does, the same in this process (engine local) and in a Ray actor (engine ray).

It keeps the heavy models for every job it runs: `PipelineModels` (Whisper, the ECAPA encoder, the LLM client)
per cache folder, and one embedder per embed setting. A job's failure is returned, never raised, as one line
naming the file or character (secrets scrubbed), so one bad episode does not stop the others.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from extractors.errors import InputError
from extractors.llm import redact_secrets

from ..paths import Project


@dataclass(frozen=True)
class CharacterJob:
    """One character of a project, for the segment, embed and package steps."""

    root: str
    cache: str
    character: str
    embed: dict  # the embed settings (backend, model, threads, batch)


@contextlib.contextmanager
def project_env(root: str, cache: str) -> Iterator[None]:
    """ROLECORPUS_ROOT / ROLECORPUS_CACHE set for the job (the commands find the project there), then restored."""
    old = {k: os.environ.get(k) for k in ("ROLECORPUS_ROOT", "ROLECORPUS_CACHE")}
    os.environ.update(ROLECORPUS_ROOT=root, ROLECORPUS_CACHE=cache)
    try:
        yield
    finally:
        for k, v in old.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _where(item: Any) -> str:
    return str(getattr(item, "source", "")) or f"character {getattr(item, 'character', '?')}"


class Worker:
    def __init__(self):
        self._models: dict[str, Any] = {}
        self._embedders: dict[str, Any] = {}

    def run(self, method: str, item: Any) -> tuple[bool, Any]:
        """(True, result) or (False, `where: problem`) for the job `item` of step `method`."""
        try:
            with project_env(item.root, item.cache):
                return True, getattr(self, method)(item)
        except InputError as e:
            msg = str(e)
            where = _where(item)
            return False, " ".join(redact_secrets(msg if where in msg else f"{where}: {msg}").split())
        except Exception as e:  # noqa: BLE001  (one job's crash is reported with the others at the end)
            return False, " ".join(redact_secrets(f"{_where(item)}: unexpected {type(e).__name__}: {e}").split())[:400]

    def models(self, cache: str):
        if cache not in self._models:
            from ..models import PipelineModels

            self._models[cache] = PipelineModels(Path(cache))
        return self._models[cache]

    def extract(self, job) -> dict:
        from ..batch import run_job

        return run_job(job, self.models(job.cache))

    def segment(self, job: CharacterJob) -> str:
        from ..stages import segment_character

        return segment_character(Project(Path(job.root)), job.character)

    def embed(self, job: CharacterJob) -> str:
        from ..embedders import CachedEmbedder, VectorCache, make_embedder
        from ..stages import embed_stories
        from ..stories import read_stories

        project = Project(Path(job.root))
        stories = read_stories(project.stories(job.character))
        key = json.dumps([job.cache, job.embed], sort_keys=True)
        if key not in self._embedders:
            self._embedders[key] = CachedEmbedder(make_embedder(job.embed), VectorCache(project.cache / "vectors"),
                                                  batch=job.embed["batch"])
        return embed_stories(project, job.character, stories, self._embedders[key], job.embed["backend"])

    def package(self, job: CharacterJob) -> str:
        from ..stages import package_character

        return package_character(Project(Path(job.root)), job.character)

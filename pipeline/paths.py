"""Where each stage reads and writes, relative to the project root (the current directory)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Project:
    root: Path

    @classmethod
    def current(cls) -> "Project":
        return cls(Path(os.environ.get("ROLECORPUS_ROOT", ".")).resolve())

    @property
    def configs(self) -> Path:
        return self.root / "configs"

    @property
    def pipeline_yaml(self) -> Path:
        return self.configs / "pipeline.yaml"

    def lines(self, work: str) -> Path:
        return self.root / "data" / "lines" / f"{work}.jsonl"

    def stories(self, cid: str) -> Path:
        return self.root / "data" / "stories" / f"{cid}.jsonl"

    def embeddings(self, cid: str) -> Path:
        return self.root / "data" / "embeddings" / f"{cid}.npz"

    def package(self, cid: str) -> Path:
        return self.root / "data" / "characters" / cid

    @property
    def cache(self) -> Path:
        return Path(os.environ.get("ROLECORPUS_CACHE", self.root / ".cache" / "rolecorpus"))

    @property
    def metrics(self) -> Path:
        return self.root / "metrics"

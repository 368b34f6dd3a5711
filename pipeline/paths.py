"""Where each stage reads and writes, relative to the project root (the current directory).

Every id that becomes a file name here goes through `extractors.ids.check_id` (the one validator), so no
path built from a character or work id can leave the project.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from extractors.ids import check_id


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
        return self.root / "data" / "lines" / f"{check_id(work, 'work id')}.jsonl"

    def stories(self, cid: str) -> Path:
        return self.root / "data" / "stories" / f"{check_id(cid, 'character id')}.jsonl"

    def embeddings(self, cid: str) -> Path:
        return self.root / "data" / "embeddings" / f"{check_id(cid, 'character id')}.npz"

    def rooted(self, opts):
        """A kind's options with every relative path made relative to the project root (DVC runs there; a test
        may not)."""
        paths = {k: self.root / v for k, v in opts if isinstance(v, Path) and not v.is_absolute()}
        return opts.model_copy(update=paths) if paths else opts

    def package(self, cid: str) -> Path:
        return self.root / "data" / "characters" / check_id(cid, "character id")

    @property
    def cache(self) -> Path:
        return Path(os.environ.get("ROLECORPUS_CACHE", self.root / ".cache" / "rolecorpus"))

    @property
    def metrics(self) -> Path:
        return self.root / "metrics"

"""Shared test set-up: offline models, one torch thread, paths to samples and gold corpora."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
for _k in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
    os.environ.pop(_k, None)  # tests never reach a real endpoint by accident

try:  # torch is optional for the core tests
    import torch

    torch.set_num_threads(1)
except ImportError:  # pragma: no cover
    pass

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "data" / "samples"
PDNC = Path(os.environ.get("PDNC_DIR", REPO.parent / "shared" / "corpora" / "pdnc" / "data"))


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def samples() -> Path:
    return SAMPLES


@pytest.fixture(scope="session")
def pdnc() -> Path:
    if not PDNC.is_dir():
        pytest.skip(f"PDNC gold corpus not found at {PDNC} (set PDNC_DIR; a clone without ../shared skips these)")
    return PDNC

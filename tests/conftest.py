"""Shared test set-up: offline models, one torch thread, paths to samples and gold corpora.

Gold corpora are not in the repository: they live in `../shared/corpora/` beside the clone (PDNC for
English speaker attribution, 红楼梦 1-8 for Chinese). Every test that reads them takes the `pdnc` or
`honglou` fixture: where the data is absent the test skips with a reason saying where it comes from,
so a fresh clone runs green; with ROLECORPUS_REQUIRE_GOLD=1 (set by `.ci/run`) it fails instead.
PDNC_DIR and HONGLOU_DIR point elsewhere; ROLECORPUS_SHARED moves the whole `shared/` folder.

Tests taking a gold fixture are marked `gold`. Locally `slow` and `gold` tests are opt-in (`make test-all`,
ROLECORPUS_ALL_TESTS=1); CI (ROLECORPUS_REQUIRE_GOLD=1) and an explicit `-m` run what they select.
"""

from __future__ import annotations

import importlib.util
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
SHARED = Path(os.environ.get("ROLECORPUS_SHARED", REPO.parent / "shared"))
PDNC = Path(os.environ.get("PDNC_DIR", SHARED / "corpora" / "pdnc" / "data"))
HONGLOU = Path(os.environ.get("HONGLOU_DIR", SHARED / "corpora" / "honglou"))
REQUIRE_GOLD = os.environ.get("ROLECORPUS_REQUIRE_GOLD", "") not in ("", "0")
RUN_ALL = REQUIRE_GOLD or os.environ.get("ROLECORPUS_ALL_TESTS", "") not in ("", "0")
# fixtures that read a gold corpus (test_novel_zh_modern.py defines wp2021 itself)
GOLD_FIXTURES = {"pdnc", "honglou", "wp2021"}
OPT_IN = ("slow", "gold")


def gold_dir(path: Path, what: str, origin: str, env: str, needs: str) -> Path:
    """`path` when it holds `needs`; else skip (with ROLECORPUS_REQUIRE_GOLD=1: fail), saying where the data comes from."""
    if (path / needs).exists():
        return path
    reason = (f"{what} not found at {path} (no {needs}): it is {origin}, kept in ../shared/corpora beside the clone, "
              f"not in the repository; set {env} to point elsewhere")
    if REQUIRE_GOLD:
        pytest.fail(f"ROLECORPUS_REQUIRE_GOLD is set and {reason}", pytrace=False)
    pytest.skip(reason)


def load_script(path: Path):
    """A benchmark or script of the repository (`benchmarks/zh_modern.py`) as a module, loaded from its path: they are
    run as files, not imported as a package."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def samples() -> Path:
    return SAMPLES


@pytest.fixture(scope="session")
def pdnc() -> Path:
    """The PDNC data folder: one folder per novel with novel_text.txt, quotation_info.csv, character_info.csv."""
    return gold_dir(PDNC, "PDNC gold corpus",
                    "the Project Dialogism Novel Corpus (github Priya22/project-dialogism-novel-corpus)",
                    "PDNC_DIR", "PrideAndPrejudice/quotation_info.csv")


@pytest.fixture(scope="session")
def honglou() -> Path:
    """The 红楼梦 1-8 folder: hongloumeng_1-8.txt and its speech-cue labels label_honglou_1-8.txt."""
    return gold_dir(HONGLOU, "红楼梦 1-8 gold speech cues", "the labelled set of github stoensin/BERT_fun",
                    "HONGLOU_DIR", "label_honglou_1-8.txt")


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_WorkerCounts(), "rolecorpus-opt-in-counts")


def pytest_collection_modifyitems(config, items):
    """Mark gold tests; unless everything is asked for, leave the opt-in ones out (counted for the summary)."""
    for item in items:
        if GOLD_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.gold)
    if RUN_ALL or config.option.markexpr:
        return
    left = [item for item in items if any(item.get_closest_marker(m) for m in OPT_IN)]
    if not left:
        return
    config.hook.pytest_deselected(items=left)
    items[:] = [item for item in items if not any(item.get_closest_marker(m) for m in OPT_IN)]
    config.stash[_LEFT_OUT] = len(left)
    if hasattr(config, "workeroutput"):  # an xdist worker: its controller prints the summary
        config.workeroutput["opt_in_left_out"] = len(left)


class _WorkerCounts:
    """On the xdist controller: every worker collects the whole run, so any one's count is the run's."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        n = getattr(node, "workeroutput", {}).get("opt_in_left_out")
        if n:
            node.config.stash[_LEFT_OUT] = n


_LEFT_OUT = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter, config):
    if n := config.stash.get(_LEFT_OUT, 0):
        terminalreporter.write_line(f"{n} slow or gold tests not run: `make test-all` (or ROLECORPUS_ALL_TESTS=1) "
                                    f"runs them, as CI does")

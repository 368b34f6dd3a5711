"""`dvc repro` on a copy of the project: builds, then does nothing, then reruns only what a parameter or a code
change touches; and every module a stage runs is one of its deps."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dvc_copy import REPO, copy_project, ran, sh

def _trim(cfg: dict) -> None:
    cfg["works"] = {"asyoulik": {"kind": "script", "input": "data/samples/asyoulik.txt", "options": {"format": "play"}}}
    cfg["characters"] = {"rosalind": {"work": "asyoulik"}, "orlando": {"work": "asyoulik"}}
    cfg["voices"] = {}  # no voice model to train (the sample's needs the telephone call, not copied here)
    cfg["eval_chat"]["characters"] = ["rosalind"]
    cfg["seasons"] = {}  # nor the sample season's voices


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("dvcproj"), ("data/samples/asyoulik",), _trim)


@pytest.mark.slow
def test_repro_builds_then_is_a_no_op_then_reruns_only_downstream_of_a_param(copy):
    first = ran(sh(copy, "dvc", "repro"))
    assert {"lines@asyoulik", "segment@rosalind", "embed@rosalind", "package@rosalind", "package@orlando"} <= first
    assert len(list((copy / "data/characters/rosalind/stories").glob("*.txt"))) >= 40
    assert (copy / "data/characters/rosalind/rosalind.jsonl").exists()

    assert ran(sh(copy, "dvc", "repro")) == set()

    cfg_path = copy / "configs/pipeline.yaml"
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["segment"]["max_tokens"] = 400
    cfg_path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    third = ran(sh(copy, "dvc", "repro"))
    assert third == {f"{stage}@{c}" for stage in ("segment", "embed", "package") for c in ("rosalind", "orlando")} \
        | {"eval@rosalind"}


@pytest.mark.slow
def test_a_parser_change_reruns_the_lines_it_produced_and_nothing_more(copy):
    sh(copy, "dvc", "repro")
    parser = copy / "extractors/script/colon.py"
    parser.write_text(parser.read_text() + "\n# a comment: the code changed, its output did not\n")
    assert ran(sh(copy, "dvc", "repro")) == {"lines@asyoulik"}  # same lines: segment and later do not rerun
    assert ran(sh(copy, "dvc", "repro")) == set()
    seg = copy / "pipeline/segment.py"
    seg.write_text(seg.read_text() + "\n# touched\n")
    assert ran(sh(copy, "dvc", "repro")) == {"segment@rosalind", "segment@orlando"}


def _deps(stage: str) -> list[str]:
    do = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"][stage]["do"]
    return [d for d in do["deps"] if isinstance(d, str)]


def _covered(module_file: str, deps: list[str]) -> bool:
    return any(module_file == d or module_file.startswith(d.rstrip("/") + "/") for d in deps)


def _modules_used(imports: list[str], under: tuple[str, ...]) -> list[str]:
    """Repository files (under the given folders) loaded by importing `imports` in a fresh interpreter."""
    code = ("import sys, importlib\n"
            f"for m in {imports!r}: importlib.import_module(m)\n"
            "print('\\n'.join(getattr(m, '__file__', None) or '' for m in list(sys.modules.values())))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    files = {Path(f).resolve() for f in out.split() if f}
    return sorted(str(f.relative_to(REPO)) for f in files if any(f.is_relative_to(REPO / u) for u in under))


# what each kind's extract path imports (lazily, inside functions) besides its extractor class
EXTRACT_MODULES = {
    "script": ["extractors.script"],
    "wiki": ["extractors.wiki"],
    "novel": ["extractors.novel.extract", "extractors.novel.cast.discover", "extractors.novel.llm.kor", "extractors.llm"],
    "tv": ["extractors.tv.extract", "extractors.tv.speaker_id", "extractors.tv.ecapa"],
}




@pytest.mark.parametrize("kind", sorted(EXTRACT_MODULES))
def test_every_module_a_lines_stage_runs_is_one_of_its_deps(kind):
    """The kind's extractor and what its extract path imports: every extractors/ module among them is listed
    (the kind's folder or a shared file), and so is the one function all kinds run through."""
    from extractors.registry import BUILTIN

    used = _modules_used([BUILTIN[kind].split(":")[0], *EXTRACT_MODULES[kind]], ("extractors",))
    deps = [d.replace("${item.kind}", kind) for d in _deps("lines")]
    missing = [m for m in used if not _covered(m, deps)]
    assert used and not missing, f"the lines stage of a {kind} work runs {missing} but dvc.yaml does not list it"
    assert {"pipeline/extraction.py", "pipeline/models.py", "extractors/registry.py"} <= set(deps)


@pytest.mark.parametrize("stage,imports", [
    ("segment", ["pipeline.segment", "pipeline.stories", "pipeline.tokens"]),
    ("embed", ["pipeline.embedders", "pipeline.stories"]),
    ("package", ["pipeline.package", "pipeline.rolefile", "pipeline.stories"]),
    ("eval", ["pipeline.evalchat", "pipeline.evalscore"]),
    ("synth-questions", ["pipeline.synth", "pipeline.evalchat"]),
    ("synth-dialogues", ["pipeline.synth", "pipeline.synth_records"]),
])
def test_every_module_a_later_stage_runs_is_one_of_its_deps(stage, imports):
    used = _modules_used(imports, ("extractors", "pipeline"))
    missing = [m for m in used if not _covered(m, _deps(stage))]
    assert not missing, f"{stage} runs {missing} but dvc.yaml does not list it"

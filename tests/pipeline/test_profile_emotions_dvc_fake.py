"""The LLM stages in DVC (`profile@ID`, `emotions@ID`), with a FAKE OpenAI-compatible server on localhost
(tests/support/fake_llm_server.py) as the endpoint of every LLM and embedding call: absent from the shipped config (so
`dvc repro` on the sample stays offline), declared for the characters listed, built before `package` in one
`dvc repro`, a second repro makes zero calls, and a person's edit of the profile reruns `package` (for no call)."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from fake_llm_server import FakeLLMServer
from profile_emotions_helpers import fake_answer
from test_dvc_pipeline import _covered, _deps, _modules_used, copy, ran, sh  # noqa: F401  (copy: the fixture)


@pytest.mark.slow
def test_fake_llm_stages_run_before_package_once_then_never_and_an_edit_reruns_package(copy, monkeypatch):
    """The project copy of tests/pipeline/test_dvc_pipeline.py (As You Like It; Rosalind and Orlando), its stories embedded
    and its LLM stages answered by one fake endpoint."""
    stages = sh(copy, "dvc", "stage", "list")
    assert "package@rosalind" in stages and "profile@" not in stages and "emotions@" not in stages
    cfg_path = copy / "configs/pipeline.yaml"
    cfg = yaml.safe_load(cfg_path.read_text())
    assert cfg["profile"]["characters"] == [] and cfg["emotions"]["characters"] == []  # shipped: no LLM stage
    cfg["embed"].update(backend="openai", model="fake-embed")
    cfg["profile"]["characters"] = ["rosalind"]
    cfg["emotions"]["characters"] = ["rosalind"]
    cfg["eval_chat"]["characters"] = []  # eval@ID would rerun after the profile edit below (tested in test_dvc_pipeline)
    cfg_path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    server = FakeLLMServer(answer=fake_answer)
    for k, v in server.env().items():
        monkeypatch.setenv(k, v)
    try:
        first = ran(sh(copy, "dvc", "repro"))
        assert {"profile@rosalind", "emotions@rosalind", "package@rosalind", "package@orlando"} <= first
        asked = len(server.received)
        assert asked == 1 + 11  # one profile, 213 lines in batches of 20
        prompt = (copy / "data/characters/rosalind/system_prompt.txt").read_text(encoding="utf-8")
        assert "## Catchphrases" in prompt  # one repro: the profile was drafted before the package was built
        manifest = json.loads((copy / "data/characters/rosalind/manifest.json").read_text(encoding="utf-8"))
        assert sum(manifest["emotions"].values()) == 213
        assert json.loads((copy / "metrics/llm_emotions_rosalind.json").read_text())["calls"] == 11
        # the profile is a person's file: DVC neither caches nor git-ignores it
        ignored = subprocess.run(["git", "check-ignore", "-q", "configs/profiles/rosalind.md"], cwd=copy)
        assert ignored.returncode == 1

        assert ran(sh(copy, "dvc", "repro")) == set()
        assert len(server.received) == asked

        path = copy / "configs/profiles/rosalind.md"
        path.write_text(path.read_text(encoding="utf-8") + "\nShe speaks in prose, never in verse.\n", encoding="utf-8")
        third = ran(sh(copy, "dvc", "repro"))
        assert third == {"profile@rosalind", "package@rosalind", "package@orlando"}
        assert len(server.received) == asked  # the edited profile is kept: no call
        assert "never in verse" in (copy / "data/characters/rosalind/system_prompt.txt").read_text(encoding="utf-8")
        assert "never in verse" in path.read_text(encoding="utf-8")
    finally:
        server.close()



@pytest.mark.parametrize("stage,imports,command", [
    ("profile", ["pipeline.profile", "extractors.llm_client"], "profile"),
    ("emotions", ["pipeline.emotions", "extractors.llm_client"], "annotate"),
    ("package", ["pipeline.package", "pipeline.profile", "pipeline.emotions"], "corpus"),
])
def test_every_module_an_llm_stage_runs_is_one_of_its_deps(stage, imports, command):
    used = _modules_used(imports, ("extractors", "pipeline"))
    missing = [m for m in used if not _covered(m, _deps(stage))]
    assert not missing, f"{stage} runs {missing} but dvc.yaml does not list it"
    assert f"pipeline/commands/{command}.py" in _deps(stage)

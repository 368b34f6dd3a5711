"""Every JSON-lines output loads with Hugging Face `datasets.load_dataset("json", data_files=...)`.

Built from the committed samples through the real CLI: lines of each source kind (play script,
English and Chinese novels, TV subtitles, wiki pages in English and Chinese), stories, the package's
role file, and the ChatHaruhi export (through a fake OpenAI-compatible embeddings server on localhost).
Each must load with datasets' defaults and also with Arrow's own strict type inference (as datasets
before 5.0 loads, no JSON fallback column), and every field must hold one JSON type across rows
(or null): a field that is a string in one row and a dict in another is a writer's bug.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fake_embeddings import EmbeddingServer

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "data" / "samples"
WIKI = REPO / "tests" / "fixtures" / "wiki"

LINES = {
    "script": ["extract", "script", str(SAMPLES / "asyoulik.txt"), "--format", "play"],
    "novel_en": ["extract", "novel", str(SAMPLES / "alice29.txt"), "--language", "en"],
    "novel_zh": ["extract", "novel", str(SAMPLES / "sanguo_1-15.txt"), "--language", "zh"],
    "tv": ["extract", "tv", str(SAMPLES / "sample.wav"), "--subtitles", str(SAMPLES / "sample_named.srt"), "--language", "en"],
    "wiki_en": ["extract", "wiki", str(WIKI / "fandom_voice_saved.html")],
    "wiki_zh": ["extract", "wiki", str(WIKI / "zh_quotes.txt")],
}
STORIES = {"rosalind": "script", "alice": "novel_en", "liubei": "novel_zh", "diane": "tv"}
OUTPUTS = [f"lines/{k}" for k in LINES] + [f"stories/{k}" for k in STORIES] + ["role/diane", "export/diane"]


def run(root: Path, *args, **env):
    env = dict(os.environ, ROLECORPUS_ROOT=str(root), ROLECORPUS_CACHE=str(root / ".cache"), **env)
    p = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=root, env=env, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, (args, p.stderr)
    return p


pytestmark = pytest.mark.slow  # the module fixture builds every output (~30 s)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("formats")
    (root / "configs" / "characters").mkdir(parents=True)
    (root / "configs" / "pipeline.yaml").write_text((REPO / "configs" / "pipeline.yaml").read_text(encoding="utf-8"))
    for f in (REPO / "configs" / "characters").glob("*.yaml"):
        (root / "configs" / "characters" / f.name).write_bytes(f.read_bytes())
    out = {}
    for work, args in LINES.items():
        out[f"lines/{work}"] = root / "data" / "lines" / f"{work}.jsonl"
        run(root, *args, "--work", work, "-o", str(out[f"lines/{work}"]))
    for cid, work in STORIES.items():
        run(root, "segment", "--character", cid, str(out[f"lines/{work}"]))
        out[f"stories/{cid}"] = root / "data" / "stories" / f"{cid}.jsonl"
    run(root, "embed", "diane")
    run(root, "package", "diane")
    out["role/diane"] = root / "data" / "characters" / "diane" / "diane.jsonl"
    with EmbeddingServer(dim=1536) as server:
        out["export/diane"] = root / "diane.luotuo_openai.jsonl"
        run(root, "export", "chatharuhi", "diane", "-o", str(out["export/diane"]),
            OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-fake")
    return out


def _json_type(v) -> str:
    return {bool: "bool", int: "number", float: "number", str: "string", list: "list", dict: "object"}[type(v)]


def field_types(rows: list[dict]) -> dict[str, set[str]]:
    """Every field path (`extra.spans[]`) and the JSON types it holds across rows, nulls left out."""
    types: dict[str, set[str]] = {}
    todo = [(k, v) for row in rows for k, v in row.items()]
    while todo:
        path, v = todo.pop()
        if v is None:
            continue
        types.setdefault(path, set()).add(_json_type(v))
        if isinstance(v, dict):
            todo += [(f"{path}.{k}", x) for k, x in v.items()]
        elif isinstance(v, list):
            todo += [(f"{path}[]", x) for x in v]
    return types


def _has_json_feature(feature) -> bool:
    import datasets

    if isinstance(feature, datasets.Json):
        return True
    if isinstance(feature, dict):
        return any(_has_json_feature(f) for f in feature.values())
    inner = getattr(feature, "feature", None)
    return inner is not None and _has_json_feature(inner)


@pytest.mark.parametrize("name", OUTPUTS)
def test_output_loads_with_datasets(outputs, name, tmp_path):
    import datasets

    datasets.disable_progress_bars()
    path = outputs[name]
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    mixed = {k: t for k, t in field_types(rows).items() if len(t) > 1}
    assert not mixed, f"{path.name}: fields with more than one JSON type: {mixed}"

    ds = datasets.load_dataset("json", data_files=str(path), split="train", cache_dir=str(tmp_path / "a"))
    assert ds.num_rows == len(rows) and ds["text"] == [r["text"] for r in rows]
    strict = datasets.load_dataset("json", data_files=str(path), split="train", cache_dir=str(tmp_path / "b"),
                                   on_mixed_types=None)
    assert not _has_json_feature(strict.features), strict.features
    assert strict.num_rows == len(rows) and strict["text"] == ds["text"]
    for key in rows[0]:
        if key != "extra":
            assert strict[key] == [r.get(key) for r in rows], key

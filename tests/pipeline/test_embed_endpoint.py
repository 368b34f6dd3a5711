"""Embedding through an OpenAI-compatible /v1/embeddings endpoint: a real HTTP server on localhost.

The server embeds with a deterministic bag of hashed words, so retrieval is meaningful; the test
checks the package names the model, a rerun makes zero requests (vector cache), and the API key
appears in no output.
"""

from __future__ import annotations

import json

import pytest
import yaml

from fake_embeddings import EmbeddingServer
from test_cli_spine import REPO, run

DIM = 64
SECRET = "sk-test-do-not-leak-1234"


@pytest.fixture()
def project(tmp_path, monkeypatch):
    (tmp_path / "configs").mkdir()
    cfg = yaml.safe_load((REPO / "configs/pipeline.yaml").read_text())
    cfg["embed"].update({"backend": "openai", "model": "fake-embed"})
    (tmp_path / "configs/pipeline.yaml").write_text(yaml.safe_dump(cfg))
    run(tmp_path, "add-character", "rosalind", "--name", "Rosalind", "--series", "As You Like It", "--alias", "ROSALIND")
    run(tmp_path, "extract", "script", str(REPO / "data/samples/asyoulik.txt"), "--work", "asyoulik", "-o", str(tmp_path / "l.jsonl"))
    run(tmp_path, "segment", "--character", "rosalind", str(tmp_path / "l.jsonl"))
    return tmp_path


def test_fake_embeddings_endpoint_is_used_cached_and_keeps_the_key_secret(project, monkeypatch):
    with EmbeddingServer(DIM) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        run(project, "embed", "rosalind")
        first = srv.requests
        assert first >= 1
        again = run(project, "embed", "rosalind")
        assert srv.requests == first and "new 0" in again.stdout
        run(project, "package", "rosalind")
        row = json.loads((project / "data/characters/rosalind/rosalind.jsonl").read_text().splitlines()[1])
        assert row == {"text": row["text"], "openai_fake_embed": "config"}
        assert json.loads(row["text"])["embedding"]["dim"] == DIM
        monkeypatch.delenv("OPENAI_API_KEY")  # ask must not need the chat model: retrieval only
        ans = run(project, "ask", "rosalind", "Then love me, Rosalind.", "--as", "Orlando", "--no-llm")
        assert "Rosalind:「" in ans.stdout
    leaked = [p for p in project.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert leaked == []

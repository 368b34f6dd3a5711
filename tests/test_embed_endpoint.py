"""Embedding through an OpenAI-compatible /v1/embeddings endpoint: a real HTTP server on localhost.

The server embeds with a deterministic bag of hashed words, so retrieval is meaningful; the test
checks the package names the model, a rerun makes zero requests (vector cache), and the API key
appears in no output.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
import yaml

from test_cli_spine import REPO, run

DIM = 64
SECRET = "sk-test-do-not-leak-1234"


def bag_of_words(text: str) -> list[float]:
    v = np.zeros(DIM)
    for w in re.findall(r"\w+", text.lower()):
        v[int(hashlib.md5(w.encode()).hexdigest(), 16) % DIM] += 1
    return (v / max(np.linalg.norm(v), 1e-9)).tolist()


class EmbeddingServer:
    def __init__(self):
        self.requests = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                assert self.path.endswith("/embeddings"), self.path
                outer.requests += 1
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [{"object": "embedding", "index": i, "embedding": bag_of_words(t)} for i, t in enumerate(inputs)]
                out = json.dumps({"object": "list", "data": data, "model": body["model"],
                                  "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


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


def test_embeddings_endpoint_is_used_cached_and_keeps_the_key_secret(project, monkeypatch):
    with EmbeddingServer() as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{srv.httpd.server_port}/v1")
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

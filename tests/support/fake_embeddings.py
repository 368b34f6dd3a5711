"""A fake OpenAI-compatible /v1/embeddings server on localhost, and a tiny random BERT in BGE's shape.

The server embeds with a deterministic bag of hashed words (any width), so retrieval is meaningful
and can be predicted in the test; it records the model names it was asked for and counts requests.
The tiny BERT has bge-small's width and CLS pooling path but random weights: enough to run the
real loading and encoding code of rolecorpus and of ChatHaruhi without downloading anything.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np


def bag_of_words(text: str, dim: int) -> list[float]:
    v = np.zeros(dim)
    for w in re.findall(r"\w+", text.lower()):
        v[int(hashlib.md5(w.encode()).hexdigest(), 16) % dim] += 1
    return (v / max(np.linalg.norm(v), 1e-9)).tolist()


class EmbeddingServer:
    def __init__(self, dim: int):
        self.dim, self.requests, self.models = dim, 0, set()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                assert self.path.endswith("/embeddings"), self.path
                outer.requests += 1
                outer.models.add(body["model"])
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [{"object": "embedding", "index": i, "embedding": bag_of_words(t, outer.dim)}
                        for i, t in enumerate(inputs)]
                out = json.dumps({"object": "list", "data": data, "model": body["model"],
                                  "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def tiny_bert(folder: Path, hidden: int) -> Path:
    """Save a one-layer random BERT of width `hidden` with a character-level WordPiece vocabulary."""
    from extractors.tv.ecapa import make_speechbrain_importable

    make_speechbrain_importable()
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    chars = list(string.ascii_lowercase + string.digits + string.punctuation + "「」旁白")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars, *("##" + c for c in chars)]
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=hidden, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=512)
    BertModel(config).save_pretrained(folder)
    BertTokenizer(vocab={w: i for i, w in enumerate(vocab)}).save_pretrained(folder)
    return folder

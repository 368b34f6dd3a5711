"""The one on-disk cache (`extractors.cache`) and its three users: LLM answers, ASR transcripts, story vectors."""

from __future__ import annotations

import json

import numpy as np

from extractors.cache import ContentCache, content_key
from extractors.novel.llm.cache import AnswerCache, cache_key
from pipeline.embedders import CachedEmbedder, VectorCache


def test_content_key_is_length_prefixed_and_stable():
    assert content_key("ab", "c") != content_key("a", "bc")
    assert content_key("x", b"y") == content_key("x", "y")
    assert len(content_key("m", "p", "c")) == 64
    assert cache_key("m", "p", "c") == content_key("m", "p", "c")


def test_entry_is_on_disk_when_put_returns_and_a_damaged_one_is_a_miss(tmp_path):
    cache = ContentCache(tmp_path / "c")
    key = content_key("model", "prompt")
    assert cache.get(key) is None and cache.misses == 1
    cache.put(key, {"raw": "答え", "n": 1})
    path = tmp_path / "c" / key[:2] / f"{key}.json"
    assert json.loads(path.read_text(encoding="utf-8")) == {"raw": "答え", "n": 1}
    assert not [p for p in (tmp_path / "c").rglob("*") if p.is_file() and p != path]  # no temp file left behind
    fresh = ContentCache(tmp_path / "c")  # a rerun (new process) finds it
    assert fresh.get(key) == {"raw": "答え", "n": 1} and fresh.hits == 1
    assert fresh.get(key, lambda d: d.get("n") == 2) is None  # an entry that fails the check is a miss
    path.write_text('{"raw": "half', encoding="utf-8")  # damaged: treated as missing
    assert fresh.get(key) is None
    fresh.put(key, {"raw": "again"})
    assert fresh.get(key) == {"raw": "again"}


def test_flat_layout_for_asr(tmp_path):
    cache = ContentCache(tmp_path / "asr", shard=False)
    cache.put("abc123", {"segments": []})
    assert [p.name for p in (tmp_path / "asr").glob("*.json")] == ["abc123.json"]


def test_answer_cache_entry_holds_the_answer_and_usage_only(tmp_path):
    cache = AnswerCache(tmp_path / "llm")
    key = cache_key("gpt-x", "prompt", "chunk")
    cache.put(key, model="gpt-x", raw="<json>{}</json>", tokens_in=3, tokens_out=2, usage_reported=True)
    entry = AnswerCache(tmp_path / "llm").get(key)
    assert set(entry) == {"key", "model", "raw", "tokens_in", "tokens_out", "usage_reported", "created"}
    assert entry["raw"] == "<json>{}</json>" and entry["tokens_in"] == 3


class _Counting:
    name, dim, normalized = "toy", 3, True

    def __init__(self):
        self.seen = []

    def encode(self, texts):
        self.seen += list(texts)
        return np.array([[len(t), 1.0 / 3, -0.1] for t in texts], dtype=np.float32)


def test_vector_cache_round_trips_float32_bits_and_keeps_models_apart(tmp_path):
    inner = _Counting()
    emb = CachedEmbedder(inner, VectorCache(tmp_path / "vectors.sqlite"), batch=2)
    first = emb.encode(["a", "bb", "a", "ccc"])
    assert inner.seen == ["a", "bb", "ccc"]  # each distinct text once
    assert (tmp_path / "vectors").is_dir() and not (tmp_path / "vectors.sqlite").exists()
    again_inner = _Counting()
    cache = VectorCache(tmp_path / "vectors.sqlite")
    again = CachedEmbedder(again_inner, cache).encode(["ccc", "a"])
    assert again_inner.seen == [] and cache.hits == 2 and cache.misses == 0
    assert again.tobytes() == first[[3, 0]].tobytes()
    assert VectorCache(tmp_path / "vectors").get_many("other-model", [content_key("a")]) == {}

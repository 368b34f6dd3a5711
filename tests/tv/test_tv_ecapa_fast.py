"""The fast ECAPA engines (extractors/tv/ecapa_fast.py) against speechbrain's own forward, on real audio.

Every labelled line of the bundled telephone call (data/samples/sample.wav, as speaker ID cuts them) and its
3 s windows are embedded by the `torch` engine (speechbrain) and by `fp32`, `int8`, `int8-tdnn` and `int8-all`
(FastEcapa on the same loaded weights); the embeddings must agree (cosine floors just under what was measured:
fp32 1.000000, int8 min 0.9994 / mean 0.9997, int8-tdnn min 0.9971 / mean 0.9981, int8-all min 0.990 / mean
0.994) and identify the same speakers. The default engine also caps long lines (`+max3s`: their central 3 s):
lines up to the cap embed exactly as without it, longer ones as their central 3 s, and its model id says so.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from extractors.errors import InputError
from extractors.tv import ecapa
from extractors.tv import speaker_id as sid
from extractors.tv.audio import SAMPLE_RATE, decode_audio
from extractors.tv.ecapa_fast import FastEcapa, Unsupported
from extractors.tv.labels import read_labels

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def engines():
    torch.set_num_threads(1)
    enc = ecapa.load_encoder(threads=1, engine="torch")
    assert enc.engine == "torch" and enc.fast is None
    return {"torch": enc, **{p: ecapa.with_engine(enc, p) for p in ("fp32", "int8", "int8-tdnn", "int8-all",
                                                                   ecapa.DEFAULT_ENGINE)}}


@pytest.fixture(scope="module")
def call(samples):
    labels = read_labels(samples / "sample_labels.csv")
    audio = decode_audio(samples / "sample.wav")
    st = sid.DEFAULTS
    lines = [sid.span_audio(audio, lab.start, lab.end, pad=st["pad"], window=st["window"]) for lab in labels]
    wins = [audio[i: i + 3 * SAMPLE_RATE] for i in range(0, len(audio) - 3 * SAMPLE_RATE + 1, 3 * SAMPLE_RATE)]
    return [lab.character for lab in labels], lines, wins


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1)  # rows are L2-normalised


def test_fast_engines_match_speechbrain_on_the_telephone_call(engines, call):
    _, lines, wins = call
    segs = lines + wins
    assert len(segs) == 23
    E = {name: enc.embed(segs) for name, enc in engines.items()}
    fp32, int8, tdnn, int8_all = (_cos(E[name], E["torch"]) for name in ("fp32", "int8", "int8-tdnn", "int8-all"))
    print(f"cosine to torch over {len(segs)} segments: fp32 min {fp32.min():.6f}; int8 min {int8.min():.5f} "
          f"mean {int8.mean():.5f}; int8-tdnn min {tdnn.min():.5f} mean {tdnn.mean():.5f}; "
          f"int8-all min {int8_all.min():.4f} mean {int8_all.mean():.4f}")
    assert fp32.min() > 0.99999
    assert int8.min() > 0.999 and int8.mean() > 0.9995
    assert tdnn.min() > 0.995 and tdnn.mean() > 0.997
    assert int8_all.min() > 0.985 and int8_all.mean() > 0.99
    assert np.allclose(np.linalg.norm(E["int8"], axis=1), 1.0, atol=1e-5)
    assert np.array_equal(engines["int8"].embed(segs[:3]), E["int8"][:3])  # deterministic, order-free


def test_int8_identifies_the_telephone_voices_like_torch(engines, call):
    """All 280 ways to enrol two lines per speaker: every int8 engine's verdicts (the capped default's too) are
    torch's, line for line."""
    names, lines, _ = call
    fast = ("int8", "int8-tdnn", "int8-all", ecapa.DEFAULT_ENGINE)
    E = {name: engines[name].embed(lines) for name in ("torch", *fast)}
    by = {c: [i for i, n in enumerate(names) if n == c] for c in sorted(set(names))}
    assert sorted(len(v) for v in by.values()) == [5, 8]
    differ = 0
    for tr in itertools.product(*(itertools.combinations(v, 2) for v in by.values())):
        tr = [i for pair in tr for i in pair]
        te = [i for i in range(len(names)) if i not in tr]
        got = {}
        for name, X in E.items():
            m = sid.fit([names[i] for i in tr], X[tr], [names[i] for i in tr], encoder_id=name)
            got[name] = [v.speaker for _, v in sorted(sid.identify(m, X[te]).items())]
        differ += sum(a != b for name in fast for a, b in zip(got["torch"], got[name]))
    assert differ == 0


def test_engine_choice_and_fallback(engines, monkeypatch):
    monkeypatch.setenv(ecapa.ENGINE_ENV, "fp32")
    assert ecapa.pick_engine() == "fp32" and ecapa.pick_engine("torch") == "torch"
    monkeypatch.setenv(ecapa.ENGINE_ENV, "fp16")
    with pytest.raises(InputError, match="engine must be one of int8, int8-tdnn, int8-all, fp32, torch"):
        ecapa.pick_engine()
    assert ecapa.split_engine(ecapa.pick_engine("int8-tdnn+max2.5s")) == ("int8-tdnn", 2.5)
    for bad in ("int8+max0.1s", "int8+3s", "fast+max3s"):
        with pytest.raises(InputError, match="optionally followed by \\+maxNs"):
            ecapa.pick_engine(bad)
    clf = engines["torch"].classifier
    assert ecapa._fast_network(clf, "int8", "cpu").precision == "int8"
    assert ecapa._fast_network(clf, "torch", "cpu") is None
    assert ecapa._fast_network(clf, "int8", "cuda") is None  # CUDA keeps speechbrain's forward
    with pytest.raises(Unsupported, match="expected speechbrain's ECAPA_TDNN"):
        FastEcapa(torch.nn.Linear(80, 192))


def test_int8_model_id_is_marked(engines):
    enc = ecapa.load_encoder(threads=1)  # the default engine
    assert enc.engine == ecapa.DEFAULT_ENGINE == "int8-tdnn+max3s"
    assert enc.model_id == engines["torch"].model_id + "+int8-tdnn+max3s"
    assert engines["int8"].model_id == engines["torch"].model_id + "+int8"
    assert engines["int8-all"].model_id == engines["torch"].model_id + "+int8-all"
    assert engines["fp32"].model_id == engines["torch"].model_id
    assert ecapa.with_engine(enc, "torch").model_id == engines["torch"].model_id


def test_encoder_folder_of_other_weights_runs_the_fast_path(engines, call, tmp_path):
    """`--encoder DIR` (a speechbrain folder): an ECAPA of the known shape gets the int8 engine too."""
    src = ecapa.weights_dir()
    folder = tmp_path / "my-ecapa"
    folder.mkdir()
    for f in ecapa._WEIGHT_FILES:
        (folder / f).symlink_to(src / f)
    enc = ecapa.load_encoder(threads=1, weights=folder)
    assert enc.engine == ecapa.DEFAULT_ENGINE and enc.model_id.startswith("speechbrain:my-ecapa#")
    assert enc.model_id.endswith("+" + ecapa.DEFAULT_ENGINE)
    _, lines, _ = call
    assert np.array_equal(enc.embed(lines[:4]), engines[ecapa.DEFAULT_ENGINE].embed(lines[:4]))


def test_central_cut_keeps_the_middle_of_the_line_and_never_empties():
    seg = np.arange(5 * SAMPLE_RATE, dtype=np.float32)
    cut = ecapa.central(seg, 3.0)
    assert len(cut) == 3 * SAMPLE_RATE and cut[0] == SAMPLE_RATE and cut[-1] == 4 * SAMPLE_RATE - 1
    assert ecapa.central(seg, None) is seg
    assert len(ecapa.central(seg[:100], 0.5)) == 100  # shorter than the cap: all of it, never emptied
    assert len(ecapa.central(seg[: 3 * SAMPLE_RATE + 1], 3.0)) == 3 * SAMPLE_RATE


def test_capped_default_engine_on_the_telephone_call(engines, call, samples):
    """Lines up to 3 s embed bit for bit as with the uncapped network; the long ones (3.5 s, 4.6 s as cut)
    as their central 3 s, still the same voice (cosine to the whole line >= 0.9); the id marks the cap, so a
    speaker model trained with today's default is refused with 'retrain it'."""
    _, lines, _ = call
    capped, whole = engines[ecapa.DEFAULT_ENGINE], engines["int8-tdnn"]
    assert capped.max_seconds == 3.0 and capped.fast.precision == "int8-tdnn"
    long = [i for i, x in enumerate(lines) if len(x) > 3 * SAMPLE_RATE]
    assert len(long) == 2
    short = [i for i in range(len(lines)) if i not in long]
    A, B = capped.embed(lines), whole.embed(lines)
    assert np.array_equal(A[short], B[short])
    assert np.array_equal(A[long], whole.embed([ecapa.central(lines[i], 3.0) for i in long]))
    cos = _cos(A[long], B[long])
    print(f"long lines, central 3 s vs whole line: cosine {np.round(cos, 4).tolist()}")
    assert cos.min() > 0.9 and cos.max() < 0.9999  # the cap really changed them, and kept the voice
    old = sid.fit(["diane", "sheila"], engines["int8"].embed(lines[:2]), ["diane", "sheila"],
                  encoder_id=engines["int8"].model_id)
    with pytest.raises(InputError, match="retrain it"):
        sid.label_lines([], decode_audio(samples / "sample.wav"), samples / "voice", encoder=capped, model=old)

"""Speaker identification by voice: real telephone recording and synthetic espeak-ng episodes."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from extractors.characters import AliasResolver, Character
from extractors.errors import InputError
from extractors.records import Line
from extractors.tv import speaker_id as sid
from extractors.tv.audio import decode_audio
from extractors.tv.labels import read_labels

from speakers_synth import have_tools, make_episode, shared_encoder

pytestmark = pytest.mark.slow
SAMPLE_CHARS = AliasResolver([Character("diane", "Diane", "sample"), Character("sheila", "Sheila", "sample")])
VOICE_CHARS = AliasResolver([Character(c, c.capitalize(), "synthetic") for c in ("amy", "beth", "carl")])


@pytest.fixture(scope="session")
def encoder():
    return shared_encoder()


@pytest.fixture(scope="session")
def sample(samples, encoder):
    labels = read_labels(samples / "sample_labels.csv", SAMPLE_CHARS)
    audio = decode_audio(samples / "sample.wav")
    E = sid.embed_spans(encoder, audio, [(lab.start, lab.end) for lab in labels], sid.DEFAULTS)
    return labels, audio, E


@pytest.fixture(scope="session")
def episodes(tmp_path_factory):
    if not have_tools():
        pytest.fail("espeak-ng and ffmpeg are needed (apt-get install espeak-ng ffmpeg)")
    d = tmp_path_factory.mktemp("episodes")
    return [make_episode(d, lines_per_voice=8, seed=s, name=f"ep{s}") for s in (0, 1)]


def split(labels, n_train):
    train, test, seen = [], [], {}
    for lab in labels:
        seen[lab.character] = seen.get(lab.character, 0) + 1
        (train if seen[lab.character] <= n_train else test).append(lab)
    return train, test


def test_sample_labels_cover_the_transcript(samples):
    labels = read_labels(samples / "sample_labels.csv", SAMPLE_CHARS)
    stm = [ln.split(None, 5) for ln in (samples / "sample.stm").read_text().splitlines() if ln.strip()]
    assert len(labels) == len(stm) == 13
    assert [lab.character for lab in labels] == [r[2].lower() for r in stm]
    assert all(lab.media == (samples / "sample.wav").resolve() for lab in labels)


def test_sample_two_lines_per_speaker(sample, encoder):
    """Train on the first two lines of each speaker (the shortest: 'Hello?', 'Oh, hello.'), identify the rest."""
    labels, audio, _ = sample
    train, test = split(labels, 2)
    model = sid.train_from_labels(train, lambda m: audio, encoder)
    res = sid.evaluate(model, test, lambda m: audio, encoder)
    print(f"sample: accuracy {res['accuracy']:.3f} coverage {res['coverage']:.3f} on {res['n']} lines")
    assert res["n"] == 9
    assert res["accuracy"] >= 0.9
    assert res["matrix"].sum() == 9


def test_sample_every_choice_of_two_training_lines(sample):
    """All 280 ways to pick two labelled lines per speaker: every one identifies the rest at >= 0.9."""
    labels, _, E = sample
    names = [lab.character for lab in labels]
    by = {c: [i for i, n in enumerate(names) if n == c] for c in ("diane", "sheila")}
    accs = []
    for tr in itertools.product(itertools.combinations(by["diane"], 2), itertools.combinations(by["sheila"], 2)):
        tr = [*tr[0], *tr[1]]
        te = [i for i in range(len(names)) if i not in tr]
        m = sid.fit([names[i] for i in tr], E[tr], [names[i] for i in tr], encoder_id="x")
        v = sid.identify(m, E[te])
        accs.append(np.mean([v[j].speaker == names[i] for j, i in enumerate(te)]))
    print(f"sample, 280 splits: mean accuracy {np.mean(accs):.3f}, worst {np.min(accs):.3f}")
    assert len(accs) == 280  # C(8,2) x C(5,2)
    assert min(accs) >= 0.9


def test_episode_adaptation_is_what_makes_short_telephone_lines_work(sample):
    """Without the episode adaptation (plain centroids) some splits fall below 0.9: the feature is real."""
    labels, _, E = sample
    names = [lab.character for lab in labels]
    by = {c: [i for i, n in enumerate(names) if n == c] for c in ("diane", "sheila")}
    worst = 1.0
    for tr in itertools.product(itertools.combinations(by["diane"], 2), itertools.combinations(by["sheila"], 2)):
        tr = [*tr[0], *tr[1]]
        te = [i for i in range(len(names)) if i not in tr]
        m = sid.fit([names[i] for i in tr], E[tr], [names[i] for i in tr], encoder_id="x")
        v = sid.identify(m, E[te], propagate=False, znorm=False)
        worst = min(worst, np.mean([v[j].speaker == names[i] for j, i in enumerate(te)]))
    assert worst < 0.9


def test_synthetic_three_voices(episodes, encoder):
    wav, labels_csv, _ = episodes[0]
    labels = read_labels(labels_csv, VOICE_CHARS)
    assert {lab.character for lab in labels} == {"amy", "beth", "carl"}
    audio = decode_audio(wav)
    train, test = split(labels, 3)
    model = sid.train_from_labels(train, lambda m: audio, encoder)
    res = sid.evaluate(model, test, lambda m: audio, encoder)
    print(f"synthetic: accuracy {res['accuracy']:.3f} coverage {res['coverage']:.3f} on {res['n']} lines")
    assert res["n"] == 15
    assert res["accuracy"] >= 0.95


def test_synthetic_trained_on_one_episode_identifies_another(episodes, encoder):
    (wav0, lab0, _), (wav1, lab1, _) = episodes
    train, _ = split(read_labels(lab0, VOICE_CHARS), 3)
    test = read_labels(lab1, VOICE_CHARS)
    audio = {Path(wav0).resolve(): decode_audio(wav0), Path(wav1).resolve(): decode_audio(wav1)}
    model = sid.train_from_labels(train, audio.__getitem__, encoder)
    res = sid.evaluate(model, test, audio.__getitem__, encoder)
    print(f"synthetic, other episode: accuracy {res['accuracy']:.3f} precision {res['precision']:.3f} on {res['n']} lines")
    # no line gets another voice's name; how many borderline lines stay `unknown` depends on the CPU's int8 and
    # fp32 kernels: 24/24 right on an AVX2 machine, 21/24 (3 of amy's lines unknown) on an AVX-512 one
    assert res["precision"] == 1.0 and res["false_accepts"] == 0
    assert res["accuracy"] >= 0.85


def test_label_lines_contract(episodes, encoder, tmp_path):
    wav, labels_csv, rows = episodes[0]
    labels = read_labels(labels_csv, VOICE_CHARS)
    audio = decode_audio(wav)
    train, _ = split(labels, 3)
    model_dir = tmp_path / "model"
    sid.train_from_labels(train, lambda m: audio, encoder).save(model_dir)
    lines = [Line(work="synth", source=str(wav), unit="ep0", index=i, kind="dialogue", text=lab.text,
                  start=lab.start, end=lab.end) for i, lab in enumerate(labels)]
    # a line too short to embed; one whose speaker the subtitles already gave
    lines[5].end = lines[5].start + 0.2
    lines[6].speaker, lines[6].evidence, lines[6].confidence = labels[6].character, "subtitle", 1.0
    out = sid.label_lines(lines, audio, model_dir, encoder=encoder)
    assert len(out) == len(lines) and lines[0].speaker is None  # inputs untouched
    assert out[5].speaker is None and out[5].extra["voice"]["status"] == "too-short"
    assert out[6].speaker == labels[6].character and out[6].evidence == "subtitle"
    assert out[6].extra["voice"]["status"] == "given" and out[6].extra["voice"]["agrees"] is True
    judged = [(o, lab) for i, (o, lab) in enumerate(zip(out, labels)) if i not in (5, 6)]
    for o, _ in judged:
        v = o.extra["voice"]
        assert v["status"] in ("confident", "maybe", "unknown")
        assert len(v["guesses"]) == 2 and v["guesses"][0]["score"] >= -1
        if v["status"] in ("unknown", "maybe"):  # a maybe's guess stays in extra.voice, for review
            assert o.speaker is None and o.evidence is None
        else:
            assert o.evidence == "voice" and 0 <= o.confidence <= 1
        if v["status"] == "maybe":
            assert o.confidence < 0.7
        if v["status"] == "confident":
            assert o.confidence >= 0.7
    guessed = [o.speaker or (o.extra["voice"]["guesses"][0]["character"] if o.extra["voice"]["status"] == "maybe"
                             else None) for o, _ in judged]
    acc = np.mean([g == lab.character for g, (_, lab) in zip(guessed, judged)])
    assert acc >= 0.95
    assert all(o.speaker == lab.character for o, lab in judged if o.speaker)
    # a stricter accept threshold turns confident lines into maybe, never changes who is guessed;
    # keep_maybe gives each maybe line its guess as speaker
    strict = sid.label_lines(lines, audio, model_dir, encoder=encoder, accept=0.99, keep_maybe=True)
    assert not any(o.extra["voice"]["status"] == "confident" for o in strict)
    assert [o.speaker for i, o in enumerate(strict) if i not in (5, 6)] == guessed


def test_model_files_are_plain_npz_and_json(episodes, encoder, tmp_path):
    wav, labels_csv, _ = episodes[0]
    audio = decode_audio(wav)
    train, _ = split(read_labels(labels_csv, VOICE_CHARS), 3)
    model = sid.train_from_labels(train, lambda m: audio, encoder)
    d = model.save(tmp_path / "m")
    assert sorted(p.name for p in d.iterdir()) == ["model.json", "model.npz"]
    meta = json.loads((d / "model.json").read_text())
    assert meta["dim"] == 192 and sorted(meta["characters"]) == ["amy", "beth", "carl"]
    assert meta["training_counts"] == {c: 3 for c in meta["characters"]}
    assert meta["encoder"].startswith("speechbrain/spkrec-ecapa-voxceleb")
    assert {"accept", "maybe", "margin"} <= set(meta["thresholds"]) and meta["settings"]["min_duration"] > 0
    with np.load(d / "model.npz", allow_pickle=False) as z:
        assert z["centroids"].shape == (3, 192) and z["exemplars"].shape == (9, 192)
    again = sid.SpeakerModel.load(d)
    assert np.allclose(again.centroids, model.centroids) and again.characters == model.characters


def test_damaged_model_is_refused(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    with pytest.raises(InputError, match="not a speaker model"):
        sid.SpeakerModel.load(d)
    (d / "model.json").write_text(json.dumps({"format": sid.FORMAT, "characters": ["a"], "dim": 192,
                                              "encoder": "x", "thresholds": {}}))
    (d / "model.npz").write_bytes(b"not a zip")
    with pytest.raises(InputError, match="model.npz is damaged"):
        sid.SpeakerModel.load(d)


def test_embeddings_are_192d_unit_and_deterministic(encoder, sample):
    _, audio, E = sample
    assert E.shape == (13, 192)
    assert np.allclose(np.linalg.norm(E, axis=1), 1, atol=1e-5)
    again = encoder.embed([audio[16000 * 14: 16000 * 17]])
    assert np.allclose(again, encoder.embed([audio[16000 * 14: 16000 * 17]]))

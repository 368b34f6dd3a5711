"""The voice model of speaker ID: one centroid per character plus every exemplar, fitted from labelled
embeddings (`fit`, thresholds optionally calibrated on leave-one-out training scores) and stored
without pickle as `model.npz` (float32 arrays) + `model.json` (`SpeakerModel.save` / `load`).
Identification with it: `speaker_id.py`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ..atomic import atomic_dir
from ..errors import InputError

FORMAT = "rolecorpus-speakers/1"

# Defaults; configs/pipeline.yaml section `speakers:` overrides them (the CLI passes them in).
DEFAULTS = {
    "accept": 0.45,        # cosine to the best centroid for a confident label
    "maybe": 0.25,         # cosine for a 'maybe' verdict (a guess for review; speaker null unless keep_maybe)
    "margin": 0.05,        # best minus second-best cosine needed for a confident label
    "min_duration": 0.3,   # seconds; shorter lines are not embedded ('too-short')
    "window": 1.0,         # seconds; shorter lines are embedded with context up to this length
    "pad": 0.1,            # seconds of context added on each side of a line
    "propagate": True,     # adapt centroids to the episode (transductive self-training)
    "znorm": True,         # rank characters by scores standardised over the episode's lines
    "calibrate": True,     # with >= 5 lines per character, set accept from the training scores
    "open_set": True,      # a line must also beat its cohort-normalised threshold (else unknown)
    "snorm_accept": -0.13,  # cohort-normalised score for a confident label (tuned on synthetic voices; was -0.10
                            # while `maybe` lines kept their guess: benchmarks/tv_openset.py)
    "snorm_maybe": -0.15,   # cohort-normalised score for a 'maybe' label; below it the voice is nobody enrolled
    "cohort_top": 5,       # adaptive s-norm: the N most similar cohort lines give the normalising means
    "group_link": 0.2,     # centred cosine that links two low-scoring lines into a voice of their own
    "group_size": 3,       # low-scoring lines that make a voice nobody enrolled (a lone one stays `maybe`)
    "keep_maybe": False,   # a `maybe` line keeps its guess as speaker (else speaker null, the guess in extra.voice)
}
THRESHOLDS = ("accept", "maybe", "margin", "snorm_accept", "snorm_maybe")
CALIBRATE_MIN_LINES = 5


@dataclass
class SpeakerModel:
    characters: list[str]
    centroids: np.ndarray           # (k, dim), L2-normalised
    exemplars: np.ndarray           # (n, dim), L2-normalised
    exemplar_labels: np.ndarray     # (n,), index into characters
    encoder_id: str
    thresholds: dict                # accept, maybe, margin
    settings: dict                  # min_duration, window, pad, propagate
    counts: dict = field(default_factory=dict)     # character -> labelled lines
    seconds: dict = field(default_factory=dict)    # character -> labelled seconds
    calibration: dict = field(default_factory=dict)

    @property
    def dim(self) -> int:
        return int(self.centroids.shape[1])

    def save(self, model_dir: str | Path) -> Path:
        """Write model.npz + model.json into a fresh directory, atomically."""
        meta = {
            "format": FORMAT,
            "encoder": self.encoder_id,
            "dim": self.dim,
            "characters": self.characters,
            "thresholds": self.thresholds,
            "settings": self.settings,
            "training_counts": self.counts,
            "training_seconds": self.seconds,
            "calibration": self.calibration,
        }
        with atomic_dir(model_dir) as tmp:
            with open(tmp / "model.npz", "wb") as fh:
                np.savez(fh, centroids=self.centroids.astype(np.float32), exemplars=self.exemplars.astype(np.float32),
                         exemplar_labels=self.exemplar_labels.astype(np.int32))
            (tmp / "model.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return Path(model_dir)

    @classmethod
    def load(cls, model_dir: str | Path) -> "SpeakerModel":
        d = Path(model_dir)
        mj, mz = d / "model.json", d / "model.npz"
        if not mj.is_file() or not mz.is_file():
            raise InputError("not a speaker model (needs model.json and model.npz; train one with "
                             "`rolecorpus speakers train`)", d)
        try:
            meta = json.loads(mj.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise InputError(f"model.json is not valid JSON ({e.__class__.__name__})", mj) from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise InputError(f"model.json is not a {FORMAT} model", mj)
        try:
            with np.load(mz, allow_pickle=False) as z:
                cent, ex, lab = z["centroids"], z["exemplars"], z["exemplar_labels"]
        except Exception as e:  # zipfile/ValueError/KeyError: a damaged or foreign file
            raise InputError(f"model.npz is damaged ({e.__class__.__name__})", mz) from None
        chars = meta.get("characters") or []
        if cent.shape != (len(chars), meta.get("dim")) or ex.shape[0] != lab.shape[0] or (
                lab.size and (lab.min() < 0 or lab.max() >= len(chars))):
            raise InputError("model.npz does not match model.json (characters/dimensions)", mz)
        th = {**{k: DEFAULTS[k] for k in THRESHOLDS}, **dict(meta["thresholds"])}  # older models: the defaults
        return cls(list(chars), cent.astype(np.float32), ex.astype(np.float32), lab.astype(np.int64),
                   meta["encoder"], th, dict(meta.get("settings") or {}),
                   dict(meta.get("training_counts") or {}), dict(meta.get("training_seconds") or {}),
                   dict(meta.get("calibration") or {}))


def _unit(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(n, 1e-9)


def fit(characters: Sequence[str], embeddings: np.ndarray, labels: Sequence[str], *, encoder_id: str,
        settings: dict | None = None, durations: Sequence[float] | None = None) -> SpeakerModel:
    """Build a model from labelled embeddings; thresholds from settings, optionally calibrated."""
    st = {**DEFAULTS, **(settings or {})}
    chars = list(dict.fromkeys(characters))
    idx = {c: i for i, c in enumerate(chars)}
    lab = np.array([idx[c] for c in labels], dtype=np.int64)
    E = _unit(np.asarray(embeddings, dtype=np.float32))
    missing = [c for c in chars if not np.any(lab == idx[c])]
    if missing:
        raise InputError(f"no labelled lines for {', '.join(missing)}")
    cent = _unit(np.stack([E[lab == i].mean(0) for i in range(len(chars))]))
    thresholds = {k: float(st[k]) for k in THRESHOLDS}
    calib = _calibrate(E, lab, len(chars))
    n_min = min(int(np.sum(lab == i)) for i in range(len(chars)))
    if st.get("calibrate") and n_min >= CALIBRATE_MIN_LINES and calib.get("other_max") is not None:
        # enough labelled lines to trust the spread of scores between different speakers:
        # a confident label must beat the best cross-speaker training score by a little
        th_lo = thresholds["maybe"] + 0.05
        th_hi = max(th_lo, calib["same_mean"]) if calib.get("same_mean") is not None else 0.9
        thresholds["accept"] = round(float(min(max(calib["other_max"] + 0.05, th_lo), th_hi)), 4)
        calib["calibrated"] = True
    counts = {c: int(np.sum(lab == idx[c])) for c in chars}
    secs = {}
    if durations is not None:
        d = np.asarray(durations, dtype=float)
        secs = {c: round(float(d[lab == idx[c]].sum()), 3) for c in chars}
    keep = {k: st[k] for k in ("min_duration", "window", "pad", "propagate", "znorm", "open_set", "cohort_top",
                                 "group_link", "group_size")}
    return SpeakerModel(chars, cent, E, lab, encoder_id, thresholds, keep, counts, secs, calib)


def _calibrate(E: np.ndarray, lab: np.ndarray, k: int) -> dict:
    """Leave-one-out scores of the training lines: own character vs the others."""
    same, other = [], []
    sums = np.stack([E[lab == i].sum(0) for i in range(k)])
    n = np.bincount(lab, minlength=k)
    for j, (e, c) in enumerate(zip(E, lab)):
        if n[c] >= 2:
            same.append(float(e @ _unit(sums[c] - e)))
        for i in range(k):
            if i != c:
                other.append(float(e @ _unit(sums[i])))
    out: dict = {"same_mean": None, "same_min": None, "other_max": None, "other_mean": None}
    if same:
        out.update(same_mean=round(float(np.mean(same)), 4), same_min=round(float(np.min(same)), 4))
    if other:
        out.update(other_max=round(float(np.max(other)), 4), other_mean=round(float(np.mean(other)), 4))
    return out

"""Who is speaking: identify each timed line's character by voice from a few labelled lines.

Cosine to each character's centroid, adapted within an episode surest line first, and cohort-normalised in the
open set (`openset.py`). Every line gets a verdict in `extra["voice"]`; only `confident` lines get a speaker
unless `keep_maybe`. Training and storage live in `speaker_model.py`. Method and verdicts: docs/tv.md."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from ..errors import InputError
from ..records import Line
from .openset import Cohort, keep_lone_lines, own_voices
from .speaker_model import DEFAULTS, FORMAT, THRESHOLDS, SpeakerModel, _unit, fit  # noqa: F401  (re-exported)

SAMPLE_RATE = 16000


@dataclass
class Verdict:
    status: str                      # confident | maybe | unknown | too-short
    speaker: str | None
    score: float | None = None
    margin: float | None = None
    confidence: float | None = None
    guesses: list = field(default_factory=list)   # [(character, score), ...] best first (top 2)
    norm: float | None = None                      # cohort-normalised score of the best character (open set)

    def to_extra(self) -> dict:
        d = {"status": self.status}
        if self.score is not None:
            d.update(score=round(self.score, 4), margin=round(self.margin, 4),
                     guesses=[{"character": c, "score": round(s, 4)} for c, s in self.guesses])
        if self.norm is not None:
            d["norm"] = round(self.norm, 4)
        return d


# ---------------------------------------------------------------- audio -> embeddings

def span_audio(audio: np.ndarray, start: float, end: float, *, pad: float, window: float,
               sr: int = SAMPLE_RATE) -> np.ndarray:
    """The samples of a line, padded by `pad` each side and widened (centred) to `window` seconds."""
    total = len(audio) / sr
    s, e = start - pad, end + pad
    if e - s < window:
        c = (start + end) / 2
        s, e = c - window / 2, c + window / 2
    if s < 0:
        s, e = 0.0, min(total, e - s)
    if e > total:
        s, e = max(0.0, s - (e - total)), total
    return audio[int(round(s * sr)): int(round(e * sr))]


def embed_spans(encoder, audio: np.ndarray, spans: Sequence[tuple[float, float]], settings: dict,
                progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Embed each (start, end) span of `audio` (one row each, L2-normalised)."""
    out = np.zeros((len(spans), encoder.dim), dtype=np.float32)
    for i, (s, e) in enumerate(spans):
        out[i] = encoder.embed([span_audio(audio, s, e, pad=settings["pad"], window=settings["window"])])[0]
        if progress:
            progress(1)
    return out


# ---------------------------------------------------------------- identification

def _confidence(score: float, accept: float, maybe: float) -> float:
    if score <= maybe:
        c = 0.4 * max(score, 0.0) / maybe if maybe > 0 else 0.0
    elif score <= accept:
        c = 0.4 + 0.3 * (score - maybe) / max(accept - maybe, 1e-9)
    else:
        c = 0.7 + 0.3 * (score - accept) / max(1 - accept, 1e-9)
    return round(min(1.0, max(0.0, c)), 4)


def _verdict(raw: np.ndarray, rank: np.ndarray, chars: Sequence[str], th: dict,
             norm: np.ndarray | None = None) -> Verdict:
    """Decide from raw cosines `raw` (and open-set scores `norm`); `rank` picks the best character."""
    order = np.argsort(-rank)
    b = order[0]
    best = float(raw[b])
    second = float(np.max(np.delete(raw, b))) if len(raw) > 1 else -1.0
    margin = best - second
    nb = float(norm[b]) if norm is not None else None
    guesses = [[chars[i], float(raw[i])] for i in order[:2]]
    conf = _confidence(best, th["accept"], th["maybe"])
    if best >= th["accept"] and margin >= th["margin"] and (nb is None or nb >= th["snorm_accept"]):
        status = "confident"
    elif best >= th["maybe"] and (nb is None or nb >= th["snorm_maybe"]):
        status = "maybe"
        conf = min(conf, 0.6999)
    else:
        status = "unknown"
        conf = min(conf, 0.3999)
    return Verdict(status, chars[b] if status != "unknown" else None, best, margin, conf, guesses, nb)


ZNORM_MIN_LINES = 8
JOIN = ("confident", "maybe")  # verdicts whose line joins its character's centroid  # episodes with fewer embedded lines are ranked by raw cosine


def _rank_scores(S: np.ndarray, A: np.ndarray | None) -> np.ndarray:
    """Per-character z-normalisation of scores S against all the episode's scores A (or S itself)."""
    if A is None:
        return S
    sd = A.std(0)
    return (S - A.mean(0)) / np.maximum(sd, 1e-6)


def identify(model: SpeakerModel, E: np.ndarray, *, thresholds: dict | None = None,
             anchors: dict[int, str] | None = None, propagate: bool | None = None,
             znorm: bool | None = None, open_set: bool | None = None,
             cohort: np.ndarray | None = None) -> dict[int, Verdict]:
    """Verdicts for the rows of E (the lines of one episode).

    Characters are ranked by z-normalised score (each character's cosines standardised over all
    the episode's lines, which removes what every voice of the recording shares: channel,
    synthesiser, room); thresholds apply to the raw cosine and, open set, to the cohort-normalised
    score (`cohort`: lines of other episodes that join the episode's own in the cohort). `anchors` are
    rows whose speaker is already known (subtitles, manual): they join their character's centroid and
    are not judged.
    """
    th = {**{k: DEFAULTS[k] for k in THRESHOLDS}, **model.thresholds, **(thresholds or {})}
    chars = model.characters
    cidx = {c: i for i, c in enumerate(chars)}
    k = len(chars)
    lab = model.exemplar_labels
    sums = np.stack([model.exemplars[lab == i].sum(0) if np.any(lab == i) else model.centroids[i]
                     for i in range(k)]).astype(np.float64)
    E = _unit(np.asarray(E, dtype=np.float64))
    pending = list(range(len(E)))
    for r, c in (anchors or {}).items():
        if c in cidx:
            sums[cidx[c]] += E[r]
        pending.remove(r)
    out: dict[int, Verdict] = {}
    st = model.settings
    prop = st.get("propagate", True) if propagate is None else propagate
    zn = st.get("znorm", True) if znorm is None else znorm
    zn = zn and k >= 2 and len(E) >= ZNORM_MIN_LINES
    ex = _unit(model.exemplars.astype(np.float64))
    pool = np.concatenate([E, ex])  # lines the z-stats run over
    osn = st.get("open_set", DEFAULTS["open_set"]) if open_set is None else open_set
    n_cohort = len(E) + (len(cohort) if cohort is not None else 0)
    coh = Cohort(E, cohort, ex, st.get("cohort_top", DEFAULTS["cohort_top"])) \
        if osn and n_cohort >= ZNORM_MIN_LINES else None
    if k < 2:
        prop = False  # with one character there is no margin to rank by

    def score(rows):
        C = _unit(sums)
        S = E[rows] @ C.T
        return S, _rank_scores(S, (pool @ C.T) if zn else None), (coh.norm(rows, sums) if coh else None)

    rows_of: dict[int, tuple] = {}  # line -> (raw, rank, norm) scores it was judged on
    voices_of_their_own = own_voices(pending, score, coh, th, st) if coh is not None else set()

    def judge(r, S_j, R_j, N_j):
        rows_of[r] = (S_j, R_j, N_j)
        out[r] = _verdict(S_j, R_j, chars, th, N_j)
        return out[r]

    while prop and pending:
        S, R, N = score(pending)
        srt = np.sort(R, axis=1)
        margin = srt[:, -1] - srt[:, -2]
        ok = S[np.arange(len(S)), R.argmax(1)] >= th["maybe"]
        if not ok.any():
            break
        j = int(np.argmax(np.where(ok, margin, -np.inf)))
        r = pending.pop(j)
        v = judge(r, S[j], R[j], None if N is None else N[j])
        if r not in voices_of_their_own:  # a low line joins as the closed set would, unless it has a voice of its own
            v = _verdict(S[j], R[j], chars, th)
        if v.status in JOIN and r not in voices_of_their_own:
            sums[cidx[v.speaker]] += E[r]
    if pending:
        S, R, N = score(pending)
        for j, r in enumerate(pending):
            judge(r, S[j], R[j], None if N is None else N[j])
    if coh is not None:
        keep_lone_lines(out, rows_of, coh, th, st, lambda S_j, R_j, N_j: _verdict(S_j, R_j, chars, th, N_j))
    return out


def label_lines(lines: list[Line], audio: np.ndarray, model_dir: Path, *, accept: float | None = None,
                maybe: float | None = None, encoder=None, progress: Callable[[int], None] | None = None,
                model: SpeakerModel | None = None, keep_maybe: bool | None = None) -> list[Line]:
    """Set speaker / confidence / evidence 'voice' on timed lines of one episode (new Line objects).

    Lines whose speaker the subtitles (or a person) already gave keep it; their voice score is
    recorded in extra["voice"] and they anchor their character's centroid. A `maybe` line gets no
    speaker (its guesses stay in extra["voice"], for review) unless `keep_maybe` (default: the setting).
    """
    if encoder is None:
        raise ValueError("label_lines needs the ECAPA encoder (extractors.tv.ecapa.load_encoder())")
    model = model or SpeakerModel.load(model_dir)
    if getattr(encoder, "model_id", model.encoder_id) != model.encoder_id:
        raise InputError(f"speaker model was trained with encoder {model.encoder_id}, not {encoder.model_id}; retrain it",
                         model_dir)
    th = dict(model.thresholds)
    if accept is not None:
        th["accept"] = float(accept)
    if maybe is not None:
        th["maybe"] = float(maybe)
    st = {**DEFAULTS, **model.settings}
    keep_maybe = bool(st["keep_maybe"] if keep_maybe is None else keep_maybe)
    out = [dataclasses.replace(ln, extra=dict(ln.extra)) for ln in lines]
    rows: list[int] = []
    spans: list[tuple[float, float]] = []
    for i, ln in enumerate(out):
        if ln.start is None or ln.end is None:
            ln.extra["voice"] = {"status": "no-times"}
            continue
        if ln.end - ln.start < st["min_duration"]:
            ln.extra["voice"] = {"status": "too-short", "duration": round(ln.end - ln.start, 3)}
            if ln.evidence == "voice":
                ln.speaker, ln.confidence, ln.evidence = None, None, None
            continue
        rows.append(i)
        spans.append((ln.start, ln.end))
    if not rows:
        return out
    E = embed_spans(encoder, audio, spans, st, progress)
    anchors = {j: out[i].speaker for j, i in enumerate(rows)
               if out[i].speaker and out[i].evidence in ("subtitle", "manual", "script")}
    verdicts = identify(model, E, thresholds=th, anchors=anchors)
    S_all = E @ _unit(model.centroids.astype(np.float64)).T
    for j, i in enumerate(rows):
        ln = out[i]
        if j in anchors:
            v = _verdict(S_all[j], S_all[j], model.characters, th)
            ln.extra["voice"] = {**v.to_extra(), "status": "given", "agrees": v.speaker == ln.speaker}
            continue
        v = verdicts[j]
        ln.extra["voice"] = v.to_extra()
        ln.speaker = v.speaker if v.status == "confident" or keep_maybe else None
        ln.confidence = v.confidence
        ln.evidence = "voice" if ln.speaker else None
    return out


# ---------------------------------------------------------------- from labels (train / eval)

def train_from_labels(labels: Iterable, audio_of: Callable[[Path], np.ndarray], encoder, settings: dict | None = None,
                      progress: Callable[[int], None] | None = None) -> SpeakerModel:
    """Embed labelled lines (extractors.tv.labels.Label) and fit a model."""
    st = {**DEFAULTS, **(settings or {})}
    labels = list(labels)
    short = [lab for lab in labels if lab.duration < st["min_duration"]]
    usable = [lab for lab in labels if lab.duration >= st["min_duration"]]
    if not usable:
        raise InputError(f"every labelled line is shorter than min_duration {st['min_duration']} s")
    E = np.zeros((len(usable), encoder.dim), dtype=np.float32)
    by_media: dict[Path, list[int]] = {}
    for i, lab in enumerate(usable):
        by_media.setdefault(lab.media, []).append(i)
    for media, ids in by_media.items():
        audio = audio_of(media)
        E[ids] = embed_spans(encoder, audio, [(usable[i].start, usable[i].end) for i in ids], st, progress)
    model = fit([lab.character for lab in usable], E, [lab.character for lab in usable],
                encoder_id=encoder.model_id, settings=st, durations=[lab.duration for lab in usable])
    model.calibration["skipped_too_short"] = len(short)
    return model


def evaluate(model: SpeakerModel, labels: Sequence, audio_of: Callable[[Path], np.ndarray], encoder,
             progress: Callable[[int], None] | None = None) -> dict:
    """Identify each labelled line (episode by episode, as extract tv would) and compare.

    A labelled character the model does not know is a voice nobody enrolled: its line is right when no
    speaker is given, and a false accept when one is (`false_accepts` of `unenrolled` lines).
    accuracy = correct / all labelled lines (unknown and too-short lines of enrolled voices count as wrong);
    precision = correct / lines given a speaker; coverage = lines given a speaker / all;
    enrolled_accuracy = correct / lines of enrolled voices. These count a `maybe` verdict's guess as given;
    `confident_accuracy` and `confident_false_accepts` count only the `confident` verdicts: the speakers
    `extract tv` writes by default (a `maybe` line's guess goes to review, unless keep_maybe).
    """
    st = {**DEFAULTS, **model.settings}
    preds: list[str | None] = [None] * len(labels)
    status: list[str] = ["too-short"] * len(labels)
    by_media: dict[Path, list[int]] = {}
    for i, lab in enumerate(labels):
        if lab.duration >= st["min_duration"]:
            by_media.setdefault(lab.media, []).append(i)
    for media, ids in by_media.items():
        audio = audio_of(media)
        E = embed_spans(encoder, audio, [(labels[i].start, labels[i].end) for i in ids], st, progress)
        for j, v in identify(model, E).items():
            preds[ids[j]], status[ids[j]] = v.speaker, v.status
    gold = [lab.character for lab in labels]
    n = len(labels)
    known = set(model.characters)
    covered = sum(p is not None for p in preds)
    right = [p == g if g in known else p is None for p, g in zip(preds, gold)]
    correct = sum(right)
    n_enrolled = sum(g in known for g in gold)
    sure = [p if s == "confident" else None for p, s in zip(preds, status)]
    right_given = sum(p == g for p, g in zip(preds, gold))
    rows = list(dict.fromkeys(list(model.characters) + gold))
    cols = rows + ["(unknown)"]
    matrix = np.zeros((len(rows), len(cols)), dtype=np.int64)
    for p, g in zip(preds, gold):
        matrix[rows.index(g), cols.index(p) if p is not None else len(cols) - 1] += 1
    return {
        "n": n,
        "accuracy": correct / n if n else math.nan,
        "coverage": covered / n if n else math.nan,
        "precision": right_given / covered if covered else math.nan,
        "enrolled_accuracy": sum(r for r, g in zip(right, gold) if g in known) / n_enrolled if n_enrolled else math.nan,
        "unenrolled": n - n_enrolled,
        "false_accepts": sum(p is not None for p, g in zip(preds, gold) if g not in known),
        "confident_accuracy": sum(p == g if g in known else p is None for p, g in zip(sure, gold)) / n if n else math.nan,
        "confident_false_accepts": sum(p is not None for p, g in zip(sure, gold) if g not in known),
        "confident": sum(s == "confident" for s in status),
        "maybe": sum(s == "maybe" for s in status),
        "unknown": sum(s == "unknown" for s in status),
        "too_short": sum(s == "too-short" for s in status),
        "rows": rows, "cols": cols, "matrix": matrix,
        "predictions": preds, "status": status,
    }

"""Find the voices of a season before anyone is named: cluster every line's ECAPA embedding across episodes.

The number of voices is estimated (agglomerative clustering stopped at `threshold`, small clusters folded in by
`min_share`). `write_discovery` writes the discovery folder; `name_cluster`/`name_clusters` label clusters and fit
the voice model without re-embedding, the naming kept as data for `dvc repro`. Method and folder: docs/tv.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..atomic import atomic_dir, atomic_write_bytes, atomic_write_text
from ..errors import InputError
from ..records import Line, read_lines, write_lines
from .speaker_model import DEFAULTS, SpeakerModel, _unit, fit

THRESHOLD = 0.75   # cosine distance at which average-linkage merging stops
MIN_SHARE = 0.07   # clusters with fewer lines than this share of all lines are folded into the nearest one
SAMPLES = 3        # sample lines (and clips) per cluster
SR = 16000


def cluster_voices(E: np.ndarray, threshold: float = THRESHOLD, min_share: float = MIN_SHARE) -> np.ndarray:
    """A cluster number per row of E (0 = the voice with the most lines); the number of voices is estimated."""
    from sklearn.cluster import AgglomerativeClustering

    E = _unit(np.asarray(E, dtype=np.float64))
    if len(E) < 2:
        return np.zeros(len(E), dtype=np.int64)
    P = _unit(E - E.mean(0))
    lab = AgglomerativeClustering(n_clusters=None, distance_threshold=threshold, metric="cosine",
                                  linkage="average").fit_predict(P)
    sizes = np.bincount(lab)
    big = [c for c in np.argsort(-sizes, kind="stable") if sizes[c] >= max(2, int(np.ceil(min_share * len(E))))]
    if not big:
        big = [int(np.argmax(sizes))]
    C = _unit(np.stack([P[lab == c].mean(0) for c in big]))
    order = {c: i for i, c in enumerate(big)}
    out = np.array([order[c] if c in order else int(np.argmax(C @ P[i])) for i, c in enumerate(lab)])
    counts = np.bincount(out, minlength=len(big))  # renumber by size after the folding
    rank = {c: i for i, c in enumerate(np.argsort(-counts, kind="stable"))}
    return np.array([rank[c] for c in out], dtype=np.int64)


def purity(labels: Sequence[int], names: Sequence[str]) -> float:
    """Share of lines whose cluster's majority voice is their own."""
    labels, names = np.asarray(labels), np.asarray(names)
    hit = sum(max(np.sum(names[labels == c] == n) for n in set(names[labels == c])) for c in set(labels.tolist()))
    return hit / len(names) if len(names) else float("nan")


def cluster_id(k: int) -> str:
    return f"voice_{k + 1:02d}"


def discover_voices(episodes: Sequence[tuple[Path, list[Line]]], audio_of: Callable[[Path], np.ndarray], encoder,
                    settings: dict | None = None, progress: Callable[[int], None] | None = None):
    """Embed and cluster the lines of all episodes. Returns (lines, embeddings, rows, clusters): `rows` are the
    indices into `lines` of the embedded lines (timed, at least min_duration long), `clusters` one per row."""
    from .speaker_id import embed_spans

    st = {**DEFAULTS, **(settings or {})}
    lines: list[Line] = []
    rows: list[int] = []
    blocks = []
    for media, eps_lines in episodes:
        spans, idx = [], []
        for ln in eps_lines:
            ln.extra = {**ln.extra, "media": str(media)}
            if ln.start is not None and ln.end is not None and ln.end - ln.start >= st["min_duration"]:
                idx.append(len(lines))
                spans.append((ln.start, ln.end))
            lines.append(ln)
        if spans:
            blocks.append(embed_spans(encoder, audio_of(media), spans, st, progress))
            rows += idx
    if not rows:
        raise InputError("no line long enough to embed (min_duration "
                         f"{st['min_duration']} s) in {len(episodes)} episode(s)")
    E = np.concatenate(blocks)
    clusters = cluster_voices(E)
    for r, c in zip(rows, clusters):
        lines[r].extra["voice_cluster"] = cluster_id(int(c))
    return lines, E, np.asarray(rows), clusters


def _clip(audio: np.ndarray, start: float, end: float) -> bytes:
    import io

    import soundfile as sf

    buf = io.BytesIO()
    sf.write(buf, audio[int(start * SR): int(end * SR)], SR, format="WAV", subtype="PCM_16")
    return buf.getvalue()


def write_discovery(out: Path, lines: list[Line], E: np.ndarray, rows: np.ndarray, clusters: np.ndarray,
                    audio_of: Callable[[Path], np.ndarray], encoder_id: str) -> dict:
    """Write lines.jsonl, embeddings.npz, voices.json and sample clips into the folder `out` (replaced whole,
    atomically: a failure leaves the previous folder, or none)."""
    with atomic_dir(out) as tmp:
        return _write(Path(tmp), lines, E, rows, clusters, audio_of, encoder_id)


def _write(out: Path, lines, E, rows, clusters, audio_of, encoder_id) -> dict:
    (out / "clips").mkdir()
    P = _unit(_unit(E) - _unit(E).mean(0))
    voices = []
    for k in range(int(clusters.max()) + 1):
        members = np.flatnonzero(clusters == k)
        centre = _unit(P[members].mean(0))
        near = members[np.argsort(-(P[members] @ centre))][:SAMPLES]  # the most typical lines of the voice
        samples = []
        for j, m in enumerate(near):
            ln = lines[int(rows[m])]
            clip = f"clips/{cluster_id(k)}_{j + 1}.wav"
            atomic_write_bytes(out / clip, _clip(audio_of(Path(ln.extra["media"])), ln.start, ln.end))
            samples.append({"media": ln.extra["media"], "start": ln.start, "end": ln.end, "text": ln.text, "clip": clip})
        secs = sum(lines[int(rows[m])].end - lines[int(rows[m])].start for m in members)
        voices.append({"cluster": cluster_id(k), "lines": int(len(members)), "seconds": round(float(secs), 2),
                       "episodes": sorted({lines[int(rows[m])].unit for m in members}), "samples": samples,
                       "character": None})
    with open(out / "embeddings.npz", "wb") as fh:
        np.savez(fh, embeddings=E.astype(np.float32), rows=rows.astype(np.int64), clusters=clusters.astype(np.int64))
    write_lines(out / "lines.jsonl", lines)
    meta = {"encoder": encoder_id, "threshold": THRESHOLD, "min_share": MIN_SHARE, "voices": voices}
    atomic_write_text(out / "voices.json", json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    return meta


def read_discovery(d: Path) -> tuple[dict, list[Line], np.ndarray, np.ndarray]:
    d = Path(d)
    for f in ("voices.json", "lines.jsonl", "embeddings.npz"):
        if not (d / f).is_file():
            raise InputError(f"not a discovery folder (no {f}; make one with `rolecorpus speakers discover`)", d)
    try:
        meta = json.loads((d / "voices.json").read_text(encoding="utf-8"))
        with np.load(d / "embeddings.npz", allow_pickle=False) as z:
            E, rows = z["embeddings"], z["rows"]
    except Exception as e:  # a damaged file
        raise InputError(f"damaged discovery files ({e.__class__.__name__})", d) from None
    return meta, read_lines(d / "lines.jsonl"), E, rows


def name_cluster(d: Path, cluster: str, character: str, model_dir: Path,
                 settings: dict | None = None) -> tuple[int, SpeakerModel]:
    """Give every line of `cluster` to `character` (evidence manual) and refit the voice profile in `model_dir`
    from the lines of every named cluster. Returns (lines named, model)."""
    return name_clusters(d, [(cluster, character)], model_dir, settings)


def _cluster(cluster: str, known: list[str], d: Path) -> str:
    if cluster.isdigit():
        cluster = cluster_id(int(cluster) - 1)
    if cluster not in known:
        raise InputError(f"no cluster {cluster!r} (clusters: {', '.join(known)})", Path(d) / "voices.json")
    return cluster


def read_names(path: Path, resolve: Callable[[str], str | None]) -> list[tuple[str, str]]:
    """The rows of a names file (CSV `cluster,character`: the naming a person did, kept as data so a rerun of
    the pipeline replays it); characters resolved through `resolve` (id or alias), errors name the row."""
    import csv

    from ..ids import check_id
    from ..textio import read_text

    rows = list(csv.reader(read_text(path).splitlines()))
    if not rows or [c.strip().lower() for c in rows[0][:2]] != ["cluster", "character"]:
        raise InputError("a names file starts with the header `cluster,character`", path)
    out = []
    for n, row in enumerate(rows[1:], 2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != 2:
            raise InputError(f"expected 2 columns (cluster,character), got {len(row)}", path, n)
        cluster, name = (c.strip() for c in row)
        check_id(cluster, "cluster id", path)
        cid = resolve(name)
        if cid is None:
            raise InputError(f"unknown character {name!r} (add it with `rolecorpus add-character`)", path, n)
        out.append((cluster, check_id(cid, "character id", path)))
    if not out:
        raise InputError("the names file names no cluster", path)
    return out


def name_clusters(d: Path, names: Sequence[tuple[str, str]], model_dir: Path,
                  settings: dict | None = None) -> tuple[int, SpeakerModel]:
    """Give every line of each (cluster, character) of `names` to its character (evidence manual) and refit the
    voice profile in `model_dir` from the lines of every named cluster. Returns (lines named, model)."""
    meta, lines, E, rows = read_discovery(d)
    known = [v["cluster"] for v in meta["voices"]]
    given = {_cluster(c, known, d): ch for c, ch in names}
    named = 0
    for ln in lines:
        character = given.get(ln.extra.get("voice_cluster"))
        if character is not None:
            ln.speaker, ln.confidence, ln.evidence, ln.name = character, 1.0, "manual", character
            named += 1
    for v in meta["voices"]:
        if v["cluster"] in given:
            v["character"] = given[v["cluster"]]
    labelled = [(j, lines[int(r)].speaker) for j, r in enumerate(rows) if lines[int(r)].evidence == "manual"
                and lines[int(r)].speaker]
    st = {**DEFAULTS, **(settings or {})}
    chars = [c for _, c in labelled]
    model = fit(chars, E[[j for j, _ in labelled]], chars, encoder_id=meta["encoder"], settings=st,
                durations=[lines[int(rows[j])].end - lines[int(rows[j])].start for j, _ in labelled])
    model.save(model_dir)
    write_lines(Path(d) / "lines.jsonl", lines)
    atomic_write_text(Path(d) / "voices.json", json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    return named, model

"""Open-set speaker ID and voice discovery on synthetic espeak-ng episodes: tuning pool vs held-out pool.

Each pool (tests/support/speakers_synth.py: TUNE, HELDOUT) has five voices; the first three are enrolled from three
labelled lines each (taken from the pool's first episode), the last two are side characters nobody enrolled.
Every other line of every episode is identified episode by episode, as `extract tv --speakers` would.
Prints, per pool: accuracy on the enrolled voices' other lines, false accepts of the unenrolled voices (lines
given any speaker), and `speakers discover`'s cluster count and purity over all the pool's episodes.

    python benchmarks/tv_openset.py [--episodes 3] [--lines 6] [--work /tmp/tv_openset]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support")]


def pool_embeddings(name: str, voices: dict, episodes: int, lines: int, work: Path, encoder, seed0: int):
    """[(E, gold names)] per episode, embeddings cached in work/<name>_<seed>.npz."""
    from extractors.tv import speaker_id as sid
    from extractors.tv.audio import decode_audio
    from speakers_synth import make_episode

    out = []
    for k in range(episodes):
        seed = seed0 + k
        cache = work / f"{name}_{seed}_{lines}.npz"
        if cache.is_file():
            z = np.load(cache, allow_pickle=False)
            out.append((z["E"], [str(x) for x in z["names"]]))
            continue
        wav, _, rows = make_episode(work / name, lines_per_voice=lines, voices=voices, seed=seed, name=f"ep{seed}")
        audio = decode_audio(wav)
        E = sid.embed_spans(encoder, audio, [(r["start"], r["end"]) for r in rows], sid.DEFAULTS)
        names = [r["character"] for r in rows]
        np.savez(cache, E=E, names=np.array(names))
        out.append((E, names))
    return out


def open_set(eps, enrolled: list[str], n_train: int = 3, **kw) -> dict:
    """Train on the first n_train lines of each enrolled voice in episode 0; judge every other line."""
    from extractors.tv import speaker_id as sid

    E0, names0 = eps[0]
    train = []
    for c in enrolled:
        train += [i for i, n in enumerate(names0) if n == c][:n_train]
    model = sid.fit([names0[i] for i in train], E0[train], [names0[i] for i in train], encoder_id="x")
    right = total = fa = unenrolled = maybe_fa = right_confident = 0
    for k, (E, names) in enumerate(eps):
        rows = [i for i in range(len(names)) if not (k == 0 and i in train)]
        v = sid.identify(model, E[rows], **kw)
        for j, i in enumerate(rows):
            if names[i] in enrolled:
                total += 1
                right += v[j].speaker == names[i]
                right_confident += v[j].speaker == names[i] and v[j].status == "confident"
            else:
                unenrolled += 1
                fa += v[j].speaker is not None
                maybe_fa += v[j].status == "maybe"
    return {"accuracy": right / total, "accuracy_confident": right_confident / total, "enrolled_lines": total, "false_accepts": fa,
            "false_accepts_maybe": maybe_fa, "unenrolled_lines": unenrolled}


def discover(eps) -> dict:
    from extractors.tv.discover import cluster_voices, purity

    E = np.concatenate([e for e, _ in eps])
    names = sum((n for _, n in eps), [])
    labels = cluster_voices(E)
    return {"clusters": int(labels.max() + 1), "purity": purity(labels, names), "lines": len(names)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=3)
    ap.add_argument("--lines", type=int, default=6, help="lines per voice per episode")
    ap.add_argument("--work", type=Path, default=Path("/tmp/tv_openset"))
    a = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    from speakers_synth import ENROLLED, HELDOUT, TUNE, shared_encoder
    from extractors.tv import speaker_id as sid

    a.work.mkdir(parents=True, exist_ok=True)
    enc = shared_encoder()
    for name, voices, seed0 in (("tune", TUNE, 100), ("heldout", HELDOUT, 200)):
        eps = pool_embeddings(name, voices, a.episodes, a.lines, a.work, enc, seed0)
        enrolled = list(voices)[:ENROLLED]
        closed = open_set(eps, enrolled, open_set=False)
        opened = open_set(eps, enrolled)
        print(f"{name:8s} closed set (before): accuracy {closed['accuracy']:.3f} of {closed['enrolled_lines']}, "
              f"false accepts {closed['false_accepts']}/{closed['unenrolled_lines']}")
        print(f"{name:8s} open set (default):  accuracy {opened['accuracy']:.3f} of {opened['enrolled_lines']}, "
              f"false accepts {opened['false_accepts']}/{opened['unenrolled_lines']} "
              f"(maybe {opened['false_accepts_maybe']})")
        print(f"{name:8s} open set, maybe lines without a speaker (extract tv's default, speakers.keep_maybe false): "
              f"accuracy {opened['accuracy_confident']:.3f}, false accepts "
              f"{opened['false_accepts'] - opened['false_accepts_maybe']}/{opened['unenrolled_lines']}")
        try:
            d = discover(eps)
            print(f"{name:8s} discover: {d['clusters']} clusters for 5 voices, purity {d['purity']:.3f} "
                  f"over {d['lines']} lines")
        except ImportError:
            pass
    del sid


if __name__ == "__main__":
    main()

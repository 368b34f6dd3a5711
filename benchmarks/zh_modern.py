"""Chinese attribution with nothing configured on a modern novel and a classical one: 平凡的世界 (the WP2021
speech cues of `shared/corpora/wp2021`) and 红楼梦 chapters 1-8 (`shared/corpora/honglou`).

Run: `python benchmarks/zh_modern.py [--misses[=N]] [--cast] [--stories]`. The cast is discovered (`discover_cast(text, "zh")`),
the cues scored by `extractors/novel/evaluation/cue_labels.py`. The 2,000 平凡的世界 cues are split in order: the first
`DESIGN` (1,500) are the design part, the rest the held-out part, looked at only to check a change. Prints
accuracy (right among cues with a gold speaker), coverage, precision (right among given) and the accuracy on
the cues the dataset marks `explicit` (the speaker named in the context), for each part and for 红楼梦 1-8; and
apart, the same figures counting right a line given the given name of a labelled full name the text never writes
(`兰花`, labelled `孙兰花`).
`--misses` lists the wrong and missed cues of the design part (`--misses=implicit`: one category only).
Last, what a user holds (`--stories`): the stories of the three most labelled members, cut as the pipeline cuts them,
each counted "own words" when every line it gives that member is theirs by the labels, and "all right" when every
labelled line it gives anyone is right; a story's part is the part of its first labelled line.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from extractors.novel.cast.discover import discover_cast  # noqa: E402
from extractors.novel.cast.zh.lexicon import SURNAME  # noqa: E402
from extractors.novel.evaluation.cue_labels import load_labels, same_surface, score  # noqa: E402
from extractors.novel.extract import extract_novel, read_novel  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpora"
WP2021 = SHARED / "wp2021"
HONGLOU = SHARED / "honglou"
DESIGN = 1500  # the first cues of 平凡的世界: designed on; the rest are held out


def run_book(path: Path, work: str) -> tuple[str, list, list, float]:
    """(text, cast, lines, seconds) with nothing configured."""
    text = read_novel(path)
    t0 = time.perf_counter()
    cast = discover_cast(text, "zh", by_lines=False)
    lines = extract_novel(path, work, [m.to_character(work, "zh") for m in cast], language="zh", text=text)
    return text, cast, lines, time.perf_counter() - t0


def right(d: dict, ln, form: dict) -> bool | None:
    """True / False for a cue given a speaker, None for one given nobody (as `cue_labels.score` counts it)."""
    if not ln or not ln.speaker:
        return None
    gold, name = d["speaker"], ln.name
    return same_surface(name, gold) or (form.get(gold) is not None and form.get(gold) in (ln.speaker, form.get(name or "")))


def figures(text: str, labels: list[dict], lines: list, cast: list) -> dict:
    """`cue_labels.score` plus the accuracy on cues of category `explicit`."""
    r = score(text, labels, lines, cast)
    exp = [(d, ln) for d, ln in r["rows"] if d.get("category") == "explicit" and d["speaker"]]
    r["explicit"] = sum(bool(right(d, ln, r["form"])) for d, ln in exp) / max(1, len(exp))
    r["n_explicit"] = len(exp)
    r["unwritten"] = sum(_unwritten_full(text, d["speaker"], ln) and right(d, ln, r["form"]) is False
                         for d, ln in r["rows"] if d["speaker"])
    r["accuracy_given"] = (r["right"] + r["unwritten"]) / max(1, r["gold"])
    r["precision_given"] = (r["right"] + r["unwritten"]) / max(1, r["given"])
    return r


def _unwritten_full(text: str, gold: str, ln) -> bool:
    """Whether the line names the given name of a labelled full name the text never writes (`兰花`, labelled `孙兰花`:
    the labels name her in full, the novel never does)."""
    name = ln.name if ln and ln.speaker else None
    return bool(name) and gold not in text and len(gold) == len(name) + 1 and gold[0] in SURNAME and gold.endswith(name)


def line(name: str, r: dict) -> str:
    exp = f"  explicit {r['explicit']:.3f} ({r['n_explicit']})" if r.get("n_explicit") else ""
    return (f"  {name}: cues {r['cues']}/{r['n_labels']}  accuracy {r['accuracy']:.3f}  coverage {r['coverage']:.3f}  "
            f"precision {r['precision']:.3f}{exp}")


def wp2021(show: str | None = None, show_cast: bool = False, with_stories: bool = False) -> dict:
    text, cast, lines, dt = run_book(WP2021 / "wp2021_train.txt", "wp2021")
    labels = load_labels(WP2021 / "label_wp2021_train.txt")
    print(f"平凡的世界 (wp2021): {len(text)} chars, cast {len(cast)}, {dt:.1f} s")
    if show_cast:
        for m in cast[:40]:
            print(f"    {m.name} {m.aliases} {m.gender} speaks {m.speaks}")
    out = {}
    for name, part in (("design", labels[:DESIGN]), ("held-out", labels[DESIGN:])):
        out[name] = r = figures(text, part, lines, cast)
        print(line(name, r))
        if r["unwritten"]:
            print(f"    ({r['unwritten']} cues given the given name of a labelled full name the text never writes, "
                  f"`兰花` for `孙兰花`, are counted wrong above; counted right: accuracy {r['accuracy_given']:.3f}, "
                  f"precision {r['precision_given']:.3f})")
        for cat in ("explicit", "implicit", "latent"):
            c = score(text, [d for d in part if d.get("category") == cat], lines, cast)
            print(f"    {cat}: {c['gold']} cues  accuracy {c['accuracy']:.3f}  coverage {c['coverage']:.3f}  "
                  f"precision {c['precision']:.3f}")
    if with_stories:
        out["stories"] = stories(text, labels, lines, cast)
    if show is not None:
        r = out["design"]
        for d, ln in r["rows"]:
            ok = right(d, ln, r["form"])
            if ok or d["speaker"] is None or show and d.get("category") != show:
                continue
            print("  MISS" if ok is None else "  WRONG", d.get("instance"), d.get("category"), repr(d["context"][-40:]),
                  "gold", d["speaker"], "got", ln.name if ln and ln.speaker else None,
                  (ln.extra.get("rule") if ln else "no line"))
    return out


def stories(text: str, labels: list[dict], lines: list, cast: list) -> dict:
    """member -> part -> (stories, share with only their own words, share with every labelled line right), for the
    three most labelled members, printed."""
    from collections import Counter

    from extractors.characters import AliasResolver
    from pipeline.segment import Params, Segmenter, floored

    r = score(text, labels, lines, cast)
    part = {}  # line index -> (gold member id or surface, "design"/"held-out")
    for n, (d, ln) in enumerate(r["rows"]):
        if ln is not None and d["speaker"]:
            part[ln.index] = (r["form"].get(d["speaker"], d["speaker"]), "design" if n < DESIGN else "held-out")
    chars = [m.to_character("wp2021", "zh") for m in cast]
    top = [c for c, _ in Counter(g for g, _ in part.values() if g in {c.id for c in chars}).most_common(3)]
    params = Params()
    shown = [floored(ln, params.turn_floor, params.tag_floor) for ln in lines]
    out: dict = {}
    print("  stories of the three most labelled members (own words / all right, by part):")
    for cid in top:
        got = {"design": [0, 0, 0], "held-out": [0, 0, 0]}
        for st in Segmenter(cid, AliasResolver(chars), params).run(lines):
            said = [ln for ln in shown[st.first_index:st.last_index + 1] if ln.kind == "dialogue" and ln.speaker]
            known = [ln for ln in said if ln.index in part]
            mine = [ln for ln in known if ln.speaker == cid]
            if not mine:
                continue  # no labelled line given to the member: the labels cannot judge it
            g = got[part[mine[0].index][1]]
            g[0] += 1
            g[1] += all(part[ln.index][0] == cid for ln in mine)
            g[2] += all(part[ln.index][0] == ln.speaker for ln in known)
        out[cid] = {k: (n, own / max(1, n), ok / max(1, n)) for k, (n, own, ok) in got.items()}
        print(f"    {cid}: " + "; ".join(f"{k} {n} stories {o:.3f} / {a:.3f}" for k, (n, o, a) in out[cid].items()))
    return out


def honglou() -> dict:
    text, cast, lines, dt = run_book(HONGLOU / "hongloumeng_1-8.txt", "hlm")
    r = figures(text, load_labels(HONGLOU / "label_honglou_1-8.txt"), lines, cast)
    print(f"红楼梦 1-8: cast {len(cast)}, {dt:.1f} s")
    print(line("all", r))
    return r


def main() -> None:
    show = next((a.partition("=")[2] for a in sys.argv if a.startswith("--misses")), None)
    if WP2021.exists():
        wp2021(show, "--cast" in sys.argv, "--stories" in sys.argv)
    if HONGLOU.exists():
        honglou()


if __name__ == "__main__":
    main()

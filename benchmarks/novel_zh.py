"""Chinese attribution with no configured characters (rules only): 红楼梦 chapters 1-8 against the
labelled speech cues of `shared/corpora/honglou`, and 三国演义 1-15 (`data/samples`) for timing and
a look at its speakers.

Run: `python benchmarks/novel_zh.py [--misses] [--speed[=40]]` (`--speed`: the 三国演义 sample
concatenated 40 times, about 3 MB, timed). The cast is discovered (`discover_cast(text, "zh")`);
the labels are scored by `extractors/novel/evaluation/cue_labels.py` (what `rolecorpus eval attribution --gold
DIR` does for a folder of a novel and its `label_*.txt`). Prints:
accuracy on cues with a gold speaker, coverage (a speaker given), precision (right among given),
gold-None cues given a speaker, per half of the labels, and seconds; then the same in traditional characters
(OpenCC s2t on text and labels), also with `「」` quotation marks.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from extractors.novel.cast.discover import discover_cast  # noqa: E402
from extractors.novel.evaluation.cue_labels import load_labels, same_surface, score  # noqa: E402
from extractors.novel.extract import extract_novel, read_novel  # noqa: E402

HONGLOU = ROOT.parent / "shared" / "corpora" / "honglou"


def discover_and_extract(path: Path, work: str, text: str | None = None):
    """(text, cast, lines, seconds to discover, seconds to extract) with no configuration."""
    text = read_novel(path) if text is None else text
    t0 = time.perf_counter()
    cast = discover_cast(text, "zh", by_lines=False)
    t1 = time.perf_counter()
    lines = extract_novel(path, work, [m.to_character(work, "zh") for m in cast], language="zh", text=text)
    return text, cast, lines, t1 - t0, time.perf_counter() - t1


def run_honglou(show_misses: bool = False) -> dict:
    text, cast, lines, t_cast, t_lines = discover_and_extract(HONGLOU / "hongloumeng_1-8.txt", "hlm")
    dt = t_cast + t_lines
    labels = load_labels(HONGLOU / "label_honglou_1-8.txt")
    r = score(text, labels, lines, cast)
    print(f"红楼梦 1-8: {len(text)} chars, cast {len(cast)}, {dt:.2f} s (discovery + extraction)")
    print(f"  cues {r['cues']} (gold speaker {r['gold']}, None {r['none']}): accuracy {r['accuracy']:.3f}  "
          f"coverage {r['coverage']:.3f}  precision {r['precision']:.3f}  gold-None given a speaker {r['none_given']}")
    half = len(labels) // 2
    for name, part in (("first half", labels[:half]), ("second half", labels[half:])):
        h = score(text, part, lines, cast)
        print(f"  {name}: accuracy {h['accuracy']:.3f}  coverage {h['coverage']:.3f}  precision {h['precision']:.3f}")
    if show_misses:
        for d, ln in r["rows"]:
            name = ln.name if ln and ln.speaker else None
            if d["speaker"] and not same_surface(name, d["speaker"]) and not (ln and r["form"].get(d["speaker"]) and r["form"].get(d["speaker"]) in (ln.speaker, r["form"].get(name or ""))):
                print("  MISS", d["uid"], repr(d["context"][-30:]), "gold", d["speaker"], "got", name,
                      ln.extra.get("rule") if ln else "no line")
            elif d["speaker"] is None and ln and ln.speaker:
                print("  NONE", d["uid"], repr(d["context"][-30:]), "got", ln.name)
    return r


def to_traditional(text: str, labels: list[dict], corner: bool = False) -> tuple[str, list[dict]]:
    """红楼梦 as a traditional edition writes it: OpenCC s2t (phrases and characters) on the text and the labels;
    `corner`: its quotation marks as `「」`/`『』` (the text closes many quotations with an ASCII `"`)."""
    from opencc import OpenCC

    s2t = OpenCC("s2t").convert
    marks = str.maketrans("“”‘’\"", "「」『』」") if corner else {}
    return s2t(text).translate(marks), [dict(d, context=s2t(d["context"]).translate(marks),
                                             speaker=s2t(d["speaker"]) if d["speaker"] else None) for d in labels]


def run_honglou_traditional() -> None:
    """The same cues in traditional characters, with curly quotation marks and with corner brackets."""
    import tempfile

    text, labels = read_novel(HONGLOU / "hongloumeng_1-8.txt"), load_labels(HONGLOU / "label_honglou_1-8.txt")
    for corner in (False, True):
        t2, l2 = to_traditional(text, labels, corner)
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "hlm_trad.txt"
            path.write_text(t2, encoding="utf-8")
            t2, cast, lines, _, _ = discover_and_extract(path, "hlm", t2)
        r = score(t2, l2, lines, cast)
        print(f"  traditional characters{', 「」' if corner else ''}: accuracy {r['accuracy']:.3f}  "
              f"coverage {r['coverage']:.3f}  precision {r['precision']:.3f}")


def run_sanguo() -> None:
    text, cast, lines, t_cast, t_lines = discover_and_extract(ROOT / "data" / "samples" / "sanguo_1-15.txt", "sanguo")
    dt = t_cast + t_lines
    dia = [ln for ln in lines if ln.kind == "dialogue"]
    att = [ln for ln in dia if ln.speaker]
    top = {}
    for ln in att:
        top[ln.name] = top.get(ln.name, 0) + 1
    print(f"三国演义 1-15: {len(text)} chars, cast {len(cast)}, quotes {len(dia)}, attributed {len(att)} "
          f"({len(att) / max(1, len(dia)):.2f}), {dt:.2f} s")
    print("  top speakers:", ", ".join(f"{k} {v}" for k, v in sorted(top.items(), key=lambda kv: -kv[1])[:15]))


def run_speed(times: int) -> None:
    """The sanguo sample concatenated `times` times (40: about 3 MB, more than the whole 红楼梦), on one
    core: discovery + extraction seconds."""
    import tempfile

    text = read_novel(ROOT / "data" / "samples" / "sanguo_1-15.txt")
    big = "\n".join([text] * times)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "big.txt"
        path.write_text(big, encoding="utf-8")
        _, _, lines, t_cast, t_lines = discover_and_extract(path, "big", big)
    n = sum(ln.kind == "dialogue" for ln in lines)
    print(f"speed: 三国演义 sample x{times}: {len(big) / 1e6:.2f} M chars, {n} quotes, discovery {t_cast:.1f} s, "
          f"extraction {t_lines:.1f} s")


def main() -> None:
    from extractors.novel.cast.zh.lexicon import _pseg

    t0 = time.perf_counter()
    _pseg()
    print(f"jieba load: {time.perf_counter() - t0:.2f} s")
    if HONGLOU.exists():
        run_honglou("--misses" in sys.argv)
        run_honglou_traditional()
    run_sanguo()
    for a in sys.argv:
        if a.startswith("--speed"):
            run_speed(int(a.partition("=")[2] or 40))


if __name__ == "__main__":
    main()

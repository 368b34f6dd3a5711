"""Time and memory of `rolecorpus extract KIND` on large inputs (issue 9: a text up to the size limit must be
processed within 1 GB and a minute).

Usage: python benchmarks/big_inputs.py [--sizes 1,2,4,7.9] [--kinds novel-en,novel-zh,script,wiki-html,wiki-text]
                                        [--limit-check] [--nested 5000,10000,50000] [--subtitles 1,7.9]

Each input is a committed sample repeated to about N MB (novel-en: alice29.txt; novel-zh: sanguo_1-15.txt;
script: asyoulik.txt; wiki-html: the body of the saved Fandom quotes page in tests/fixtures/wiki repeated inside
one page; wiki-text: jaques_quotes.txt). Every run is a fresh `python -m pipeline.cli` process in a scratch
project; printed per run: wall seconds, CPU seconds (user + system of that process: what one core spends,
whatever else the machine runs), peak resident MB, lines written, and MB/CPU-second. `--limit-check` also
runs each kind at the size limit (`ROLECORPUS_MAX_TEXT_MB`, 8 by default) and just above it (refused).

Hostile shapes (issue 42: memory must stay linear in the input): `--nested` runs `extract wiki` on a page of N
nested `<li>quote<ul>` levels (50,000 levels is 1.8 MB; the page has no quotes, so the run ends with exit 2 after
parsing it), and `--subtitles` reads an SRT file of N MB (`read_cues`, in a fresh process). `--kinds ''` runs only
those.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from extractors.textio import max_text_bytes  # noqa: E402

SAMPLES = ROOT / "data" / "samples"
WIKI_PAGE = ROOT / "tests" / "fixtures" / "wiki" / "fandom_quotes_saved.html"


def _repeat(unit: str, size: int, head: str = "", tail: str = "", sep: str = "\n") -> str:
    n = max(1, (size - len((head + tail).encode())) // len((unit + sep).encode("utf-8")))  # never over `size`
    return head + sep.join([unit] * n) + tail


def make_input(kind: str, size: int, folder: Path) -> Path:
    """The input of `kind` at about `size` bytes (UTF-8)."""
    if kind == "novel-en":
        text, name = _repeat((SAMPLES / "alice29.txt").read_text(encoding="utf-8"), size, sep="\n\n"), "novel.txt"
    elif kind == "novel-zh":
        text, name = _repeat((SAMPLES / "sanguo_1-15.txt").read_text(encoding="utf-8"), size, sep="\n\n"), "novel.txt"
    elif kind == "script":
        text, name = _repeat((SAMPLES / "asyoulik.txt").read_text(encoding="utf-8"), size), "play.txt"
    elif kind == "wiki-text":
        text, name = _repeat((SAMPLES / "jaques_quotes.txt").read_text(encoding="utf-8"), size), "quotes.txt"
    elif kind == "wiki-html":
        page = WIKI_PAGE.read_text(encoding="utf-8")
        a = page.index('<div class="mw-parser-output">') + len('<div class="mw-parser-output">')
        b = page.index("</div></div></div></main>")
        text, name = _repeat(page[a:b], size, head=page[:a], tail=page[b:]), "quotes.html"
    else:
        raise SystemExit(f"unknown kind {kind}")
    path = folder / f"{kind}-{size}-{name}"
    path.write_text(text, encoding="utf-8")
    return path


def nested_page(levels: int, folder: Path) -> Path:
    path = folder / f"nested-{levels}.html"
    path.write_text("<html><body><h2>Quotes</h2>" + "".join(f"<li>quote number {i}<ul>" for i in range(levels))
                    + "</ul></li>" * levels + "</body></html>", encoding="utf-8")
    return path


def srt_file(size: int, folder: Path) -> Path:
    cue = "{n}\n{a} --> {b}\nDIANE: Hello, is anybody there? I can hear you breathing.\n"
    rows, n, total = [], 0, 0
    while total < size - 200:
        t = n * 2
        row = cue.format(n=n + 1, a=f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d},000",
                         b=f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d},900")
        rows.append(row)
        total += len(row) + 1
        n += 1
    path = folder / f"big-{size}.srt"
    path.write_text("\n".join(rows), encoding="utf-8")
    return path


def run_python(code: str, *args: str) -> tuple[int, float, float, float, str]:
    """(exit code, wall s, CPU s, peak MB, last output line) of `python -c code args` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    lines = out.strip().splitlines()
    return (os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
            lines[-1] if lines else "")


def run_one(kind: str, src: Path, project: Path) -> tuple[int, float, float, float, str]:
    """(exit code, wall s, CPU s, peak MB, last stderr line) of one `extract` in a fresh process."""
    out = project / "out" / f"{src.stem}.jsonl"
    argv = [sys.executable, "-m", "pipeline.cli", "extract", kind.split("-")[0], str(src), "--work", "big", "-o", str(out)]
    if kind == "novel-en":
        argv += ["--language", "en"]
    elif kind == "novel-zh":
        argv += ["--language", "zh"]
    env = dict(os.environ, ROLECORPUS_ROOT=str(project), ROLECORPUS_CACHE=str(project / ".cache"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    lines = err.strip().splitlines()
    written = sum(1 for _ in open(out, encoding="utf-8")) if out.exists() else 0
    if out.exists():
        out.unlink()
    last = lines[-1] if lines else ""
    return proc.returncode, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, f"{written} lines|{last}"


def _lines_written(message: str) -> str:
    return message.split(" lines|", 1)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,2,4,7.9", help="MB, comma-separated")
    ap.add_argument("--kinds", default="novel-en,novel-zh,script,wiki-html,wiki-text")
    ap.add_argument("--limit-check", action="store_true", help="also run at the size limit and just above it")
    ap.add_argument("--nested", default="", help="levels of nested <li><ul> pages, comma-separated (5000,10000,50000)")
    ap.add_argument("--subtitles", default="", help="MB of SRT files to read, comma-separated (1,7.9)")
    args = ap.parse_args()
    limit = max_text_bytes()
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        project = folder / "project"
        (project / "configs").mkdir(parents=True)
        (project / "configs" / "pipeline.yaml").write_text((ROOT / "configs" / "pipeline.yaml").read_text())
        print(f"{'kind':10s} {'MB':>6s} {'wall s':>7s} {'CPU s':>7s} {'peak MB':>8s} {'MB/CPU s':>9s} {'lines':>9s}  exit")
        for kind in filter(None, args.kinds.split(",")):
            sizes = [int(float(s) * 1_000_000) for s in args.sizes.split(",")]
            if args.limit_check:
                sizes += [limit - 1000, limit + 1_000_000]
            for size in sizes:
                src = make_input(kind, size, folder)
                mb = src.stat().st_size / 1e6
                code, wall, cpu, peak, last = run_one(kind, src, project)
                src.unlink()
                note = "" if code == 0 else f"  {last.split('|', 1)[1][:90]}"
                print(f"{kind:10s} {mb:6.2f} {wall:7.1f} {cpu:7.1f} {peak:8.0f} {mb / max(cpu, 1e-9):9.2f} "
                      f"{_lines_written(last) if code == 0 else '-':>9s}  {code}{note}", flush=True)
        for levels in filter(None, args.nested.split(",")):
            src = nested_page(int(levels), folder)
            mb = src.stat().st_size / 1e6
            code, wall, cpu, peak, last = run_one("wiki-html", src, project)
            print(f"{'nested ' + levels:10s} {mb:6.2f} {wall:7.1f} {cpu:7.1f} {peak:8.0f} {mb / max(cpu, 1e-9):9.2f} "
                  f"{'-':>9s}  {code}  {last.split('|', 1)[1][:60]}", flush=True)
        for size in filter(None, args.subtitles.split(",")):
            src = srt_file(int(float(size) * 1_000_000), folder)
            mb = src.stat().st_size / 1e6
            code, wall, cpu, peak, last = run_python(
                "import sys; from extractors.tv.subtitles import read_cues; print(len(read_cues(sys.argv[1])))",
                str(src))
            print(f"{'srt':10s} {mb:6.2f} {wall:7.1f} {cpu:7.1f} {peak:8.0f} {mb / max(cpu, 1e-9):9.2f} "
                  f"{last if code == 0 else '-':>9s}  {code}", flush=True)


if __name__ == "__main__":
    main()

"""The LLM stages with a real model (issue: a real model in the loop): time, calls, tokens and the quality figures
of `profile`, `synth questions`, `annotate emotions`, `eval chat` (rag vs the offline retrieval bot) and `ask`
for one sample character, each run twice (the rerun must make no call).

Needs an endpoint in the environment (`eval "$(make -s llm)"` gives the local 1.5B model) and the built sample
(`make sample`: data/characters/<id>; else the character's package is built in the copy). It works on a copy of
the project under --root (default ~/.cache/rolecorpus/llm-bench/<model>), so the repository's files are not touched
and a second run is answered from that copy's cache. Without an endpoint it says so and exits 0.

    python benchmarks/llm_stages.py [--character rosalind] [--stages profile,emotions,eval,ask,synth] [--n 5]
        [--stories N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STAGES = ("profile", "emotions", "eval", "ask", "synth")
QUESTIONS = {"rosalind": ("Who are you in love with?", "Orlando"), "liubei": ("兄长此去，何日归来？", "关羽")}


def project_copy(root: Path, cid: str) -> Path:
    """A copy of the project's configs and samples under `root`, with the character's package: copied from the
    repository's built data (`make sample`) when there, else built in the copy (build-lines, segment, embed,
    package: no LLM)."""
    if not (root / "configs").is_dir():
        root.mkdir(parents=True, exist_ok=True)
        shutil.copytree(REPO / "configs", root / "configs")
        for sub in ("samples", "lines", "stories", "embeddings", "characters"):
            if (REPO / "data" / sub).is_dir():
                shutil.copytree(REPO / "data" / sub, root / "data" / sub)
    if not (root / "data/characters" / cid).is_dir():
        from pipeline.settings import load_settings

        spec = load_settings(root / "configs/pipeline.yaml").characters.get(cid)
        if spec is None:
            sys.exit(f"error: configs/pipeline.yaml: no character {cid!r}")
        steps = [("build-lines", w) for w in spec.works()]
        steps += [("segment", "--character", cid), ("embed", cid), ("package", cid)]
        for step in steps:
            p, _ = cli(root, *step)
            if p.returncode:
                sys.exit(f"error: rolecorpus {' '.join(step)}: {p.stderr.strip()[-300:]}")
    return root


def cli(root: Path, *args: str) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ, ROLECORPUS_ROOT=str(root), ROLECORPUS_CACHE=str(root / ".cache"), PYTHONPATH=str(REPO))
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=root, env=env, capture_output=True,
                       text=True)
    return p, time.monotonic() - t0


def metrics(root: Path, name: str) -> dict:
    try:
        return json.loads((root / "metrics" / f"{name}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def twice(root: Path, name: str | None, *args: str) -> dict:
    """Run a stage, then again: wall times, calls, tokens, and the rerun's calls (must be 0)."""
    p, secs = cli(root, *args)
    first = metrics(root, name) if name else {}
    out = {"command": "rolecorpus " + " ".join(args), "ok": p.returncode == 0, "seconds": round(secs, 1),
           "stdout": p.stdout.strip()[-600:], "error": p.stderr.strip().splitlines()[-1:] if p.returncode else []}
    if name:
        out.update(calls=first.get("calls"), tokens_in=first.get("tokens_in"), tokens_out=first.get("tokens_out"),
                   llm_seconds=first.get("seconds"))
        if p.returncode == 0:
            p2, secs2 = cli(root, *args)
            out.update(rerun_seconds=round(secs2, 1), rerun_calls=metrics(root, name).get("calls"))
    return out


def profile_figures(root: Path, cid: str) -> dict:
    """How the draft agrees with the counted facts: the people it describes are the people counted."""
    from pipeline.profile import is_untouched_draft

    path = root / "configs/profiles" / f"{cid}.md"
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    people = re.findall(r"^- \*\*(.+?)\*\* \((\d+)\)(.*)$", text, flags=re.M)
    described = [p for p in people if p[2].strip(": ").strip()]
    never = text.split("never says", 1)[-1] if "never says" in text else ""
    return {"untouched_draft": is_untouched_draft(text), "people_counted": len(people),
            "people_described": len(described), "never_says_items": never.count("\n- "),
            "identity_chars": len(text.split("## Identity", 1)[-1].split("##", 1)[0].strip())}


def emotion_figures(root: Path, cid: str) -> dict:
    path = root / "data/emotions" / f"{cid}.jsonl"
    if not path.is_file():
        return {}
    recs = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    m = metrics(root, f"llm_emotions_{cid}")
    return {"lines": len(recs), "valid_share": round(1 - sum(1 for r in recs if r.get("fallback")) / len(recs), 3),
            "retried_batches": m.get("retried_batches"), "distribution": m.get("distribution")}


def synth_figures(root: Path, cid: str, stdout: str) -> dict:
    m = re.search(r"(\d+) questions \((\d+) of (\d+) dropped", stdout)
    if not m:
        return {}
    kept, dropped, proposed = map(int, m.groups())
    return {"kept": kept, "proposed": proposed, "near_duplicates": dropped}


def dialogue_figures(root: Path, cid: str) -> dict:
    """The training files as `datasets` loads them: rows, synthetic share, answers left empty or off-character."""
    out: dict = {}
    folder = root / "data/train" / cid
    try:
        from datasets import load_dataset
    except ImportError:
        return {"datasets": "not installed"}
    for name in ("chat.jsonl", "chatharuhi.jsonl"):
        if (folder / name).is_file():
            ds = load_dataset("json", data_files=str(folder / name), split="train")
            out[name] = {"rows": ds.num_rows, "columns": ds.column_names}
    rows = [json.loads(x) for x in (folder / "chatharuhi.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()] \
        if (folder / "chatharuhi.jsonl").is_file() else []
    synthetic = [r for r in rows if not r.get("original")]
    if synthetic:
        replies = [str(r.get("response") or r.get("answer") or "") for r in synthetic]
        out["synthetic"] = len(synthetic)
        out["synthetic_replies_unique"] = len(set(replies))
        out["synthetic_reply_words_mean"] = round(sum(len(x.split()) for x in replies) / len(replies), 1)
    return out


def print_result(stage: str, r: dict) -> None:
    print(f"== {stage}: {r['command']}")
    for k, v in r.items():
        if k not in ("command",) and v not in (None, [], ""):
            print(f"   {k}: {v}")
    sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--character", default="rosalind")
    ap.add_argument("--stages", default=",".join(STAGES))
    ap.add_argument("--n", type=int, default=5, help="held-out exchanges eval chat scores")
    ap.add_argument("--root", type=Path)
    ap.add_argument("--stories", type=int, help="synth: ask questions from the first N stories only (a trial run)")
    args = ap.parse_args()
    if not (os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY")):
        print("llm_stages: no LLM endpoint configured (eval \"$(make -s llm)\" starts a local one): skipped")
        return
    sys.path.insert(0, str(REPO))
    cid, model = args.character, os.environ.get("ROLECORPUS_LLM_MODEL", "model")
    root = project_copy((args.root or Path.home() / ".cache/rolecorpus/llm-bench" / model).resolve(), cid)
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    results: dict[str, dict] = {}
    for stage in stages:
        if stage == "profile":
            r = twice(root, f"llm_profile_{cid}", "profile", cid, "--force")
            r["figures"] = profile_figures(root, cid)
        elif stage == "emotions":
            r = twice(root, f"llm_emotions_{cid}", "annotate", "emotions", cid)
            r["figures"] = emotion_figures(root, cid)
        elif stage == "synth":
            extra = ["--stories", str(args.stories)] if args.stories else []
            r = twice(root, f"llm_synth_questions_{cid}", "synth", "questions", cid, *extra)
            r["figures"] = synth_figures(root, cid, r["stdout"])
            results["synth questions"] = r
            print_result("synth questions", r)
            r = twice(root, f"llm_synth_dialogues_{cid}", "synth", "dialogues", cid)
            r["figures"] = dialogue_figures(root, cid)
            stage = "synth dialogues"
        elif stage == "eval":
            r = twice(root, f"llm_eval_chat_{cid}", "eval", "chat", cid, "--bot", "rag", "--bot", "retrieval",
                      "--n", str(args.n))
            r["figures"] = {k: v for k, v in metrics(root, f"eval_chat_{cid}").items() if k in ("rag", "retrieval")}
        elif stage == "ask":
            q, who = QUESTIONS.get(cid, ("Who are you?", "User"))
            r = twice(root, None, "ask", cid, q, "--as", who)
        else:
            sys.exit(f"error: unknown stage {stage!r} (known: {', '.join(STAGES)})")
        results[stage] = r
        print_result(stage, r)
    (root / "llm_stages.json").write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n")
    print(f"(all figures: {root / 'llm_stages.json'})")


if __name__ == "__main__":
    main()

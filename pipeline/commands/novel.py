"""CLI for novels: `rolecorpus extract novel` (quotes -> lines with speakers) and
`rolecorpus eval attribution` (score the attribution against PDNC gold)."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from extractors.errors import InputError
from extractors.novel.attribution import DEFAULT_MIN_CONFIDENCE

from ..cli_app import eval_app, extract_app
from ..paths import Project


MIN_CONFIDENCE_HELP = (
    "The hold: a speaker guess whose confidence is below this is not emitted but left unresolved (with --llm, "
    "sent to the LLM; the guess fills only what the LLM leaves). Confidences are calibrated: the share of such "
    "guesses that were right on the PDNC dev novels (a name tag ~0.99, a turn-taking guess 0.3-0.95). Default "
    f"{DEFAULT_MIN_CONFIDENCE}: the lowest hold that keeps precision >= 0.91 on every dev novel (>= 0.90 "
    "leave-one-book-out); lower it for more coverage and less precision, 0 emits every guess.")


class LLMChoice(str, Enum):
    none = "none"
    openai = "openai"


def _characters_for(project: Project, work: str, path: Path, text: str, language: str | None):
    """Configured characters of this work (series is the work id, or its sources name the work or the
    input file); when none is configured, the cast discovered in the text (`characters discover`).
    A character configured for another work is never used: its names would match strangers here."""
    from extractors.characters import load_characters
    from extractors.novel.cast import discover_cast
    from extractors.novel.extract import detect_language

    chars = load_characters(project.configs)
    mine = [c for c in chars.values()
            if c.series == work or work in c.sources or any(Path(s).name == path.name for s in c.sources)]
    if mine:
        return mine, False
    lang = language or detect_language(text)
    return [m.to_character(work, lang) for m in discover_cast(text, lang)], True


def llm_metrics_path(project: Project, work: str) -> Path:
    """Where the LLM pass writes its running counts (calls, tokens, cache hits) for a work."""
    return project.metrics / f"llm_{work}.json"


def novel_metrics_path(project: Project, work: str) -> Path:
    """The DVC metrics file of `extract novel` for a work (declared in dvc.yaml's lines_novel stage)."""
    return project.metrics / f"novel_{work}.json"


def _llm_kwargs(project: Project, work: str) -> dict:
    kw = {"cache_dir": project.cache / "llm", "metrics_path": llm_metrics_path(project, work), "progress": True}
    ex = project.configs / "novel_examples" / f"{work}.yaml"
    if ex.exists():
        kw["examples_path"] = ex
    return kw


def _build_llm(choice: LLMChoice):
    if choice is LLMChoice.none:
        return None
    from extractors.llm import chat_model_from_env, llm_configured

    if not llm_configured():
        raise InputError("--llm openai needs OPENAI_BASE_URL and/or OPENAI_API_KEY in the environment")
    return chat_model_from_env()


@extract_app.command("novel")
def extract_novel_cmd(
    path: Path = typer.Argument(..., help="The novel as a plain-text file (UTF-8, GB18030/GBK, Big5 or UTF-16)."),
    work: str = typer.Option(..., "--work", help="Work id written into every line (and used to pick the characters)."),
    output: Path = typer.Option(..., "-o", "--output", help="Where to write lines.jsonl."),
    llm: LLMChoice = typer.Option(LLMChoice.none, "--llm", help="none: rules only; openai: send the quotes the rules "
                                  "left unresolved to an OpenAI-compatible endpoint (OPENAI_BASE_URL/OPENAI_API_KEY)."),
    language: Optional[str] = typer.Option(None, "--language", help="en or zh (default: detected from the text)."),
    encoding: Optional[str] = typer.Option(None, "--encoding", help="Text encoding (default: detected), e.g. gb18030, big5."),
    min_confidence: float = typer.Option(DEFAULT_MIN_CONFIDENCE, "--min-confidence", min=0.0, max=1.0,
                                         help=MIN_CONFIDENCE_HELP),
) -> None:
    """Find every quotation of a novel, attribute its speaker (rules first, the LLM only for the rest)
    and write dialogue/narration line records. The characters are those configured for --work; when
    none is, the cast is discovered in the text (see `rolecorpus characters discover`)."""
    from tqdm import tqdm

    from extractors.novel.extract import extract_novel, read_novel, summarise
    from extractors.records import write_lines

    if language is not None and language not in ("en", "zh"):
        raise InputError(f"--language must be en or zh, not {language!r}")
    project = Project.current()
    text = read_novel(path, encoding)
    chars, discovered = _characters_for(project, work, path, text, language)
    model = _build_llm(llm)
    bar = tqdm(desc="lines", unit="line", file=sys.stderr, disable=not sys.stderr.isatty())
    lines = extract_novel(path, work, chars, language=language, encoding=encoding, llm=model,
                          llm_kwargs=_llm_kwargs(project, work) if model is not None else None,
                          progress=lambda n: bar.update(n - bar.n), text=text, min_confidence=min_confidence)
    bar.close()
    write_lines(output, lines)
    s = summarise(lines)
    write_novel_metrics(project, work, s, llm_metrics_path(project, work) if model is not None else None)
    ev = ", ".join(f"{k} {v}" for k, v in sorted(s["by_evidence"].items()))
    typer.echo(f"{output}: {s['lines']} lines, {s['quotes']} quotations, {s['attributed']} attributed"
               f" ({ev or 'none'}); {len(chars)} character(s) {'discovered in the text' if discovered else 'configured'}")


def write_novel_metrics(project: Project, work: str, summary: dict, llm_metrics: Path | None) -> None:
    """Write `metrics/novel_<work>.json`: quotation and attribution counts, and the LLM pass's calls,
    tokens in/out and cache hits (all zero when no LLM was used), so `dvc metrics show` lists them."""
    from extractors.atomic import atomic_write_text

    llm = {"calls": 0, "cache_hits": 0, "tokens_in": 0, "tokens_out": 0, "chunks_sent": 0, "quotes_filled": 0}
    if llm_metrics is not None and llm_metrics.exists():
        llm.update(json.loads(llm_metrics.read_text(encoding="utf-8")))
    q = summary["quotes"]
    out = {"quotes": q, "attributed": summary["attributed"],
           "coverage": round(summary["attributed"] / q, 4) if q else 0.0,
           "by_evidence": summary["by_evidence"], "llm": llm}
    atomic_write_text(novel_metrics_path(project, work), json.dumps(out, indent=2) + "\n")


def format_table(name: str, res: dict) -> str:
    rows = [("overall", res["overall"])] + list(res["by_type"].items())
    out = [f"{name}", f"  {'':10s} {'quotes':>6s} {'accuracy':>8s} {'coverage':>8s} {'precision':>9s}"]
    for k, r in rows:
        out.append(f"  {k:10s} {r['quotes']:6d} {r['accuracy']:8.3f} {r['coverage']:8.3f} {r['precision']:9.3f}")
    if res["confusions"]:
        out.append("  most confused (gold -> predicted): " +
                   "; ".join(f"{c['gold']} -> {c['predicted']} ({c['count']})" for c in res["confusions"][:8]))
    return "\n".join(out)


@eval_app.command("attribution")
def eval_attribution(
    gold: Path = typer.Option(..., "--gold", help="A PDNC novel directory (novel_text.txt, character_info.csv, "
                              "quotation_info.csv), or a directory of them: then one row per book."),
    llm: LLMChoice = typer.Option(LLMChoice.none, "--llm", help="none: rules only; openai: rules + LLM for the rest."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the scores as JSON here."),
    min_confidence: float = typer.Option(DEFAULT_MIN_CONFIDENCE, "--min-confidence", min=0.0, max=1.0,
                                         help=MIN_CONFIDENCE_HELP),
) -> None:
    """Run the novel extractor on PDNC novels with their character lists and score the speakers:
    accuracy overall and by quote type, coverage, precision, most-confused pairs. Gold speakers
    written as an alias are resolved through character_info.csv."""
    from extractors.atomic import atomic_write_text

    if not gold.is_dir():
        raise InputError("not a directory (expected a PDNC novel directory)", gold)
    books = [gold] if (gold / "novel_text.txt").exists() else sorted(d for d in gold.iterdir() if (d / "novel_text.txt").exists())
    if not books:
        raise InputError("no novel_text.txt here or in its subdirectories (expected PDNC novel directories)", gold)
    model = _build_llm(llm)
    results = [_score_book(book, model, min_confidence) for book in books]
    for res in results:
        typer.echo(format_table(f"{res['novel']} ({'rules' if model is None else 'rules + llm'})", res))
    if len(results) > 1:
        typer.echo(book_table(results))
    if json_out:
        out = results[0] if len(results) == 1 else {"books": results}
        atomic_write_text(json_out, json.dumps(out, indent=2, ensure_ascii=False) + "\n")


def _score_book(book: Path, model, min_confidence: float) -> dict:
    from extractors.novel import evaluate, pdnc
    from extractors.novel.extract import extract_novel

    project = Project.current()
    lines = extract_novel(book / "novel_text.txt", book.name, pdnc.load_characters(book), language="en", llm=model,
                          llm_kwargs=_llm_kwargs(project, book.name) if model is not None else None,
                          min_confidence=min_confidence)
    res = evaluate.score(pdnc.load_quotes(book), lines)
    res["novel"] = book.name
    res["llm"] = "none" if model is None else "openai"
    return res


def book_table(results: list[dict]) -> str:
    """One row per book: accuracy, coverage, precision, and accuracy of each quote type."""
    out = [f"{'book':28s} {'quotes':>6s} {'acc':>6s} {'cov':>6s} {'prec':>6s} {'Expl':>6s} {'Anap':>6s} {'Impl':>6s}"]
    for r in results:
        o, t = r["overall"], r["by_type"]
        out.append(f"{r['novel'][:28]:28s} {o['quotes']:6d} {o['accuracy']:6.3f} {o['coverage']:6.3f} {o['precision']:6.3f} "
                   + " ".join(f"{t[k]['accuracy']:6.3f}" for k in ("Explicit", "Anaphoric", "Implicit")))
    return "\n".join(out)

"""`rolecorpus eval attribution`: score the novel extractor's speakers against PDNC gold.
(`rolecorpus extract novel` is the generic extract command, pipeline/commands/extract.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from extractors.errors import InputError
from extractors.ids import check_id, check_output
from extractors.novel.attribution import DEFAULT_MIN_CONFIDENCE
from extractors.novel.extractor import MIN_CONFIDENCE_HELP, LLMChoice

from ..cli_app import eval_app
from ..models import PipelineModels
from ..paths import Project


def _llm_kwargs(project: Project, work: str) -> dict:
    kw = {"cache_dir": project.cache / "llm", "metrics_path": project.metrics / f"llm_{check_id(work, 'book')}.json",
          "progress": True}
    ex = project.configs / "novel_examples" / f"{work}.yaml"
    if ex.exists():
        kw["examples_path"] = ex
    return kw


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

    if json_out is not None:
        check_output(json_out, "--json")
    if not gold.is_dir():
        raise InputError("not a directory (expected a PDNC novel directory)", gold)
    books = [gold] if (gold / "novel_text.txt").exists() else sorted(d for d in gold.iterdir() if (d / "novel_text.txt").exists())
    if not books:
        raise InputError("no novel_text.txt here or in its subdirectories (expected PDNC novel directories)", gold)
    model = PipelineModels().chat_model() if llm is LLMChoice.openai else None
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

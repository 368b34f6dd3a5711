"""`rolecorpus eval attribution`: score the novel extractor's speakers against PDNC gold.
(`rolecorpus extract novel` is the generic extract command, pipeline/commands/extract.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from extractors.errors import InputError
from extractors.ids import check_id, check_output
from extractors.novel import LLMChoice, LLMKeep

from ..cli_app import eval_app
from ..extraction import llm_limits
from ..models import PipelineModels
from ..paths import Project
from ..settings import load_settings


def _llm_kwargs(project: Project, work: str) -> dict:
    kw = {"cache_dir": project.cache / "llm", "metrics_path": project.metrics / f"llm_{check_id(work, 'book')}.json",
          "progress": True, **llm_limits(load_settings(project.pipeline_yaml))}
    ex = project.configs / "novel_examples" / f"{work}.yaml"
    if ex.exists():
        kw["examples_path"] = ex
    return kw


def format_table(name: str, res: dict) -> str:
    rows = [("overall", res["overall"])] + list(res["by_type"].items())
    out = [f"{name}", f"  {'':10s} {'quotes':>6s} {'accuracy':>8s} {'coverage':>8s} {'precision':>9s}"]
    for k, r in rows:
        out.append(f"  {k:10s} {r['quotes']:6d} {r['accuracy']:8.3f} {r['coverage']:8.3f} {r['precision']:9.3f}")
    return "\n".join(out + _confused(res["confusions"]))


def _confused(confusions: list[dict]) -> list[str]:
    """The most-confused line of a score table (none when nothing was confused)."""
    return ["  most confused (gold -> predicted): " + "; ".join(
        f"{c['gold']} -> {c['predicted']} ({c['count']})" for c in confusions[:8])] if confusions else []


@eval_app.command("attribution")
def eval_attribution(
    gold: Path = typer.Option(..., "--gold", help="A PDNC novel directory (novel_text.txt, character_info.csv, "
                              "quotation_info.csv), or a directory of them: then one row per book; or a directory "
                              "of a Chinese novel (one .txt) and its speech-cue labels (label_*.txt, one "
                              "{'context': ..., 'speaker': ...} a line), scored with the cast found in the text."),
    llm: LLMChoice = typer.Option(LLMChoice.none, "--llm", help="none: rules only; openai: rules + LLM for the rest."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the scores as JSON here."),
    llm_keep: LLMKeep = typer.Option(LLMKeep.agree, "--llm-keep", help="With --llm openai: agree keeps a speaker "
                                     "the LLM names only where it is the rules' held guess; all keeps every one."),
    min_confidence: Optional[float] = typer.Option(None, "--min-confidence", min=0.0, max=1.0, show_default=False,
                                                   help="The hold: a guess less sure than this is left "
                                                   "unattributed (default: the book's own; see docs/novel.md)."),
) -> None:
    """Score the novel extractor's speakers against gold (PDNC novels, or a Chinese novel's speech cues).

    Prints accuracy overall and by quote type, coverage, precision and the most-confused pairs. PDNC gold speakers
    written as an alias are resolved through character_info.csv; a novel with speech-cue labels (红楼梦) is scored
    with the cast found in the text, as a user with nothing configured gets it."""
    from extractors.atomic import atomic_write_text

    if json_out is not None:
        check_output(json_out, "--json")
    if not gold.is_dir():
        raise InputError("not a directory (expected a PDNC novel directory)", gold)
    labels = [] if (gold / "novel_text.txt").exists() else sorted(gold.glob("label_*.txt"))
    books = [gold] if (gold / "novel_text.txt").exists() else sorted(d for d in gold.iterdir() if (d / "novel_text.txt").exists())
    if not books and not labels:
        raise InputError("no novel_text.txt here or in its subdirectories (expected PDNC novel directories), "
                         "and no label_*.txt", gold)
    model = None
    if llm is LLMChoice.openai:
        settings = load_settings(Project.current().pipeline_yaml)
        model = PipelineModels(llm=settings.llm.model_dump(exclude_unset=True)).chat_model()
    if labels:
        results, many = _eval_cues(gold, labels, model, min_confidence, llm_keep.value), "label_files"
    else:
        results, many = [_score_book(book, model, min_confidence, llm_keep.value) for book in books], "books"
        for res in results:
            typer.echo(format_table(f"{res['novel']} ({'rules' if model is None else 'rules + llm'})", res))
        if len(results) > 1:
            typer.echo(book_table(results))
    if json_out:
        out = results[0] if len(results) == 1 else {many: results}
        atomic_write_text(json_out, json.dumps(out, indent=2, ensure_ascii=False) + "\n")


def _eval_cues(folder: Path, label_files: list[Path], model, min_confidence: float | None,
               keep: str = "agree") -> list[dict]:
    """A novel (the one .txt that is no label file) scored against each label file, with the cast found in it."""
    from extractors.novel import discover_cast
    from extractors.novel import load_cue_labels as load_labels, score_cues as score
    from extractors.novel import detect_language, extract_novel, read_novel

    novels = sorted(p for p in folder.glob("*.txt") if not p.name.startswith("label_") and p.name.lower() != "readme.txt")
    if len(novels) != 1:
        raise InputError(f"expected one novel .txt beside the label files, found {len(novels)}", folder)
    labels = {p: load_labels(p) for p in label_files}  # every label file is read before the extraction is paid for
    novel = novels[0]
    text = read_novel(novel)
    lang = detect_language(text)
    cast = discover_cast(text, lang, by_lines=False)
    lines = extract_novel(novel, novel.stem, [m.to_character(novel.stem, lang) for m in cast], language=lang, text=text,
                          llm=model, llm_kwargs=_llm_kwargs(Project.current(), novel.stem) if model else None,
                          min_confidence=min_confidence, llm_keep=keep)
    results = []
    for path, labs in labels.items():
        r = {k: v for k, v in score(text, labs, lines, cast).items() if k not in ("rows", "form")}
        results.append({"novel": novel.name, "labels": path.name, "llm": "none" if model is None else "openai", **r})
        typer.echo(format_cues(results[-1]))
    return results


def format_cues(r: dict) -> str:
    out = [f"{r['novel']} against {r['labels']} ({'rules' if r['llm'] == 'none' else 'rules + llm'}): "
           f"{r['cues']} of {r['n_labels']} cues found in the text",
           f"  with a gold speaker {r['gold']}: accuracy {r['accuracy']:.3f}  coverage {r['coverage']:.3f}  "
           f"precision {r['precision']:.3f}; labelled nobody {r['none']}, given a speaker {r['none_given']}"]
    return "\n".join(out + _confused(r["confusions"]))


def _score_book(book: Path, model, min_confidence: float | None, keep: str = "agree") -> dict:
    from extractors.novel import load_pdnc_characters, load_pdnc_quotes, score_quotes
    from extractors.novel import extract_novel

    project = Project.current()
    lines = extract_novel(book / "novel_text.txt", book.name, load_pdnc_characters(book), language="en", llm=model,
                          llm_kwargs=_llm_kwargs(project, book.name) if model is not None else None,
                          min_confidence=min_confidence, llm_keep=keep)
    res = score_quotes(load_pdnc_quotes(book), lines)
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

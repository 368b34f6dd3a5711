"""Kor extraction for what the rules left: the LLM names the speakers of unresolved quotations.

Only the chunks that hold a quotation the rules could not attribute are sent (`llm.chunks`), with the rule results
shown to the model; every answer is cached, validated and mapped back to its quotation (`llm.match`). Usage and the
steps: docs/novel.md, "The LLM pass".
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import replace
from pathlib import Path

from extractors.atomic import atomic_write_text
from extractors.characters import AliasResolver, Character, normalize_name
from extractors.records import Line
from .ask import CallTimeout, ChunkAsker, Metrics, UnusableAnswer, model_name  # noqa: F401  (re-exported)
from .cache import AnswerCache
from .chunks import Chunk, make_chunks, render_chunk
from .match import match_rows
from .schema import NO_SPEAKER_ROLES, build_chain, resolve_examples, text_language

DEFAULT_CONFIDENCE = 0.7


def _clean_role(role: str) -> str:
    role = (role or "").strip()
    if role.startswith("[") and role.endswith("]"):
        role = role[1:-1].strip()
    return role


def _resolve(resolver: AliasResolver, role: str) -> str | None:
    """Configured id for the model's name: exact alias, else the one character whose name contains it."""
    cid = resolver.resolve(role)
    if cid:
        return cid
    n = normalize_name(role)
    if not n:
        return None
    hits = {c for form, c in resolver.surface_forms().items() if f" {n} " in f" {form} "}
    return hits.pop() if len(hits) == 1 else None


def write_metrics(path: str | Path, metrics: Metrics) -> None:
    atomic_write_text(path, json.dumps(metrics.to_dict(), indent=2) + "\n")


def llm_attribute(
    lines: list[Line],
    text: str,
    characters: list[Character],
    llm,
    cache_dir: Path,
    *,
    chunk_tokens: int = 1500,
    examples: list | None = None,
    examples_path: Path | None = None,
    concurrency: int = 4,
    metrics_path: Path | None = None,
    max_retries: int = 2,
    timeout: float = 60.0,
    transient_retries: int = 5,
    backoff: float = 1.0,
    confidence: float = DEFAULT_CONFIDENCE,
    progress: bool = False,
) -> list[Line]:
    """Fill the speaker of unresolved dialogue lines with Kor + `llm` (see the module docstring).

    Returns a new list: lines the model attributed are copies with speaker/name/confidence/evidence
    set; every other line is returned as given. Raises InputError naming the chunk when the model never answers,
    or when every chunk's answer stays malformed (one chunk's alone is skipped: `_run_all`).
    """
    if isinstance(characters, dict):
        characters = list(characters.values())
    metrics = Metrics()
    lines = list(lines)
    try:
        todo = _chunks_to_ask(text, lines, chunk_tokens, metrics)
        if not todo:
            return lines
        resolver = AliasResolver(characters)
        chain = build_chain(llm, characters, resolve_examples(examples, examples_path, text_language(text)))
        asker = ChunkAsker(
            llm, chain, AnswerCache(cache_dir), metrics, source=lines[0].source, max_retries=max_retries,
            transient_retries=transient_retries, backoff=backoff, timeout=timeout,
        )
        rendered = {c.number: render_chunk(text, c, lines, lambda ln: resolver.display(ln.speaker, ln.name))
                    for c in todo}
        answers: dict[int, list[dict]] = {}
        _run_all(asker, todo, rendered, answers, max(1, int(concurrency)), progress)
        return _fill(lines, todo, answers, resolver, confidence, metrics)
    finally:
        if metrics_path is not None:
            write_metrics(metrics_path, metrics)


def _chunks_to_ask(text: str, lines: list[Line], chunk_tokens: int, metrics: Metrics) -> list[Chunk]:
    """The chunks holding an unresolved quotation (chunk counts go to `metrics`)."""
    chunks = make_chunks(text, lines, chunk_tokens)
    metrics.chunks_total = len(chunks)
    todo = [c for c in chunks if c.unresolved]
    metrics.quotes_unresolved = sum(len(c.unresolved) for c in todo)
    metrics.chunks_sent = len(todo)
    return todo


def _fill(lines: list[Line], todo: list[Chunk], answers: dict, resolver: AliasResolver, confidence: float,
          metrics: Metrics) -> list[Line]:
    """Copies of the lines with each answered quotation's speaker set (or its unmatched name kept)."""
    out = list(lines)
    for c in todo:
        rows = answers[c.number]
        found = match_rows(rows, [(i, lines[i].text) for i in c.line_ids])
        for i in c.unresolved:
            if i not in found:
                metrics.quotes_unanswered += 1
                continue
            k, score = found[i]
            role = _clean_role(rows[k].get("role", ""))
            if not role or normalize_name(role) in NO_SPEAKER_ROLES or role in NO_SPEAKER_ROLES:
                metrics.quotes_no_speaker += 1
                continue
            cid = _resolve(resolver, role)
            extra = {**lines[i].extra, "llm_chunk": c.number, "llm_match": round(score, 1)}
            if cid is None:
                metrics.names_unmatched += 1
                out[i] = replace(lines[i], extra={**extra, "llm_name": role})
                continue
            out[i] = replace(lines[i], speaker=cid, name=role, confidence=confidence, evidence="llm", extra=extra)
            metrics.quotes_filled += 1
    return out


def _run_all(asker: ChunkAsker, todo: list[Chunk], rendered: dict, answers: dict, concurrency: int, progress: bool):
    """Ask for every chunk in a thread pool; stop at the first InputError (cached answers stay), except a chunk whose
    answer stayed unusable: that chunk's quotations are left to the rules (`chunks_skipped`, a warning), unless every
    chunk's was (then the model does not follow the format at all, and that is the error)."""
    from tqdm import tqdm

    bar = tqdm(total=len(todo), desc="LLM chunks", unit="chunk", leave=False,
               disable=not (progress and sys.stderr.isatty()))  # a log or a pipe gets no bar before an error
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="kor")
    skipped: list[UnusableAnswer] = []
    try:
        futures = {pool.submit(asker.ask, c, rendered[c.number]): c for c in todo}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for f in done:
                try:
                    answers[futures[f].number] = f.result()  # re-raises the chunk's InputError
                except UnusableAnswer as e:
                    skipped.append(e)
                    answers[futures[f].number] = []
                    asker.metrics.add(chunks_skipped=1)
                    print(f"warning: {e}: its quotations are left to the rules", file=sys.stderr)
                bar.update(1)
        if skipped and len(skipped) == len(todo):
            raise skipped[0]
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        bar.close()

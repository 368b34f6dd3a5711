"""Kor extraction for what the rules left: the LLM names the speakers of unresolved quotations.

The ChatHaruhi paper ran Kor over whole novels. Here only the chunks that hold a quotation the
rules could not attribute are sent, with the rule results shown to the model, and every answer
is cached, validated and mapped back to the quotation it is about.

Usage::

    from extractors.llm import chat_model_from_env
    from extractors.novel.kor_llm import llm_attribute

    lines = llm_attribute(
        lines,                      # ALL lines of the novel, in order; dialogue with speaker None = unresolved;
                                    # each line's extra has "start"/"end" character offsets into `text`
        text,                       # the novel text the offsets refer to
        list(characters.values()),  # Character configs: names + aliases are the candidate speakers
        chat_model_from_env(),      # any LangChain chat model (tests: langchain_core fake chat models)
        project.cache / "llm",                  # one JSON file per answered call
        examples_path=project.configs / "novel_examples" / f"{work}.yaml",  # optional few-shot override
        metrics_path=project.metrics / f"llm_{work}.json",  # running counts; `extract novel` folds them
                                                             # into metrics/novel_<work>.json (DVC metrics)
    )

How it works:

1. `llm_chunks.make_chunks` cuts the text at paragraph ends into chunks of at most `chunk_tokens`
   tokens (tiktoken cl100k_base); only chunks with an unresolved quotation go further.
2. Each chunk is rendered with a mark before every quotation: `[Elizabeth Bennet] "…"` when the rules
   know the speaker, `[?] "…"` when the model must find it. The instruction lists the candidate names
   (each character's name and aliases).
3. Kor builds the prompt (the paper's schema: role / action / dialogue, role `narrator`/`scene` and
   dialogue `-` when nobody speaks; few-shot examples from `llm_schema`, English and Chinese built in,
   replaceable per work, see `llm_schema` for the YAML format) and parses the answer (Kor's JSON
   encoder in `<json>` tags, rows validated with a pydantic model through Kor's validator).
   The chain from `kor.create_extraction_chain` is used as its parts: its prompt makes the messages,
   the chat model is called directly (so the token usage of the answer is kept), its parser reads
   the answer.
4. Calls run in a thread pool of `concurrency` workers. A malformed answer is asked again up to
   `max_retries` times, then raises InputError naming the chunk. Rate limits, timeouts (also our own
   `timeout` per call, for a model that never answers) and connection errors back off exponentially
   (`backoff` * 2**n seconds) up to `transient_retries` times, then raise InputError.
5. Every valid answer is written to `cache_dir` at once (atomic, keyed by sha256 of model name,
   prompt and chunk), so a rerun or a resumed run pays for nothing twice. No key is ever stored.
6. `llm_match.match_rows` maps rows to quotations by fuzzy text match; a row whose role resolves to
   a configured character (AliasResolver) fills the quotation (evidence `llm`, confidence 0.7);
   a name that matches no character leaves it `speaker: null` and is counted (`names_unmatched`).
7. Metrics (calls, cache_hits, tokens_in, tokens_out, chunks_sent, quotes_filled, names_unmatched…)
   go to `metrics_path` as JSON, atomically.
"""

from __future__ import annotations

import json
import random
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from ..atomic import atomic_write_text
from ..characters import AliasResolver, Character, normalize_name
from ..errors import InputError
from ..records import Line
from .llm_cache import AnswerCache, cache_key
from .llm_chunks import Chunk, count_tokens, make_chunks, render_chunk
from .llm_match import match_rows
from .llm_schema import NO_SPEAKER_ROLES, SCHEMA_ID, build_chain, resolve_examples, text_language

DEFAULT_CONFIDENCE = 0.7


class CallTimeout(TimeoutError):
    """The model did not answer within `timeout` seconds."""


def _transient_errors() -> tuple[type[BaseException], ...]:
    errs: list[type[BaseException]] = [TimeoutError, ConnectionError]
    try:
        import openai

        errs += [openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError, openai.InternalServerError]
    except ImportError:  # pragma: no cover
        pass
    try:
        import httpx

        errs += [httpx.TimeoutException, httpx.NetworkError]
    except ImportError:  # pragma: no cover
        pass
    return tuple(errs)


def model_name(llm) -> str:
    """The model's name for the cache key (class name for models that have none)."""
    for attr in ("model_name", "model", "model_id"):
        v = getattr(llm, attr, None)
        if isinstance(v, str) and v:
            return v
    return type(llm).__name__


def _call_with_timeout(fn, timeout: float | None):
    """Run fn() in a daemon thread; CallTimeout if it has not returned after `timeout` seconds."""
    if not timeout:
        return fn()
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # handed to the caller
            box["error"] = e

    t = threading.Thread(target=run, daemon=True, name="llm-call")
    t.start()
    t.join(timeout)
    if t.is_alive():
        raise CallTimeout(f"no answer within {timeout:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _message_text(msg) -> str:
    content = getattr(msg, "content", msg)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content if b)
    return str(content)


@dataclass
class Metrics:
    calls: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_estimated: int = 0  # calls whose usage was not reported and was counted with tiktoken
    chunks_total: int = 0
    chunks_sent: int = 0  # chunks with an unresolved quotation (answered by a call or the cache)
    quotes_unresolved: int = 0
    quotes_filled: int = 0
    names_unmatched: int = 0  # the model named someone who is no configured character
    quotes_no_speaker: int = 0  # the model answered narrator/unknown
    quotes_unanswered: int = 0  # no row of the answer matched the quotation
    retries_malformed: int = 0
    retries_transient: int = 0

    def __post_init__(self):
        self._lock = threading.Lock()

    def add(self, **kw) -> None:
        with self._lock:
            for k, v in kw.items():
                setattr(self, k, getattr(self, k) + v)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["cache_hit_rate"] = round(self.cache_hits / self.chunks_sent, 4) if self.chunks_sent else 1.0
        return d


class _Asker:
    """Gets a validated answer for one rendered chunk: from the cache, or from the model with retries."""

    def __init__(self, llm, chain, cache: AnswerCache, metrics: Metrics, *, source, max_retries, transient_retries,
                 backoff, timeout):
        from kor.extraction.parser import KorParser
        from kor.prompts import ExtractionPromptTemplate

        self.prompt, self.parser = chain.first, chain.last
        if not isinstance(self.prompt, ExtractionPromptTemplate) or not isinstance(self.parser, KorParser):
            raise RuntimeError("kor.create_extraction_chain no longer returns prompt | llm | … | KorParser")
        self.llm, self.cache, self.metrics = llm, cache, metrics
        self.model = model_name(llm)
        self.source = source
        self.max_retries, self.transient_retries = max_retries, transient_retries
        self.backoff, self.timeout = backoff, timeout
        self.transient = _transient_errors()

    def parse(self, raw: str) -> tuple[list[dict] | None, str | None]:
        """(rows, None) for a valid answer, (None, reason) otherwise."""
        result = self.parser.parse(raw)
        if result["errors"]:
            return None, f"{type(result['errors'][0]).__name__}: {str(result['errors'][0])[:200]}"
        data = result["data"]
        if SCHEMA_ID not in data:
            return None, f"no <json>{{\"{SCHEMA_ID}\": [...]}}</json> block in the answer"
        if not isinstance(data[SCHEMA_ID], list):
            return None, f"'{SCHEMA_ID}' is not a list of rows"
        rows = [m.model_dump() for m in (result["validated_data"] or [])]
        return rows, None

    def _where(self, chunk: Chunk) -> str:
        return f"LLM chunk {chunk.number + 1} (characters {chunk.start}-{chunk.end})"

    def ask(self, chunk: Chunk, rendered: str) -> list[dict]:
        pv = self.prompt.format_prompt(text=rendered)
        prompt_text = pv.to_string()
        key = cache_key(self.model, prompt_text, rendered)
        entry = self.cache.get(key)
        if entry is not None:
            rows, err = self.parse(entry["raw"])
            if err is None:
                self.metrics.add(cache_hits=1)
                return rows
        messages = pv.to_messages()
        malformed = transient = 0
        while True:
            try:
                msg = _call_with_timeout(lambda: self.llm.invoke(messages), self.timeout)
            except self.transient as e:
                self.metrics.add(calls=1)
                if transient >= self.transient_retries:
                    raise InputError(
                        f"{self._where(chunk)}: no answer from the LLM after {transient + 1} attempts "
                        f"({type(e).__name__})",
                        self.source,
                    ) from None
                time.sleep(self.backoff * (2**transient) * (1 + 0.25 * random.random()))
                transient += 1
                self.metrics.add(retries_transient=1)
                continue
            except InputError:
                raise
            except Exception as e:  # auth, bad request…: name the class only (messages may echo secrets)
                self.metrics.add(calls=1)
                status = getattr(e, "status_code", None)
                raise InputError(
                    f"{self._where(chunk)}: the LLM call failed ({type(e).__name__}"
                    + (f", HTTP {status}" if status else "")
                    + ")",
                    self.source,
                ) from None
            raw = _message_text(msg)
            usage = getattr(msg, "usage_metadata", None) or {}
            reported = bool(usage.get("input_tokens") or usage.get("output_tokens"))
            if reported:
                tin, tout = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
            else:
                tin = count_tokens("\n".join(_message_text(m) for m in messages))
                tout = count_tokens(raw)
            self.metrics.add(calls=1, tokens_in=tin, tokens_out=tout, tokens_estimated=0 if reported else 1)
            rows, err = self.parse(raw)
            if err is None:
                self.cache.put(key, model=self.model, raw=raw, tokens_in=tin, tokens_out=tout, usage_reported=reported)
                return rows
            if malformed >= self.max_retries:
                raise InputError(
                    f"{self._where(chunk)}: malformed LLM answer after {malformed + 1} attempts ({err}); "
                    f"answer began {raw[:60]!r}",
                    self.source,
                )
            malformed += 1
            self.metrics.add(retries_malformed=1)


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
    set; every other line is returned as given. Raises InputError naming the chunk when an answer
    stays malformed or the model never answers.
    """
    if isinstance(characters, dict):
        characters = list(characters.values())
    metrics = Metrics()
    lines = list(lines)
    source = lines[0].source if lines else None
    try:
        chunks = make_chunks(text, lines, chunk_tokens)
        metrics.chunks_total = len(chunks)
        todo = [c for c in chunks if c.unresolved]
        metrics.quotes_unresolved = sum(len(c.unresolved) for c in todo)
        metrics.chunks_sent = len(todo)
        if not todo:
            return lines

        resolver = AliasResolver(characters)
        exs = resolve_examples(examples, examples_path, text_language(text))
        chain = build_chain(llm, characters, exs)
        asker = _Asker(
            llm, chain, AnswerCache(cache_dir), metrics, source=source, max_retries=max_retries,
            transient_retries=transient_retries, backoff=backoff, timeout=timeout,
        )

        def display(ln: Line) -> str:
            return resolver.display(ln.speaker, ln.name)

        rendered = {c.number: render_chunk(text, c, lines, display) for c in todo}
        answers: dict[int, list[dict]] = {}
        _run_all(asker, todo, rendered, answers, max(1, int(concurrency)), progress)

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
    finally:
        if metrics_path is not None:
            write_metrics(metrics_path, metrics)


def _run_all(asker: _Asker, todo: list[Chunk], rendered: dict, answers: dict, concurrency: int, progress: bool):
    """Ask for every chunk in a thread pool; stop at the first InputError (cached answers stay)."""
    from tqdm import tqdm

    bar = tqdm(total=len(todo), desc="LLM chunks", unit="chunk", disable=not progress, leave=False)
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="kor")
    try:
        futures = {pool.submit(asker.ask, c, rendered[c.number]): c for c in todo}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for f in done:
                answers[futures[f].number] = f.result()  # re-raises the chunk's InputError
                bar.update(1)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        bar.close()

"""One validated Kor answer per chunk: from the answer cache, or from the chat model under tenacity retries.

`ChunkAsker.ask(chunk, rendered)` formats Kor's prompt, looks the answer up in the cache (key: model
name, prompt, chunk), else calls the model. tenacity drives the retries: a malformed answer is asked
again at once up to `max_retries` times; a rate limit, timeout or connection error waits
`backoff * 2**n` seconds (with 25 % jitter) up to `transient_retries` times. When they run out, or on
any other error, it raises InputError naming the chunk and the error's class only (messages may echo
the key). A valid answer is stored durably the moment it arrives, in the thread that received it;
calls, tokens and retries are counted in `Metrics`.

The wall-clock limit per call (`timeout`, error `CallTimeout`) is for a model that never returns:
neither LangChain nor tenacity can stop waiting for a synchronous `invoke` (ChatOpenAI's own
`timeout` covers its HTTP requests), so the call runs in a daemon thread the caller stops waiting for.
"""

from __future__ import annotations

import random
import threading
from dataclasses import asdict, dataclass
from functools import partial

from tenacity import Retrying, retry_if_exception_type

from extractors.errors import InputError
from extractors.llm_client import message_text, transient_errors
from .cache import AnswerCache, cache_key
from .chunks import Chunk, count_tokens
from .schema import SCHEMA_ID


class CallTimeout(TimeoutError):
    """The model did not answer within `timeout` seconds."""


def call_within(fn, timeout: float | None):
    """fn() in a daemon thread; CallTimeout if it has not returned after `timeout` seconds."""
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


class Malformed(Exception):
    """The answer did not parse or validate; `raw` is what came back."""

    def __init__(self, reason: str, raw: str, tokens: tuple[int, int, bool] = (0, 0, False)):
        super().__init__(reason)
        self.raw, self.tokens = raw, tokens  # (in, out, whether the endpoint reported them)


def model_name(llm) -> str:
    """The model's name for the cache key (class name for models that have none)."""
    for attr in ("model_name", "model", "model_id"):
        v = getattr(llm, attr, None)
        if isinstance(v, str) and v:
            return v
    return type(llm).__name__


class UnusableAnswer(InputError):
    """A chunk's answer stayed malformed after every retry (the model does not follow the format there)."""


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
    answers_mended: int = 0  # answers cut off by max_tokens, their finished rows read with json-repair
    chunks_skipped: int = 0  # chunks whose answer stayed unusable: their quotations left to the rules

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


class ChunkAsker:
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
        self.transient = transient_errors()

    def parse(self, raw: str) -> tuple[list[dict] | None, str | None]:
        """(rows, None) for a valid answer, (None, reason) otherwise. A small model's near-JSON is mended first
        (`mend`): an answer cut off by max_tokens keeps the rows it finished."""
        result = self.parser.parse(raw)
        if result["errors"]:
            return self.mend(raw, f"{type(result['errors'][0]).__name__}: {str(result['errors'][0])[:200]}")
        data = result["data"]
        if SCHEMA_ID not in data:
            return self.mend(raw, f"no <json>{{\"{SCHEMA_ID}\": [...]}}</json> block in the answer")
        if not isinstance(data[SCHEMA_ID], list):
            return None, f"'{SCHEMA_ID}' is not a list of rows"
        rows = [m.model_dump() for m in (result["validated_data"] or [])]
        return rows, None

    def mend(self, raw: str, reason: str, last_resort: bool = False) -> tuple[list[dict] | None, str | None]:
        """The rows an answer cut off by max_tokens finished (`<json>` opened, never closed: a small model lists
        every narration row and runs out), read with json-repair and checked by the schema's validator; its last,
        unfinished row is dropped. Asking again would give the same answer at temperature 0. Any other malformed
        answer stays (None, reason): it is asked again; `last_resort` (the retries are spent) mends a closed block
        too (a quotation's own marks left unescaped inside a string), rather than failing the book."""
        if "<json>" not in raw or "</json>" in raw and not last_resort or self.parser.validator is None:
            return None, reason
        from json_repair import repair_json

        body = raw.split("<json>", 1)[1].split("</json>", 1)[0]
        try:
            data = repair_json(body, return_objects=True)
        except Exception:  # noqa: BLE001  (json-repair gives up on some inputs: then the answer is malformed)
            return None, reason
        items = data.get(SCHEMA_ID) if isinstance(data, dict) else None
        if not isinstance(items, list) or not items:
            return None, reason
        if not body.rstrip().endswith("]}"):
            items = items[:-1]  # its last row may be half a quotation, never to be matched to the whole one
        validated, errors = self.parser.validator.clean_data(items)
        rows = [m.model_dump() for m in (validated or [])]
        if not rows:
            return None, reason
        self.metrics.add(answers_mended=1)
        return rows, None

    def ask(self, chunk: Chunk, rendered: str) -> list[dict]:
        pv = self.prompt.format_prompt(text=rendered)
        key = cache_key(self.model, pv.to_string(), rendered)
        entry = self.cache.get(key)
        if entry is not None:  # an answer once accepted (a closed block mended as the last resort included)
            rows, err = self.parse(entry["raw"])
            if err is not None:
                rows, err = self.mend(entry["raw"], err, last_resort=True)
            if err is None:
                self.metrics.add(cache_hits=1)
                return rows
        tries = {"malformed": 0, "transient": 0}
        retrying = Retrying(
            retry=retry_if_exception_type((Malformed, *self.transient)), stop=partial(self._stop, tries),
            wait=partial(self._wait, tries), before_sleep=partial(self._count, tries), reraise=True,
        )
        try:
            return retrying(self._attempt, key, pv.to_messages())
        except Malformed as e:
            rows, _ = self.mend(e.raw, str(e), last_resort=True)
            if rows is None:
                raise self._error(chunk, e, tries) from None
            tin, tout, reported = e.tokens
            self.cache.put(key, model=self.model, raw=e.raw, tokens_in=tin, tokens_out=tout, usage_reported=reported)
            return rows
        except Exception as e:
            raise self._error(chunk, e, tries) from None

    def _attempt(self, key: str, messages: list) -> list[dict]:
        """One call; a valid answer is cached the moment it arrives (in the calling thread, so even an
        answer that comes after our own timeout is kept), a malformed one raises Malformed."""
        try:
            msg, raw, tin, tout, reported, rows, err = call_within(lambda: self._receive(key, messages), self.timeout)
        except InputError:
            raise
        except Exception:
            self.metrics.add(calls=1)
            raise
        self.metrics.add(calls=1, tokens_in=tin, tokens_out=tout, tokens_estimated=0 if reported else 1)
        if err is not None:
            raise Malformed(err, raw, (tin, tout, reported))
        return rows

    def _receive(self, key: str, messages: list):
        """Call the model, and store a valid answer before anything else is done with it."""
        msg = self.llm.invoke(messages)
        raw = message_text(msg)
        usage = getattr(msg, "usage_metadata", None) or {}
        reported = bool(usage.get("input_tokens") or usage.get("output_tokens"))
        if reported:
            tin, tout = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
        else:
            tin, tout = count_tokens("\n".join(message_text(m) for m in messages)), count_tokens(raw)
        rows, err = self.parse(raw)
        if err is None:
            self.cache.put(key, model=self.model, raw=raw, tokens_in=tin, tokens_out=tout, usage_reported=reported)
        return msg, raw, tin, tout, reported, rows, err

    def _kind(self, rs) -> str:
        return "malformed" if isinstance(rs.outcome.exception(), Malformed) else "transient"

    def _stop(self, tries: dict, rs) -> bool:
        kind = self._kind(rs)
        return tries[kind] >= (self.max_retries if kind == "malformed" else self.transient_retries)

    def _wait(self, tries: dict, rs) -> float:
        if self._kind(rs) == "malformed":
            return 0.0
        return self.backoff * (2 ** tries["transient"]) * (1 + 0.25 * random.random())

    def _count(self, tries: dict, rs) -> None:
        kind = self._kind(rs)
        tries[kind] += 1
        self.metrics.add(**{f"retries_{kind}": 1})

    def _error(self, chunk: Chunk, e: Exception, tries: dict) -> InputError:
        """The one-line error for a chunk that got no valid answer (class names only, never a message)."""
        if isinstance(e, InputError):
            return e
        where = f"LLM chunk {chunk.number + 1} (characters {chunk.start}-{chunk.end})"
        if isinstance(e, Malformed):
            return UnusableAnswer(f"{where}: malformed LLM answer after {tries['malformed'] + 1} attempts ({e}); "
                                  f"answer began {e.raw[:60]!r}", self.source)
        if isinstance(e, self.transient):
            return InputError(f"{where}: no answer from the LLM after {tries['transient'] + 1} attempts "
                              f"({type(e).__name__})", self.source)
        status = getattr(e, "status_code", None)
        return InputError(f"{where}: the LLM call failed ({type(e).__name__}" + (f", HTTP {status}" if status else "")
                          + ")", self.source)

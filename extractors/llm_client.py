"""The one LLM client of the pipeline stages (profile, synth, annotate, eval): every chat call goes through it.

`LLMClient.complete(messages)` answers OpenAI-style messages. Each answer is

- **cached on arrival**: stored durably (`ContentCache` under `<cache>/llm`) in the thread that received it, before
  anything else is done with it, so a run killed with SIGKILL repays only the requests that were in flight;
  the key is (endpoint, model, temperature, variant, messages), so a rerun makes zero calls;
- **retried**: rate limits, timeouts, connection and server errors wait `backoff * 2**n` s (tenacity), up to
  `max_retries` times; an empty answer is asked again once;
- **timed out**: ChatOpenAI's own HTTP timeout, plus a wall-clock limit for a model that never returns;
- **rate-limited**: LangChain's `InMemoryRateLimiter` at `requests_per_minute` (0 = unlimited);
- **concurrent**: `complete_many` runs `concurrency` requests at a time, in order, with a progress bar;
- **accounted**: `stats` counts calls, cache hits, tokens in/out (usage reported by the server, else tiktoken),
  retries and failures; `write_metrics` writes them atomically.

Errors are `InputError` with the error's class and HTTP status only: a server's message may echo the key.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from .atomic import atomic_write_text
from .cache import ContentCache, content_key
from .errors import InputError
from .tokens import count_tokens

STAT_KEYS = ("calls", "cache_hits", "tokens_in", "tokens_out", "retries", "failures")


class CallTimeout(TimeoutError):
    """The model did not answer within `timeout` seconds."""


class EmptyAnswer(Exception):
    """The model answered with no text."""


def transient_errors() -> tuple[type[BaseException], ...]:
    """Errors worth waiting out: timeouts, connection errors, rate limits, server errors."""
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


def message_text(msg) -> str:
    """The text of a LangChain message (or of a plain string)."""
    content = getattr(msg, "content", msg)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content if b)
    return str(content)


def _check_messages(messages: Sequence[dict]) -> list[tuple[str, str]]:
    out = []
    for m in messages:
        role, content = m.get("role"), m.get("content")
        if role not in ("system", "user", "assistant") or not isinstance(content, str):
            raise ValueError(f"not an OpenAI-style message: {m!r:.80}")
        out.append((role, content))
    return out


class LLMClient:
    """Every LLM call of the pipeline stages: cached on arrival, retried, timed out, rate-limited, accounted."""

    def __init__(self, cache_dir: Path, *, model: str, temperature: float = 0.0, timeout: float = 60,
                 max_retries: int = 3, requests_per_minute: float = 0, concurrency: int = 4, chat_model=None,
                 endpoint: str | None = None, backoff: float = 1.0):
        self.cache = ContentCache(Path(cache_dir) / "llm")
        self.model, self.temperature, self.timeout = model, temperature, timeout
        self.max_retries, self.concurrency, self.backoff = max_retries, max(1, int(concurrency)), backoff
        self.requests_per_minute = requests_per_minute
        self.endpoint = endpoint if endpoint is not None else os.environ.get("OPENAI_BASE_URL", "")
        self._chat_model = chat_model
        self._models: dict[float, object] = {}
        self._lock = threading.Lock()
        self._limiter = None
        self.stats = {k: 0 for k in STAT_KEYS}
        self.transient = transient_errors()

    # -- public ---------------------------------------------------------------------------------------
    def complete(self, messages: list[dict], *, temperature: float | None = None, variant: int = 0) -> str:
        """The answer to `messages`, from the cache or from the model (stored the moment it arrives)."""
        temp = self.temperature if temperature is None else float(temperature)
        pairs = _check_messages(messages)
        key = content_key("llm-client/1", self.endpoint, self.model, repr(temp), str(variant),
                          json.dumps(pairs, ensure_ascii=False))
        entry = self.cache.get(key, valid=lambda e: isinstance(e.get("answer"), str) and bool(e["answer"].strip()))
        if entry is not None:
            self._add(cache_hits=1)
            return entry["answer"]
        retrying = Retrying(retry=retry_if_exception_type((EmptyAnswer, *self.transient)),
                            stop=stop_after_attempt(self.max_retries + 1),
                            wait=wait_exponential_jitter(multiplier=self.backoff, max=60, jitter=self.backoff / 4),
                            before_sleep=lambda rs: self._add(retries=1), reraise=True)
        try:
            return retrying(self._attempt, key, pairs, temp)
        except Exception as e:
            self._add(failures=1)
            raise self._error(e) from None

    def complete_many(self, requests: list[list[dict]], *, temperature: float | None = None, desc: str = "LLM",
                      variants: list[int] | None = None) -> list[str]:
        """Answers in order, `concurrency` at a time, with a progress bar on stderr."""
        from tqdm import tqdm

        variants = variants or [0] * len(requests)
        if len(variants) != len(requests):
            raise ValueError("variants and requests differ in length")
        out: list[str | None] = [None] * len(requests)
        bar = tqdm(total=len(requests), desc=desc, unit="call", file=sys.stderr, disable=None)

        def one(i: int) -> None:
            out[i] = self.complete(requests[i], temperature=temperature, variant=variants[i])
            bar.update(1)

        try:
            with ThreadPoolExecutor(self.concurrency) as pool:
                for f in [pool.submit(one, i) for i in range(len(requests))]:
                    f.result()
        finally:
            bar.close()
        return out  # type: ignore[return-value]

    def write_metrics(self, path: Path) -> None:
        """`stats` (and the model and cache-hit rate) as JSON, written atomically."""
        asked = self.stats["calls"] + self.stats["cache_hits"]
        data = dict(self.stats, model=self.model,
                    cache_hit_rate=round(self.stats["cache_hits"] / asked, 4) if asked else 1.0)
        atomic_write_text(Path(path), json.dumps(data, indent=2) + "\n")

    # -- internals ------------------------------------------------------------------------------------
    def _add(self, **kw) -> None:
        with self._lock:
            for k, v in kw.items():
                self.stats[k] += v

    def _attempt(self, key: str, pairs: list[tuple[str, str]], temp: float) -> str:
        self._wait_turn()
        self._add(calls=1)
        return call_within(lambda: self._receive(key, pairs, temp), self.timeout + 5 if self.timeout else None)

    def _receive(self, key: str, pairs: list[tuple[str, str]], temp: float) -> str:
        """Call the model and store a non-empty answer before anything else is done with it."""
        msg = self._model_for(temp).invoke(pairs)
        answer = message_text(msg)
        usage = getattr(msg, "usage_metadata", None) or {}
        tin, tout = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
        if not (tin or tout):
            tin, tout = count_tokens("\n".join(c for _, c in pairs)), count_tokens(answer)
        self._add(tokens_in=tin, tokens_out=tout)
        if not answer.strip():
            raise EmptyAnswer("the model answered with no text")
        self.cache.put(key, {"model": self.model, "answer": answer, "tokens_in": tin, "tokens_out": tout})
        return answer

    def _wait_turn(self) -> None:
        if self.requests_per_minute and self.requests_per_minute > 0:
            with self._lock:
                if self._limiter is None:
                    from langchain_core.rate_limiters import InMemoryRateLimiter

                    self._limiter = InMemoryRateLimiter(requests_per_second=self.requests_per_minute / 60.0,
                                                        check_every_n_seconds=0.05, max_bucket_size=1)
            self._limiter.acquire(blocking=True)

    def _model_for(self, temp: float):
        if self._chat_model is not None:
            return self._chat_model
        with self._lock:
            if temp not in self._models:
                from .llm import chat_model_from_env

                self._models[temp] = chat_model_from_env(self.model, temperature=temp, timeout=self.timeout)
            return self._models[temp]

    def _error(self, e: Exception) -> InputError:
        """One line naming what failed: the error's class and HTTP status, never its message."""
        if isinstance(e, InputError):
            return e
        if isinstance(e, EmptyAnswer):
            return InputError(f"the LLM ({self.model}) answered with no text {self.max_retries + 1} times")
        if isinstance(e, self.transient):
            return InputError(f"no answer from the LLM ({self.model}) after {self.max_retries + 1} attempts "
                              f"({type(e).__name__})")
        status = getattr(e, "status_code", None)
        return InputError(f"the LLM call failed ({type(e).__name__}" + (f", HTTP {status}" if status else "") + ")")

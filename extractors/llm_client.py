"""The one LLM client of the pipeline stages (profile, synth, annotate, eval): every chat call goes through it.

Each answer is streamed under three limits (first token, silence, whole request), cached durably on arrival,
retried only where nothing was lost, and counted in `stats`. A request past a limit is never sent again. Errors
name the error's class and HTTP status only: a server's message may echo the key. docs/llm.md describes it."""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from .atomic import atomic_write_text
from .cache import ContentCache, content_key
from .errors import InputError
from .tokens import count_tokens

STAT_KEYS = ("calls", "cache_hits", "tokens_in", "tokens_out", "retries", "failures", "timeouts", "seconds")
JSON_FORMAT = {"type": "json_object"}


class RequestTimeout(TimeoutError):
    """A request passed one of its limits (first token, silence, total); it is never sent again."""

    def __init__(self, message: str, setting: str):
        super().__init__(message)
        self.setting = setting


class Stopped(Exception):
    """Another request of the same batch failed: this one was abandoned."""


class EmptyAnswer(Exception):
    """The model answered with no text."""


def timeout_errors() -> tuple[type[BaseException], ...]:
    """Errors of a request that may have reached the model: never re-sent blindly."""
    errs: list[type[BaseException]] = [TimeoutError]
    try:
        import openai

        errs.append(openai.APITimeoutError)
    except ImportError:  # pragma: no cover
        pass
    try:
        import httpx

        errs.append(httpx.TimeoutException)
    except ImportError:  # pragma: no cover
        pass
    return tuple(errs)


def transient_errors() -> tuple[type[BaseException], ...]:
    """Errors worth waiting out: connection errors, rate limits, server errors (timeouts excluded)."""
    errs: list[type[BaseException]] = [ConnectionError]
    try:
        import openai

        errs += [openai.RateLimitError, openai.APIConnectionError, openai.InternalServerError]
    except ImportError:  # pragma: no cover
        pass
    try:
        import httpx

        errs += [httpx.TransportError]
    except ImportError:  # pragma: no cover
        pass
    return tuple(errs)


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


class _Shown:
    """What the user sees of one request: the bar's postfix on a terminal; else a line every `heartbeat` s while it
    waits and one when a slow request is answered."""

    def __init__(self, client: "LLMClient", label: str, bar=None):
        self.client, self.label, self.bar = client, label, bar
        self.start = self.last_line = time.monotonic()

    def tick(self, tokens: int, first: bool) -> None:
        now = time.monotonic()
        elapsed = now - self.start
        if self.bar is not None and not self.bar.disable:
            self.bar.set_postfix_str(f"{self.label}: {tokens} tokens, {elapsed:.0f} s", refresh=True)
        elif self.client.heartbeat and now - self.last_line >= self.client.heartbeat:
            self.last_line = now
            what = (f"{tokens} tokens so far" if first else
                    f"waiting for the first token (limit {self.client.first_token:g} s)")
            self.client.say(f"{self.label}: {what}, {elapsed:.0f} s")

    def done(self, tokens: int) -> None:
        elapsed = time.monotonic() - self.start
        if (self.bar is None or self.bar.disable) and self.client.heartbeat and elapsed >= self.client.heartbeat / 6:
            self.client.say(f"{self.label}: answered, {tokens} tokens in {elapsed:.0f} s")


class LLMClient:
    """Every LLM call of the pipeline stages: streamed within limits, cached on arrival, retried where safe,
    rate-limited, shown, accounted."""

    def __init__(self, cache_dir: Path, *, model: str, temperature: float = 0.0, timeout: float = 1200,
                 first_token: float | None = 300, silence: float | None = 60, max_tokens: int | None = None,
                 max_retries: int = 3, requests_per_minute: float = 0, concurrency: int = 1, chat_model=None,
                 endpoint: str | None = None, backoff: float = 1.0, json_mode: bool = True,
                 heartbeat: float = 60, desc: str = "LLM"):
        self.cache = ContentCache(Path(cache_dir) / "llm")
        self.model, self.temperature, self.timeout = model, temperature, float(timeout)
        self.first_token = float(first_token or timeout)
        self.silence = float(silence or timeout)
        self.max_tokens = max_tokens
        self.max_retries, self.concurrency, self.backoff = max_retries, max(1, int(concurrency)), backoff
        self.requests_per_minute = requests_per_minute
        self.endpoint = endpoint if endpoint is not None else os.environ.get("OPENAI_BASE_URL", "")
        self.json_mode, self.heartbeat, self.desc = json_mode, heartbeat, desc
        self._chat_model = chat_model
        self._models: dict[float, object] = {}
        self._lock = threading.Lock()
        self._limiter = None
        self._stop = threading.Event()
        self.stats = {k: 0 for k in STAT_KEYS}
        self.transient = transient_errors()
        self.timeouts = timeout_errors()

    # -- public ---------------------------------------------------------------------------------------
    def complete(self, messages: list[dict], *, temperature: float | None = None, variant: int = 0,
                 json: bool = False, _shown: _Shown | None = None) -> str:
        """The answer to `messages`, from the cache or from the model (stored the moment it arrives).
        `json=True`: the stage wants a JSON object, asked for in the server's JSON mode."""
        temp = self.temperature if temperature is None else float(temperature)
        pairs = _check_messages(messages)
        key = content_key("llm-client/1", self.endpoint, self.model, repr(temp), f"{variant}/json" if json else
                          str(variant), _dumps(pairs))
        entry = self.cache.get(key, valid=lambda e: isinstance(e.get("answer"), str) and bool(e["answer"].strip()))
        if entry is not None:
            self._add(cache_hits=1)
            return entry["answer"]
        shown = _shown or _Shown(self, self.desc)
        retrying = Retrying(retry=retry_if_exception(self._retryable),
                            stop=stop_after_attempt(self.max_retries + 1),
                            wait=wait_exponential_jitter(multiplier=self.backoff, max=60, jitter=self.backoff / 4),
                            before_sleep=lambda rs: self._add(retries=1), reraise=True)
        try:
            return retrying(self._attempt, key, pairs, temp, json, shown)
        except Exception as e:
            self._add(failures=1)
            raise self._error(e) from None

    def complete_many(self, requests: list[list[dict]], *, temperature: float | None = None, desc: str = "LLM",
                      variants: list[int] | None = None, json: bool = False) -> list[str]:
        """Answers in order, `concurrency` at a time, with progress on stderr. The first failure stops the batch:
        requests not yet sent are cancelled, those in flight abandoned."""
        from tqdm import tqdm

        variants = variants or [0] * len(requests)
        if len(variants) != len(requests):
            raise ValueError("variants and requests differ in length")
        out: list[str | None] = [None] * len(requests)
        bar = tqdm(total=len(requests), desc=desc, unit="call", file=sys.stderr, disable=None)
        self._stop.clear()

        def one(i: int) -> None:
            if self._stop.is_set():
                raise Stopped()
            shown = _Shown(self, f"{desc} {i + 1}/{len(requests)}", bar)
            try:
                out[i] = self.complete(requests[i], temperature=temperature, variant=variants[i], json=json,
                                       _shown=shown)
            except BaseException:
                self._stop.set()  # here, before this worker takes the next request
                raise
            bar.update(1)

        pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="llm")
        futures = [pool.submit(one, i) for i in range(len(requests))]
        try:
            for f in futures:
                f.result()
        except BaseException:
            self._stop.set()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            bar.close()
        return out  # type: ignore[return-value]

    def write_metrics(self, path: Path) -> None:
        """`stats` (and the model and cache-hit rate) as JSON, written atomically."""
        asked = self.stats["calls"] + self.stats["cache_hits"]
        data = dict(self.stats, model=self.model, seconds=round(self.stats["seconds"], 1),
                    cache_hit_rate=round(self.stats["cache_hits"] / asked, 4) if asked else 1.0)
        atomic_write_text(Path(path), json.dumps(data, indent=2) + "\n")

    def say(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    # -- internals ------------------------------------------------------------------------------------
    def _add(self, **kw) -> None:
        with self._lock:
            for k, v in kw.items():
                self.stats[k] += v

    def _retryable(self, e: BaseException) -> bool:
        return isinstance(e, (EmptyAnswer, *self.transient)) and not isinstance(e, self.timeouts)

    def _attempt(self, key: str, pairs: list[tuple[str, str]], temp: float, want_json: bool, shown: _Shown) -> str:
        self._wait_turn()
        self._add(calls=1)
        t0 = time.monotonic()
        try:
            return self._receive(key, pairs, temp, want_json and self.json_mode, shown)
        except Exception as e:
            status = getattr(e, "status_code", None)
            if want_json and self.json_mode and status in (400, 422) and not self._stop.is_set():
                self.json_mode = False  # a server without JSON mode: ask again, the prompt still asks for JSON
                self._add(calls=1)
                return self._receive(key, pairs, temp, False, shown)
            raise
        finally:
            self._add(seconds=time.monotonic() - t0)

    def _receive(self, key: str, pairs: list[tuple[str, str]], temp: float, want_json: bool, shown: _Shown) -> str:
        """Stream the answer within the limits; store a non-empty answer before anything else is done with it."""
        model = self._model_for(temp)
        kwargs = {"response_format": JSON_FORMAT} if want_json else {}
        chunks: queue.Queue = queue.Queue()
        cancel = threading.Event()

        def pump() -> None:  # the HTTP stream, in a thread of its own so that silence can be timed
            stream = model.stream(pairs, **kwargs)
            try:
                for chunk in stream:
                    if cancel.is_set():
                        break
                    chunks.put(("chunk", chunk))
                chunks.put(("end", None))
            except BaseException as e:  # handed to the caller
                chunks.put(("error", e))
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()  # closes the connection: a server that watches for it stops generating

        threading.Thread(target=pump, daemon=True, name="llm-stream").start()
        start = last = time.monotonic()
        full, pieces = None, 0
        while True:
            now = time.monotonic()
            ends = ({"silence": last + self.silence} if pieces else {"first_token": start + self.first_token})
            ends["timeout"] = start + self.timeout
            setting = min(ends, key=ends.get)
            if now >= ends[setting] or self._stop.is_set():
                cancel.set()
                if self._stop.is_set():
                    raise Stopped()
                self._add(timeouts=1)
                raise RequestTimeout(self._timeout_text(setting, pieces, now - start), setting)
            try:
                kind, value = chunks.get(timeout=min(1.0, ends[setting] - now))
            except queue.Empty:
                shown.tick(pieces, bool(pieces))
                continue
            if kind == "error":
                raise value
            if kind == "end":
                break
            full = value if full is None else full + value
            pieces += 1
            last = time.monotonic()
        answer = message_text(full) if full is not None else ""
        usage = getattr(full, "usage_metadata", None) or {}
        tin, tout = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
        if not (tin or tout):
            tin, tout = count_tokens("\n".join(c for _, c in pairs)), count_tokens(answer)
        self._add(tokens_in=tin, tokens_out=tout)
        if not answer.strip():
            raise EmptyAnswer("the model answered with no text")
        self.cache.put(key, {"model": self.model, "answer": answer, "tokens_in": tin, "tokens_out": tout})
        shown.done(tout)
        return answer

    def _timeout_text(self, setting: str, pieces: int, elapsed: float) -> str:
        what = {"first_token": f"sent no token within {self.first_token:g} s (llm.first_token: a slow local model "
                               "reads a long prompt first)",
                "silence": f"fell silent for {self.silence:g} s after {pieces} chunks (llm.silence)",
                "timeout": f"did not finish within {self.timeout:g} s (llm.timeout)"}[setting]
        return (f"the LLM ({self.model}) {what}; the request was abandoned after {elapsed:.0f} s and not sent again: "
                "raise the limit in configs/pipeline.yaml or use a faster endpoint")

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

                # the HTTP client's own limit only ends a stream thread left behind; the limits above decide
                http = min(self.timeout, max(self.first_token, self.silence)) + 5
                self._models[temp] = chat_model_from_env(self.model, temperature=temp, timeout=http,
                                                         max_tokens=self.max_tokens)
            return self._models[temp]

    def _error(self, e: Exception) -> InputError:
        """One line naming what failed: our own limits in words; else the error's class and HTTP status, never its
        message (a server may echo the key)."""
        if isinstance(e, InputError):
            return e
        if isinstance(e, RequestTimeout):
            return InputError(str(e))
        if isinstance(e, Stopped):
            return InputError(f"the LLM request was abandoned: another request of the batch failed ({self.model})")
        if isinstance(e, EmptyAnswer):
            return InputError(f"the LLM ({self.model}) answered with no text {self.max_retries + 1} times")
        if isinstance(e, self.timeouts):
            return InputError(f"the LLM ({self.model}) did not answer in time ({type(e).__name__}); the request was "
                              "not sent again: raise llm.first_token / llm.timeout in configs/pipeline.yaml")
        if isinstance(e, self.transient):
            return InputError(f"no answer from the LLM ({self.model}) after {self.max_retries + 1} attempts "
                              f"({type(e).__name__})")
        status = getattr(e, "status_code", None)
        return InputError(f"the LLM call failed ({type(e).__name__}" + (f", HTTP {status}" if status else "") + ")")


def _dumps(pairs: list[tuple[str, str]]) -> str:
    return json.dumps(pairs, ensure_ascii=False)

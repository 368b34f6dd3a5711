"""The one fake OpenAI-compatible LLM endpoint of the tests: a real threaded HTTP server on 127.0.0.1 (stdlib
http.server) speaking the chat-completions protocol, for plumbing tests only (its answers are made up).

Hooks, given to the constructor or set as attributes while it runs:
- `answer`: the reply text, a string or a function of the request's messages (default: `echo: <last message>`);
- `delay`: seconds to wait before each answer;
- `fail`: statuses to answer first, one a request (429, 500, 401, ...); `fail_always`: a status for every request
  after those; a 401 echoes the key the client sent, in its message and in a header, as careless servers do;
- `raw`: a body sent as is with status 200 instead of a completion (an endpoint that does not speak the protocol);
- `hold_after`: answer that many chat requests, then hold every later one until `release` is set (kill -9 tests);
- `usage`: the (prompt, completion) tokens it reports; None: a quarter of the characters of each;
- `key`: the name of a request in `received`/`answered`/`held` (default: the text of its last message);
- a request with `"stream": true` is answered as server-sent events, one chunk per word, `chunk_delay` s apart;
  `stall_after`: send that many chunks, then fall silent until `release` is set.
What it records: `calls` (every POST), `prompt_tokens`/`completion_tokens` (usage totals), `requests` (the body of every chat request, in arrival order), `received`
(their keys), `auth` (their Authorization headers), `answered` (keys whose answer was sent) and `held` (keys held).
POST .../embeddings answers with tests/support/fake_embeddings.py's bag-of-words vectors (not recorded), so that one
endpoint serves a whole `dvc repro`.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from fake_embeddings import bag_of_words

SECRET = "sk-fake-llm-secret-5e1f"  # the key `env()` gives by default
ERRORS = {429: "Rate limit reached", 500: "model crashed"}


def echo(messages: list[dict]) -> str:
    return "echo: " + messages[-1]["content"]


def last_message(body: dict) -> str:
    return body["messages"][-1]["content"]


class FakeLLMServer:
    def __init__(self, answer: str | Callable[[list[dict]], str] = echo, *, delay: float = 0.0,
                 fail_always: int | None = None, hold_after: int | None = None,
                 usage: tuple[int, int] | None = None, key: Callable[[dict], str] = last_message):
        self.answer, self.delay, self.hold_after, self.usage, self.key = answer, delay, hold_after, usage, key
        self.fail: list[int] = []
        self.fail_always = fail_always
        self.raw: bytes | None = None
        self.chunk_delay = 0.0
        self.stall_after: int | None = None
        self.calls = 0
        self.requests: list[dict] = []
        self.received: list[str] = []
        self.auth: list[str] = []
        self.answered: list[str] = []
        self.held: list[str] = []
        self.prompt_tokens = self.completion_tokens = 0  # totals of the usage reported
        self.release = threading.Event()
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                outer._serve(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        body = json.loads(h.rfile.read(int(h.headers.get("Content-Length") or 0)) or b"{}")
        chat = not h.path.endswith("/embeddings")
        key = self.key(body) if chat else ""
        with self.lock:
            self.calls += 1
            status = self.fail.pop(0) if self.fail else self.fail_always or 200
            hold = chat and self.hold_after is not None and len(self.received) >= self.hold_after \
                and not self.release.is_set()
            if chat:
                self.requests.append(body)
                self.received.append(key)
                self.auth.append(h.headers.get("Authorization", ""))
            if hold:
                self.held.append(key)
        if hold:
            self.release.wait(120)
        time.sleep(self.delay)
        headers = {}
        if status == 401:
            auth = h.headers.get("Authorization", "")
            data = _error(f"Incorrect API key provided: {auth[7:]}. Header: {auth}", "invalid_api_key")
            headers["WWW-Authenticate"] = auth
        elif status != 200:
            data = _error(ERRORS.get(status, "try later"), str(status))
        elif not chat:
            data = _embeddings(body)
        elif self.raw is not None:
            data = self.raw
        elif body.get("stream"):
            if self._stream(h, body, key) and not hold:
                with self.lock:
                    self.answered.append(key)
            return
        else:
            data = self._completion(body, key)
        if _send(h, status, data, headers) and chat and not hold:
            with self.lock:
                self.answered.append(key)

    def _completion(self, body: dict, key: str) -> bytes:
        content = self.answer(body["messages"]) if callable(self.answer) else self.answer
        tin, tout = self.usage or (len(key) // 4, len(content) // 4)
        with self.lock:
            self.prompt_tokens += tin
            self.completion_tokens += tout
        return json.dumps({"id": "fake", "object": "chat.completion", "created": 1700000000,
                           "model": body.get("model", "m"),
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": content}}],
                           "usage": {"prompt_tokens": tin, "completion_tokens": tout,
                                     "total_tokens": tin + tout}}).encode()

    def _stream(self, h: BaseHTTPRequestHandler, body: dict, key: str) -> bool:
        """The answer as OpenAI's server-sent events; False when the client is gone."""
        content = self.answer(body["messages"]) if callable(self.answer) else self.answer
        tin, tout = self.usage or (len(key) // 4, len(content) // 4)
        with self.lock:
            self.prompt_tokens += tin
            self.completion_tokens += tout
        words = [w for w in content.replace(" ", " \0").split("\0") if w] or [""]
        base = {"id": "fake", "object": "chat.completion.chunk", "created": 1700000000, "model": body.get("model", "m")}
        deltas = [{"role": "assistant", "content": ""}] + [{"content": w} for w in words]
        try:
            h.send_response(200)
            h.send_header("Content-Type", "text/event-stream")
            h.end_headers()
            for n, delta in enumerate(deltas):
                if self.stall_after is not None and n >= self.stall_after:
                    self.release.wait(120)
                time.sleep(self.chunk_delay)
                last = n == len(deltas) - 1
                chunk = dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": "stop" if last else None}])
                h.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                h.wfile.flush()
            usage = {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout}
            h.wfile.write(b"data: " + json.dumps(dict(base, choices=[], usage=usage)).encode() + b"\n\n")
            h.wfile.write(b"data: [DONE]\n\n")
            h.wfile.flush()
        except OSError:
            return False
        return True

    def env(self, key: str = SECRET, model: str = "fake-model") -> dict:
        """The environment that points rolecorpus at this endpoint."""
        return {"OPENAI_BASE_URL": self.base_url, "OPENAI_API_KEY": key, "ROLECORPUS_LLM_MODEL": model}

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FakeLLMServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _error(message: str, code: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error", "code": code}}).encode()


def _embeddings(body: dict) -> bytes:
    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
    return json.dumps({"object": "list", "model": body.get("model", "m"),
                       "usage": {"prompt_tokens": 1, "total_tokens": 1},
                       "data": [{"object": "embedding", "index": i, "embedding": bag_of_words(t, 32)}
                                for i, t in enumerate(inputs)]}).encode()


def _send(h: BaseHTTPRequestHandler, status: int, data: bytes, headers: dict) -> bool:
    """Send one JSON answer; False when the client is gone (killed, or gave up waiting)."""
    try:
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        for k, v in headers.items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
        h.wfile.flush()
    except OSError:
        return False
    return True

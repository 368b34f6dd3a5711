"""Build a LangChain chat model for any OpenAI-compatible endpoint from the environment, scrub secrets from any
text that may reach the user, and read the JSON an LLM answers (near-JSON mended).

Secrets come only from `OPENAI_API_KEY` / `OPENAI_BASE_URL`; the model name from
`ROLECORPUS_LLM_MODEL` (or `OPENAI_MODEL`) unless given. Nothing here logs the key.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import os
import re
from urllib.parse import unquote, urlsplit

from .errors import InputError


def llm_configured() -> bool:
    """True when an endpoint or key is set in the environment."""
    return bool(os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"))


_SECRET_ENV = ("OPENAI_API_KEY", "ROLECORPUS_API_KEY", "AZURE_OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN")
_URL_ENV = ("OPENAI_BASE_URL", "OPENAI_API_BASE", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")
# the name of a header, field or query parameter that holds a credential
_SECRET_NAME = r"(?:[\w-]*(?:api[_-]?key|[_-]key|token|secret|password|passwd|pwd|credential|signature))"
_SECRET_PATTERNS = (
    # credentials in a URL: scheme://user:password@host, scheme://token@host
    re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/\s@\"'<>]+(?=@)"),
    # an Authorization (or Proxy-Authorization) value, whatever its scheme: Bearer, Basic, Digest, Token, ...
    # (quoted: up to the closing quote; a header line: up to its end, since Digest values hold spaces and commas)
    re.compile(r"(?i)((?:proxy-)?authorization[\"']?\s*[:=]\s*)(?:\"[^\"\n]*\"?|'[^'\n]*'?|[^\r\n]+)"),
    # a scheme's token standing alone (an echoed header, a WWW-Authenticate challenge)
    re.compile(r"(?i)\b((?:bearer|token|digest|negotiate|ntlm)\s+)[A-Za-z0-9._~+/=-]{8,}"),
    # a token in a query string: ?key=..., &access_token=..., &X-Amz-Signature=...
    re.compile(r"(?i)([?&;](?:key|sig|auth|code|" + _SECRET_NAME[3:-1] + r")=)[^&#\s\"'<>]+"),
    # a header or field named for a credential: x-api-key: ..., api_key=..., "password": "..."
    re.compile(r"(?i)(\b" + _SECRET_NAME + r"[\"']?\s*[:=]\s*[\"']?)[^\s\"',}&]{4,}"),
    re.compile(r"()\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}"),
)
_BASIC = re.compile(r"\b(Basic\s+)([A-Za-z0-9+/]{4,}={0,2})")


def _basic_credentials(m: re.Match) -> str:
    """`Basic <base64 of user:password>` becomes `Basic ***`; `Basic facts` (no credentials) stays."""
    try:
        decoded = base64.b64decode(m.group(2), validate=True)
    except (ValueError, binascii.Error):
        return m.group(0)
    return m.group(1) + "***" if b":" in decoded else m.group(0)


def _env_secrets() -> list[str]:
    """The secrets the environment holds: the keys, and the user:password of any endpoint or proxy URL (as
    written, URL-decoded, and base64-encoded as HTTP Basic sends it)."""
    out = []
    for name in _SECRET_ENV:
        key = os.environ.get(name)
        if key and len(key) >= 4:
            out.append(key)
            if len(key) >= 12:  # servers often echo a key shortened: `sk-abc...wxyz`
                out += [key[:8], key[-4:]]
    for name in _URL_ENV:
        try:
            url = urlsplit(os.environ.get(name) or "")
        except ValueError:
            continue
        if "@" not in url.netloc:
            continue
        userinfo = url.netloc.rsplit("@", 1)[0]
        user, _, password = userinfo.partition(":")
        for raw in (userinfo, password):
            if len(raw) >= 3:
                out += [raw, unquote(raw)]
        plain = f"{unquote(user)}:{unquote(password)}"
        out.append(base64.b64encode(plain.encode()).decode())
    return sorted({s for s in out if len(s) >= 3}, key=len, reverse=True)


def redact_secrets(text: object) -> str:
    """`text` with every secret scrubbed: the keys set in the environment (and their visible tails), the
    user:password of the endpoint URL (plain, URL-decoded and base64), credentials in any URL, any
    `Authorization` value whatever its scheme, `Bearer`/`Basic` tokens, API-key headers and fields, and tokens in
    query strings become `***`. Use it wherever an exception's text can reach the user or a log."""
    text = str(text)
    for secret in _env_secrets():
        text = text.replace(secret, "***")
    for pat in _SECRET_PATTERNS:
        text = pat.sub(lambda m: m.group(1) + "***", text)
    return _BASIC.sub(_basic_credentials, text)


def parse_json(answer: str, kind: type = dict):
    """The JSON value of type `kind` (dict or list) in an LLM answer, or None. The answer is read as JSON first;
    near-JSON (a Markdown fence, prose around it, unquoted keys, single quotes, trailing commas, a cut-off end)
    is mended by json-repair before it is given up."""
    text = (answer or "").strip()
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, kind):
        from json_repair import repair_json

        try:
            value = repair_json(text, return_objects=True, skip_json_loads=True)
        except Exception:  # the repairer gave up on this text: as good as no JSON
            value = None
        if isinstance(value, list) and kind is dict:  # prose between values: the first object is the answer
            value = next((v for v in value if isinstance(v, dict) and v), None)
    return value if isinstance(value, kind) else None


def is_local_endpoint(url: str | None) -> bool:
    """True for an endpoint on this machine (127.0.0.1, ::1, localhost): a local server such as llama.cpp, which
    answers one request at a time."""
    try:
        host = urlsplit(url or "").hostname or ""
    except ValueError:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def llm_model_name(default: str | None = None) -> str | None:
    return os.environ.get("ROLECORPUS_LLM_MODEL") or os.environ.get("OPENAI_MODEL") or default


def chat_model_from_env(model: str | None = None, temperature: float = 0.0, timeout: float = 60.0, max_retries: int = 0,
                        max_tokens: int | None = None):
    """A `langchain_openai.ChatOpenAI` for the configured endpoint, or InputError if none is set. `timeout` is the
    HTTP client's: the longest wait for the connection and for each read; `max_retries` 0 so that no request is
    sent twice behind the caller's back."""
    if not llm_configured():
        raise InputError("no LLM configured: set OPENAI_BASE_URL and/or OPENAI_API_KEY (and ROLECORPUS_LLM_MODEL)")
    try:
        from langchain_openai import ChatOpenAI
    except ImportError:  # pragma: no cover
        raise InputError("langchain-openai is not installed: pip install 'rolecorpus[llm]'") from None
    name = model or llm_model_name("gpt-4o-mini")
    extra = {}
    if max_tokens:
        # langchain-openai sends `max_completion_tokens`, which OpenAI wants; llama.cpp's server (0.3.x) reads only
        # `max_tokens` and ignores the other: a server on this machine gets `max_tokens` in the body as is
        local = is_local_endpoint(os.environ.get("OPENAI_BASE_URL"))
        extra = {"extra_body": {"max_tokens": int(max_tokens)}} if local else {"max_tokens": int(max_tokens)}
    return ChatOpenAI(
        model=name,
        temperature=temperature,
        timeout=timeout,
        max_retries=max_retries,
        api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
        base_url=os.environ.get("OPENAI_BASE_URL") or None,
        **extra,
    )

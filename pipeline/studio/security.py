"""The studio's guards, pure ASGI middleware wrapped around every route (pages added later get them too):

- the Host header must name the loopback (Starlette's TrustedHostMiddleware), so a rebound DNS name cannot read it;
- when the studio is served beyond the loopback (`rolecorpus studio --host`), every request needs the token the
  studio printed (`?token=` once, then a cookie), as Jupyter does;
- a state-changing request (POST...) from another origin (`Origin`, `Sec-Fetch-Site`) is refused;
- a state-changing request must carry the CSRF token of the page the studio drew (asgi-csrf: a signed cookie
  matched by the form field `csrftoken` or the header `x-csrftoken`); `csrf_token()` gives templates the token.
  A multipart form's token (a plain upload form) is read here (form_token.py) and checked the same way.

A refused request gets a short error page (403, or 400 for a malformed one), never a traceback.
"""

from __future__ import annotations

import secrets
from http.cookies import CookieError, SimpleCookie

from starlette.datastructures import URL, Headers, MutableHeaders

from .csrf import _csrf_getter, csrf_token  # noqa: F401  (csrf_token: the templates' token, kept importable here)

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
TOKEN_COOKIE = "rolecorpus_studio_token"



async def _refuse(scope, receive, send, message: str, status: int = 403) -> None:
    from .render import error_page

    await error_page(message, status)(scope, receive, send)


class TokenGate:
    """Every request needs `token` (query `?token=`, the cookie it sets, or `Authorization: token ...`); no-op
    when the token is None (the loopback-only studio)."""

    def __init__(self, app, token: str | None = None):
        self.app, self.token = app, token

    def _given(self, scope) -> tuple[str, bool]:
        headers = Headers(scope=scope)
        query = URL(scope=scope).query
        from urllib.parse import parse_qs

        in_query = (parse_qs(query).get("token") or [""])[0]
        if in_query:
            return in_query, True
        auth = headers.get("authorization", "")
        if auth.lower().startswith("token "):
            return auth[6:].strip(), False
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # a malformed cookie header is no token
            return "", False
        return (cookie[TOKEN_COOKIE].value if TOKEN_COOKIE in cookie else ""), False

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or self.token is None:
            return await self.app(scope, receive, send)
        given, from_query = self._given(scope)
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            return await _refuse(scope, receive, send, "this studio needs its token: open the address "
                                 "`rolecorpus studio` printed (…/?token=...)", 403)
        if not from_query:
            return await self.app(scope, receive, send)

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).append(
                    "set-cookie", f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict")
            await send(message)

        await self.app(scope, receive, send_with_cookie)


class SameOrigin:
    """Refuse a state-changing request that a page of another origin sent (its `Origin` is not this studio's
    scheme://host:port, or the browser says `Sec-Fetch-Site: cross-site`/`same-site`). A request with neither
    header (curl, scripts) goes on to the CSRF token check."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            headers = Headers(scope=scope)
            origin, site = headers.get("origin"), headers.get("sec-fetch-site")
            own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"
            if site in ("cross-site", "same-site") or (origin is not None and origin.rstrip("/") != own):
                return await _refuse(scope, receive, send, f"a request from another site ({origin or site}) "
                                     "cannot change this project; use the studio's own pages", 403)
        await self.app(scope, receive, send)


class _Everywhere:
    """asgi-csrf's `always_protect` set that holds every path: a request without cookies is checked too (the
    studio has no login cookie, so asgi-csrf's default would let a cookie-less forged form through)."""

    def __contains__(self, path) -> bool:
        return True


async def _csrf_failed(scope, send, message_id) -> None:
    from .render import error_page

    async def nothing():
        return {"type": "http.disconnect"}

    await error_page("the form was not drawn by this studio (missing or stale CSRF token): reload the page and "
                     "try again", 403)(scope, nothing, send)


class CSRF:
    """asgi-csrf around the app; the token of each request is put where `csrf_token()` finds it. A body asgi-csrf
    cannot parse (bad multipart, undecodable form) answers 400 instead of an internal error."""

    def __init__(self, app):
        from asgi_csrf import asgi_csrf_decorator

        async def inner(scope, receive, send):
            scope.get("rolecorpus.csrf", {})["passed"] = True
            _csrf_getter.set(scope.get("csrftoken"))
            await app(scope, receive, send)

        # a cookie name of its own per studio: two studios on one host (cookies ignore the port) keep theirs
        self.cookie_name, self.secret = f"rolecorpus_csrf_{secrets.token_hex(4)}", secrets.token_urlsafe(32)
        self.wrapped = asgi_csrf_decorator(
            cookie_name=self.cookie_name, signing_secret=self.secret,
            always_protect=_Everywhere(), cookie_samesite="Strict", send_csrf_failed=_csrf_failed)(inner)

    def _matches_cookie(self, scope, given: str | None) -> bool:
        """asgi-csrf's check: the request's cookie is a token this studio signed, and `given` is that token."""
        from itsdangerous import BadSignature, URLSafeSerializer

        cookie = SimpleCookie()
        try:
            cookie.load(Headers(scope=scope).get("cookie", ""))
            signed = cookie[self.cookie_name].value if self.cookie_name in cookie else ""
            URLSafeSerializer(self.secret).loads(signed, "csrftoken")
        except (BadSignature, CookieError):  # a forged or stale cookie, a malformed cookie header
            return False
        return bool(given) and secrets.compare_digest(given.encode(), signed.encode())

    async def _multipart(self, scope, receive, send):
        """A multipart POST: its token from the `x-csrftoken` header or the form's first field, checked here; a
        good one goes on in the header asgi-csrf checks first, with the body replayed."""
        from .form_token import MalformedForm, multipart_token

        headers = Headers(scope=scope)
        given = headers.get("x-csrftoken")
        if given is None:
            try:
                given, receive = await multipart_token(headers.get("content-type", ""), receive)
            except MalformedForm:
                return await _refuse(scope, receive, send, "a request body the studio cannot read (malformed form)",
                                     400)
        if not self._matches_cookie(scope, given):
            return await _csrf_failed(scope, send, None)
        raw = [(k, v) for k, v in scope["headers"] if k != b"x-csrftoken"] + [(b"x-csrftoken", given.encode())]
        await self._checked({**scope, "headers": raw}, receive, send)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.wrapped(scope, receive, send)
        content_type = Headers(scope=scope).get("content-type", "").split(";", 1)[0].strip().lower()
        if scope["method"] not in SAFE_METHODS and content_type == "multipart/form-data":
            return await self._multipart(scope, receive, send)
        await self._checked(scope, receive, send)

    async def _checked(self, scope, receive, send):
        state: dict = {}
        try:
            await self.wrapped({**scope, "rolecorpus.csrf": state}, receive, send)
        except Exception:
            if state.get("passed"):  # raised by the app behind the check: its own handlers answer
                raise
            await _refuse(scope, receive, send, "a request body the studio cannot read (malformed form)", 400)


def middleware(token: str | None = None, allowed_hosts=LOOPBACK_HOSTS) -> list:
    """The guards in order, outermost first, for `Starlette(middleware=...)`."""
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    return [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts), www_redirect=False),
            Middleware(TokenGate, token=token), Middleware(SameOrigin), Middleware(CSRF)]

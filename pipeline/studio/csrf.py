"""The CSRF token of the request being answered, for the templates (set by the studio's CSRF middleware)."""

from __future__ import annotations

from contextvars import ContextVar

_csrf_getter: ContextVar = ContextVar("rolecorpus_csrf_getter", default=None)


def csrf_token() -> str:
    """The CSRF token of the request being answered ("" outside a request, e.g. the static report)."""
    getter = _csrf_getter.get()
    return getter() if getter else ""

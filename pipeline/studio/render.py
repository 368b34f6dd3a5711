"""The Jinja2 templates of the studio and the static report, the page and error responses, and the stylesheet to
inline into a static page."""

from __future__ import annotations

import functools
from pathlib import Path

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"


@functools.lru_cache(maxsize=1)
def templates():
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
    env.filters["highlight"] = highlight
    env.globals["csrf_input"] = csrf_input
    return env


def csrf_input():
    """The hidden form field with the request's CSRF token: every POST form of a template holds one."""
    from markupsafe import Markup, escape

    from .csrf import csrf_token

    return Markup(f'<input type="hidden" name="csrftoken" value="{escape(csrf_token())}">')


def highlight(text: str, words: str):
    """`text` escaped, with every occurrence of `words` (any case) marked."""
    import re

    from markupsafe import Markup, escape

    if not words:
        return escape(text)
    parts = re.split(f"({re.escape(words)})", text, flags=re.IGNORECASE)
    return Markup("".join(f"<mark>{escape(p)}</mark>" if i % 2 else str(escape(p)) for i, p in enumerate(parts)))


def inline_css() -> str:
    return (STATIC / "studio.css").read_text(encoding="utf-8")


def page(template: str, status: int = 200, **ctx):
    from starlette.responses import HTMLResponse

    from .csrf import csrf_token

    return HTMLResponse(templates().get_template(template).render(csrftoken=csrf_token(), **ctx), status_code=status)


def error_page(message: str, status: int = 400):
    """A page that says what is wrong (secrets scrubbed, one line)."""
    from extractors.llm import redact_secrets

    return page("error.html", status, title="Something is wrong with that request",
                purpose="The studio could not do what was asked; the message says why.",
                message=" ".join(redact_secrets(message).split()))


def project_of(request):
    """The project the running studio serves (set by `make_app`)."""
    return request.app.state.project

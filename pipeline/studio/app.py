"""The studio's Starlette application: the routes, the pages about characters (list, add, corpus report, stories,
chat) and the error pages; the review pages are in `review_pages.py`.

`make_app(project)` builds it, every route behind the guards of `security.py` (loopback host names, the token when
served beyond the loopback, same origin and a CSRF token for every POST); `rolecorpus studio` serves it on
127.0.0.1. Bad requests (an unknown character or
work, a path outside the project, a line that is gone) answer with a page that says what is wrong, never a
traceback. Every handler reads the project's files afresh, so the pages show what the CLI and DVC wrote.
"""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from extractors.characters import get_character, load_characters
from extractors.errors import InputError
from extractors.ids import check_id

from ..paths import Project
from ..report import corpus_stats, report_charts
from ..settings import load_settings
from . import build_pages, voice_pages, works_pages
from .overview import character_rows
from .chat_turns import chat_turns, packaged
from .render import STATIC, error_page, page, project_of
from .review_pages import clip, decide, media, review
from .security import LOOPBACK_HOSTS, middleware


async def characters(request: Request):
    project = project_of(request)
    return page("characters.html", title="Characters", nav="Characters", rows=character_rows(project),
                works=load_settings(project.pipeline_yaml).works,
                flash=request.query_params.get("flash"),
                purpose="Every configured character with its works, lines, stories, embedding model and build "
                        "state; add a new one below.")


async def add_character(request: Request):
    """The form of the characters page: the same checks and the same files as `rolecorpus add-character`."""
    from extractors.characters import Character

    from ..works import check_works, create_character, work_language, works_title

    project = project_of(request)
    form = await request.form()
    settings = load_settings(project.pipeline_yaml)
    aliases = [a.strip() for a in str(form.get("aliases", "")).split(",") if a.strip()]
    cid = check_id(str(form.get("id", "")).strip(), "character id")
    work = str(form.get("work", "")).strip()
    series = str(form.get("series", "")).strip()
    works = [work] if work else []
    if not works and not series:
        raise InputError("choose the work the character speaks in")
    check_works(settings, works, project.pipeline_yaml)
    language = str(form.get("language", "")) or work_language(settings, works)
    if language not in ("en", "zh"):
        raise InputError(f"language must be en or zh, not {language!r}")
    gender = str(form.get("gender", "")) or None
    if gender not in (None, "male", "female"):
        raise InputError(f"gender must be male or female, not {gender!r}")
    ch = Character(id=cid, name=str(form.get("name", "")).strip(), series=series or works_title(settings, works),
                   language=language, aliases=list(dict.fromkeys(aliases)), gender=gender)
    create_character(project, ch, works)
    msg = f"wrote configs/characters/{cid}.yaml" + (f", linked to {work}: build it on the Build page" if work else "")
    return RedirectResponse("/?" + urlencode({"flash": msg}), status_code=303)


async def character(request: Request):
    stats = corpus_stats(project_of(request), request.path_params["cid"])
    ch = stats["character"]
    return page("character.html", title=f"{ch.name}: corpus at a glance", nav="Characters", stats=stats,
                charts=report_charts(stats),
                purpose=f"What the corpus of {ch.name} ({ch.series}) holds: where the lines come from, how sure "
                        "their speakers are, how long the stories are and whom the character answers.")


async def stories(request: Request):
    from ..stories import read_stories

    project = project_of(request)
    cid = request.path_params.get("cid") or request.query_params.get("character")
    q = request.query_params.get("q", "").strip()
    hits, total = [], 0
    if cid:
        cid = get_character(project.configs, cid).id
        every = read_stories(project.stories(cid)) if project.stories(cid).is_file() else []
        total = len(every)
        hits = [s for s in every if q.casefold() in s.text.casefold()] if q else every
    return page("stories.html", title="Stories" + (f" of {cid}" if cid else ""), nav="Stories", cid=cid, q=q,
                hits=hits, total=total, characters=sorted(load_characters(project.configs)),
                purpose="Search the stories a character's chat retrieves from: the scenes cut from its works.")


async def chat(request: Request):
    """One turn of `rolecorpus chat` (pipeline/commands/chat.py's bot, kept per character while the studio runs)."""
    from ..bots import open_bot as _bot

    project, bots = project_of(request), request.app.state.bots
    cid = request.path_params.get("cid") or request.query_params.get("character")
    answer, note, name, text, role = None, None, None, "", "User"
    if cid:
        cid = get_character(project.configs, cid).id
    transcript: list = []
    if request.method == "POST":
        form = await request.form()
        text, role = str(form.get("text", "")).strip(), str(form.get("role", "User")).strip() or "User"
        cid = get_character(project.configs, str(form.get("character") or cid or "")).id
        if not text:
            raise InputError("say something first: the message is empty")
        if not (project.package(cid) / "manifest.json").is_file():
            raise InputError(f"character {cid!r} has no package yet: build it first (Build), then chat")
        if cid not in bots:
            bots[cid] = _bot(cid, None, False)
        bot, note = bots[cid]
        answer, name = bot.ask(role, text), bot.name
        transcript = chat_turns(str(form.get("transcript", "")), role, text, name, answer)
    return page("chat.html", title="Chat" + (f" with {cid}" if cid else ""), nav="Chat", cid=cid,
                characters=packaged(project), answer=answer, note=note, name=name,
                text="", role=role, transcript=transcript,
                purpose="Talk with a character through the same runtime as `rolecorpus chat`: the stories it "
                        "retrieved are shown under the answer (the LLM's when one is configured, else the best "
                        "original line).")


async def input_error(request: Request, exc: InputError):
    msg = str(exc)
    return error_page(msg, 404 if "unknown character" in msg or "unknown work" in msg else 400)


async def http_error(request: Request, exc: HTTPException):
    return error_page(f"{request.url.path}: {exc.detail}", exc.status_code)


async def unexpected(request: Request, exc: Exception):
    return error_page(f"{type(exc).__name__}: {exc} (unexpected; see the studio's terminal)", 500)


def make_app(project: Project | None = None, token: str | None = None,
             allowed_hosts=LOOPBACK_HOSTS) -> Starlette:
    """The studio for `project`; `token` (required from every request) and `allowed_hosts` (Host names answered)
    are for a studio served beyond the loopback."""
    routes = [
        Route("/", characters), Route("/characters", add_character, methods=["POST"]),
        Route("/characters/{cid}", character),
        Route("/review", review), Route("/review", decide, methods=["POST"]),
        Route("/clip", clip), Route("/media", media),
        Route("/stories", stories), Route("/stories/{cid}", stories),
        Route("/chat", chat, methods=["GET", "POST"]), Route("/chat/{cid}", chat, methods=["GET", "POST"]),
        *works_pages.routes(), *voice_pages.routes(), *build_pages.routes(),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, middleware=middleware(token, allowed_hosts),
                    exception_handlers={InputError: input_error, HTTPException: http_error, Exception: unexpected})
    app.state.project = project or Project.current()
    app.state.bots = {}
    # the guards are built now, not by the first request: first requests answered at once from several threads
    # would each build their own, and a CSRF guard of its own (its cookie name and secret) refuses the others' forms
    app.middleware_stack = app.build_middleware_stack()
    return app

"""The studio's Starlette application: one handler per page, all reading and writing the project's files.

`make_app(project)` builds it; `rolecorpus studio` serves it on 127.0.0.1. Bad requests (an unknown character or
work, a path outside the project, a line that is gone) answer with a page that says what is wrong, never a
traceback.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from extractors.characters import get_character, load_characters
from extractors.errors import InputError
from extractors.llm import redact_secrets
from extractors.records import read_lines

from ..paths import Project
from ..report import corpus_stats, report_charts
from ..review import record, review_path, read_review
from ..settings import load_settings
from .overview import character_rows
from .queue import clip_wav, find_line, project_file, review_queue
from .render import STATIC, templates


def page(template: str, status: int = 200, **ctx) -> HTMLResponse:
    return HTMLResponse(templates().get_template(template).render(**ctx), status_code=status)


def error_page(message: str, status: int = 400) -> HTMLResponse:
    return page("error.html", status, title="Something is wrong with that request",
                purpose="The studio could not do what was asked; the message says why.",
                message=" ".join(redact_secrets(message).split()))


def _cast_first(project: Project, work: str | None) -> list[str]:
    """Every character id, first (in name order) those who speak in `work` or are built from it: keys 1-9 of the
    review page pick among the first nine."""
    every = sorted(load_characters(project.configs))
    specs = load_settings(project.pipeline_yaml).characters
    cast = {c for c in every if c in specs and work in specs[c].works()}
    if work and project.lines(work).is_file():
        cast |= {ln.speaker for ln in read_lines(project.lines(work)) if ln.speaker in every}
    return sorted(cast) + [c for c in every if c not in cast]


def make_app(project: Project | None = None) -> Starlette:
    project = project or Project.current()
    bots: dict = {}

    async def characters(request: Request):
        return page("characters.html", title="Characters", nav="Characters", rows=character_rows(project),
                    flash=request.query_params.get("flash"),
                    purpose="Every configured character with its works, lines, stories, embedding model and build "
                            "state; add a new one below.")

    async def add_character(request: Request):
        from ..commands.characters import add_character as add

        form = await request.form()
        aliases = [a.strip() for a in str(form.get("aliases", "")).split(",") if a.strip()]
        cid = str(form.get("id", "")).strip()
        add(cid, str(form.get("name", "")).strip(), str(form.get("series", "")).strip(), aliases,
            str(form.get("language", "en")), None, "", [], False, False)
        msg = f"wrote configs/characters/{cid}.yaml; add it to characters: in configs/pipeline.yaml to build it"
        return RedirectResponse("/?" + urlencode({"flash": msg}), status_code=303)

    async def character(request: Request):
        stats = corpus_stats(project, request.path_params["cid"])
        ch = stats["character"]
        return page("character.html", title=f"{ch.name}: corpus at a glance", nav="Characters", stats=stats,
                    charts=report_charts(stats),
                    purpose=f"What the corpus of {ch.name} ({ch.series}) holds: where the lines come from, how sure "
                            "their speakers are, how long the stories are and whom the character answers.")

    async def review(request: Request):
        work = request.query_params.get("work") or None
        queue = review_queue(project, work)
        works = list(load_settings(project.pipeline_yaml).works)
        sources = load_settings(project.pipeline_yaml).sources
        decided = [{"work": w, **vars(d)} for w in works
                   for d in read_review(review_path(project.root, sources, w)).values()]
        return page("review.html", title="Review doubtful lines", nav="Review", item=queue[0] if queue else None,
                    queue=queue, work=work, works=works, decided=decided[::-1], review_dir=f"{sources}/review/",
                    characters=_cast_first(project, queue[0].work if queue else None),
                    flash=request.query_params.get("flash"),
                    purpose="Decide who said each doubtful line (listen, read the context, then accept the guess, pick "
                            "another character, mark nobody we track, or skip); decisions are saved at once in "
                            "<sources>/review/<work>.jsonl and applied when the lines are rebuilt.")

    async def decide(request: Request):
        form = await request.form()
        work, key = str(form.get("work", "")), str(form.get("key", ""))
        known = load_characters(project.configs)
        speaker = str(form.get("speaker", "")).strip() or None
        if speaker is not None and speaker not in known:
            raise InputError(f"unknown character {speaker!r} (configured: {', '.join(sorted(known))})")
        ln = find_line(project, work, key)
        path = review_path(project.root, load_settings(project.pipeline_yaml).sources, work)
        dec = record(path, key, ln, str(form.get("decision", "")), speaker)
        msg = f"saved: {dec.decision}{' ' + dec.speaker if dec.speaker else ''} for “{ln.text[:60]}”"
        return RedirectResponse("/review?" + urlencode({"flash": msg, **({"work": request.query_params["work"]}
                                if request.query_params.get("work") else {})}), status_code=303)

    async def clip(request: Request):
        data = clip_wav(project, request.query_params.get("work", ""), request.query_params.get("key", ""))
        return Response(data, media_type="audio/wav")

    async def media(request: Request):
        path = project_file(project, request.query_params.get("path", ""))
        if not path.is_file():
            raise InputError("no such file in the project", request.query_params.get("path", ""))
        return FileResponse(path)

    async def stories(request: Request):
        from ..stories import read_stories

        cid = request.path_params.get("cid") or request.query_params.get("character")
        q = request.query_params.get("q", "").strip()
        hits, total = [], 0
        if cid:
            ch = get_character(project.configs, cid)
            cid = ch.id
            path = project.stories(cid)
            every = read_stories(path) if path.is_file() else []
            total = len(every)
            hits = [s for s in every if q.casefold() in s.text.casefold()] if q else every
        return page("stories.html", title="Stories" + (f" of {cid}" if cid else ""), nav="Stories", cid=cid, q=q,
                    hits=hits, total=total, characters=sorted(load_characters(project.configs)),
                    purpose="Search the stories a character's chat retrieves from: the scenes cut from its works.")

    async def chat(request: Request):
        from ..commands.chat import _bot

        cid = request.path_params.get("cid") or request.query_params.get("character")
        answer, note, name, text, role = None, None, None, "", "User"
        if cid:
            cid = get_character(project.configs, cid).id
        if request.method == "POST":
            form = await request.form()
            text, role = str(form.get("text", "")).strip(), str(form.get("role", "User")).strip() or "User"
            cid = get_character(project.configs, str(form.get("character") or cid or "")).id
            if not text:
                raise InputError("say something first: the message is empty")
            if cid not in bots:
                bots[cid] = _bot(cid, None, False)
            bot, note = bots[cid]
            answer, name = bot.ask(role, text), bot.name
        return page("chat.html", title="Chat" + (f" with {cid}" if cid else ""), nav="Chat", cid=cid,
                    characters=sorted(load_characters(project.configs)), answer=answer, note=note, name=name,
                    text=text, role=role,
                    purpose="Talk with a character through the same runtime as `rolecorpus chat`: the stories it "
                            "retrieved are shown under the answer (the LLM's when one is configured, else the best "
                            "original line).")

    async def input_error(request: Request, exc: InputError):
        msg = str(exc)
        return error_page(msg, 404 if "unknown character" in msg or "unknown work" in msg else 400)

    async def unexpected(request: Request, exc: Exception):
        return error_page(f"{type(exc).__name__}: {exc} (unexpected; see the studio's terminal)", 500)

    async def http_error(request: Request, exc: HTTPException):
        return error_page(f"{request.url.path}: {exc.detail}", exc.status_code)

    routes = [
        Route("/", characters), Route("/characters", add_character, methods=["POST"]),
        Route("/characters/{cid}", character),
        Route("/review", review), Route("/review", decide, methods=["POST"]),
        Route("/clip", clip), Route("/media", media),
        Route("/stories", stories), Route("/stories/{cid}", stories),
        Route("/chat", chat, methods=["GET", "POST"]), Route("/chat/{cid}", chat, methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=Path(STATIC)), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={InputError: input_error, HTTPException: http_error, Exception: unexpected})

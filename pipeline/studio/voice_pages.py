"""The cast page of a tv work: the voices `speakers discover` found in its episodes (pipeline/studio/voices.py),
each with its size and sample clips to listen to, a button that finds them in the background, and a form that names
a voice as a character (an existing one, or a new one drafted and linked to the work)."""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse

from extractors.errors import InputError
from extractors.ids import check_id

from ..settings import load_settings
from ..works import create_character, project_characters, work_first, work_language, works_title
from .render import page, project_of
from .voices import name_voice, read_status, read_voices, start_discovery, voices_dir

CLIP = re.compile(r"voice_\d+_\d+\.wav")


def _work(request: Request):
    project, wid = project_of(request), request.path_params["wid"]
    settings = load_settings(project.pipeline_yaml)
    if wid not in settings.works:
        raise InputError(f"unknown work {wid!r} (known: {', '.join(settings.works) or 'none'})")
    if settings.works[wid].kind != "tv":
        raise InputError(f"{wid} is a {settings.works[wid].kind} work: its cast is found in its text, not by voice")
    return project, wid, settings


async def voices_page(request: Request):
    project, wid, settings = _work(request)
    meta = read_voices(project, wid)
    chars = work_first(project_characters(project, settings), wid)
    folder = voices_dir(project, wid)
    return page("voices.html", title=f"The voices of {settings.works[wid].display_title(wid)}", nav="Works",
                wid=wid, voices=(meta or {}).get("voices"), discovery=read_status(project, wid), characters=chars,
                folder=folder.relative_to(project.root).as_posix() if folder.is_relative_to(project.root) else folder,
                model=settings.works[wid].options.get("speakers"), flash=request.query_params.get("flash"),
                purpose="Who speaks in these episodes, by voice: every line embedded and the voices clustered (as "
                        "`rolecorpus speakers discover` does). Listen to a voice's clips and name it: its lines go to "
                        "that character, and the next build labels the work's lines by voice.")


async def discover(request: Request):
    project, wid, _ = _work(request)
    if start_discovery(project, wid):
        msg = f"finding the voices of {wid} (this takes a while: every line is embedded)"
    else:
        msg = "the voices of this work are being found already; wait for it to finish"
    return RedirectResponse(f"/works/{quote(wid)}/cast?" + urlencode({"flash": msg}), status_code=303)


async def status(request: Request):
    project, wid, _ = _work(request)
    return JSONResponse(read_status(project, wid), headers={"cache-control": "no-store"})


async def clip(request: Request):
    """A sample clip of the work's discovery (only a clip file voices.json names)."""
    project, wid, _ = _work(request)
    name = request.path_params["name"]
    meta = read_voices(project, wid) or {"voices": []}
    named = {s["clip"] for v in meta["voices"] for s in v.get("samples", [])}
    if not CLIP.fullmatch(name) or f"clips/{name}" not in named:
        raise InputError(f"no such clip of {wid}", name)
    path = voices_dir(project, wid) / "clips" / name
    if not path.is_file():
        raise InputError(f"no such clip of {wid} (run the discovery again)", name)
    return FileResponse(path, media_type="audio/wav")


async def name(request: Request):
    """Name a voice: a configured character (the select) or a new one (the text field: drafted, linked)."""
    from extractors.characters import Character, slug

    project, wid, settings = _work(request)
    form = await request.form()
    cluster, cid = str(form.get("cluster") or ""), str(form.get("character") or "").strip()
    new = " ".join(str(form.get("new_name") or "").split())
    if read_voices(project, wid) is None:
        raise InputError(f"no voices found for {wid} yet: press 'Find the voices' first")
    if new:
        cid = check_id(slug(new), "character id")
        if cid not in project_characters(project, settings):
            create_character(project, Character(id=cid, name=new, series=works_title(settings, [wid]),
                                                language=work_language(settings, [wid])), [wid])
    if not cid:
        raise InputError("choose a character for the voice, or type a new name")
    n, option = name_voice(project, wid, cluster, cid)
    msg = f"{cluster} = {cid}: {n} lines named"
    if option:
        msg += f"; {wid} now labels its lines by voice (speakers: {option}): build it"
    return RedirectResponse(f"/works/{quote(wid)}/cast?" + urlencode({"flash": msg}), status_code=303)


def routes() -> list:
    from starlette.routing import Route

    return [Route("/works/{wid}/voices/discover", discover, methods=["POST"]),
            Route("/works/{wid}/voices/status.json", status),
            Route("/works/{wid}/voices/clips/{name}", clip),
            Route("/works/{wid}/voices/name", name, methods=["POST"])]

"""The studio's review pages: the queue of doubtful lines with the first one to decide, the decision form (written
at once to the work's review file, pipeline/review.py), the audio clip of a line, and the media files of the configured works by path."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response

from extractors.characters import load_characters
from extractors.errors import InputError
from extractors.records import read_lines

from ..paths import Project
from ..review import read_review, record, review_path
from ..settings import load_settings
from .queue import clip_wav, configured_media, find_line, review_queue
from .render import page, project_of


def cast_first(project: Project, work: str | None) -> list[str]:
    """Every character id, first (in name order) those who speak in `work` or are built from it: keys 1-9 of the
    review page pick among the first nine."""
    every = sorted(load_characters(project.configs))
    specs = load_settings(project.pipeline_yaml).characters
    cast = {c for c in every if c in specs and work in specs[c].works()}
    if work and project.lines(work).is_file():
        cast |= {ln.speaker for ln in read_lines(project.lines(work)) if ln.speaker in every}
    return sorted(cast) + [c for c in every if c not in cast]


async def review(request: Request):
    project = project_of(request)
    work = request.query_params.get("work") or None
    queue = review_queue(project, work)
    settings = load_settings(project.pipeline_yaml)
    decided = [{"work": w, **vars(d)} for w in settings.works
               for d in read_review(review_path(project.root, settings.sources, w)).values()]
    return page("review.html", title="Review doubtful lines", nav="Review", item=queue[0] if queue else None,
                queue=queue, work=work, works=list(settings.works), decided=decided[::-1],
                review_dir=f"{settings.sources}/review/", flash=request.query_params.get("flash"),
                characters=cast_first(project, queue[0].work if queue else None),
                names={cid: ch.name for cid, ch in load_characters(project.configs).items()},
                purpose="Decide who said each doubtful line (listen, read the context, then accept the guess, pick "
                        "another character, mark nobody we track, or skip); decisions are saved at once in "
                        f"{settings.sources}/review/<work>.jsonl and applied when the lines are rebuilt.")


async def decide(request: Request):
    project = project_of(request)
    form = await request.form()
    work, key = str(form.get("work", "")), str(form.get("key", ""))
    known = load_characters(project.configs)
    # a speaker's name button (`pick`) decides for that character; else the select and the decision field
    picked = str(form.get("pick", "")).strip()
    speaker = picked or str(form.get("speaker", "")).strip() or None
    if speaker is not None and speaker not in known:
        raise InputError(f"unknown character {speaker!r} (configured: {', '.join(sorted(known))})")
    ln = find_line(project, work, key)
    path = review_path(project.root, load_settings(project.pipeline_yaml).sources, work)
    # in a worker thread: the review file's lock may wait for another studio or the CLI
    decision = "character" if picked else str(form.get("decision", ""))
    dec = await run_in_threadpool(record, path, key, ln, decision, speaker)
    query = {"flash": f"saved: {dec.decision}{' ' + dec.speaker if dec.speaker else ''} for “{ln.text[:60]}”"}
    if request.query_params.get("work"):
        query["work"] = request.query_params["work"]
    return RedirectResponse("/review?" + urlencode(query), status_code=303)


async def clip(request: Request):
    data = clip_wav(project_of(request), request.query_params.get("work", ""), request.query_params.get("key", ""))
    return Response(data, media_type="audio/wav")


async def media(request: Request):
    """A media file of the configured works by its path (`configured_media`: never .git, configs/, .cache, nor
    anything outside the project)."""
    path = configured_media(project_of(request), request.query_params.get("path", ""))
    if not path.is_file():
        raise InputError("no such file in the project", request.query_params.get("path", ""))
    return FileResponse(path)

"""The studio's build and download routes: start a build (`builds.start_build`), its progress page and the JSON
status every page polls, and a built character's package (a zip made in memory) and ChatHaruhi role file."""

from __future__ import annotations

import io
import zipfile
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response

from extractors.characters import get_character
from extractors.errors import InputError

from ..settings import load_settings
from .builds import read_status, start_build
from .render import page, project_of


async def build_page(request: Request):
    project = project_of(request)
    settings = load_settings(project.pipeline_yaml)
    packaged = [cid for cid in sorted(settings.characters) if (project.package(cid) / "manifest.json").is_file()]
    return page("build.html", title="Build", nav="Build", build=read_status(project), works=list(settings.works),
                characters=list(settings.characters), packaged=packaged, flash=request.query_params.get("flash"),
                purpose="Build what is registered: every file of the works into lines, then each character's stories, "
                        "vectors and package. Progress is shown step by step and file by file; it survives a reload "
                        "and shows in every tab.")


async def start(request: Request):
    project = project_of(request)
    settings = load_settings(project.pipeline_yaml)
    target = str((await request.form()).get("target") or "").strip()
    if target and target not in settings.works and target not in settings.characters:
        raise InputError(f"unknown work or character {target!r} to build (known works: "
                         f"{', '.join(settings.works) or 'none'})")
    targets = [target] if target else []
    if start_build(project, targets):
        msg = f"building {target or 'everything registered'}"
    else:
        msg = "a build of this project is already running; wait for it to finish (its progress is below)"
    return RedirectResponse("/build?" + urlencode({"flash": msg}), status_code=303)


async def status(request: Request):
    return JSONResponse(read_status(project_of(request)), headers={"cache-control": "no-store"})


def _built(request: Request) -> tuple[str, object]:
    project = project_of(request)
    cid = get_character(project.configs, request.path_params["cid"]).id
    folder = project.package(cid)
    if not (folder / "manifest.json").is_file():
        raise InputError(f"character {cid!r} has no package yet: build it first (Build)")
    return cid, folder


async def download_zip(request: Request):
    """The package folder data/characters/ID/ as ID.zip (the files under ID/)."""
    cid, folder = _built(request)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                zf.write(path, f"{cid}/{path.relative_to(folder).as_posix()}")
    return Response(buf.getvalue(), media_type="application/zip",
                    headers={"content-disposition": f'attachment; filename="{cid}.zip"'})


async def role_file(request: Request):
    """The ChatHaruhi role file of the package (data/characters/ID/ID.jsonl)."""
    cid, folder = _built(request)
    path = folder / f"{cid}.jsonl"
    if not path.is_file():
        raise InputError(f"the package of {cid!r} has no role file {cid}.jsonl: build it again")
    return FileResponse(path, media_type="application/x-ndjson", filename=f"{cid}.jsonl")


def routes() -> list:
    from starlette.routing import Route

    return [Route("/build", build_page), Route("/build", start, methods=["POST"]),
            Route("/build/status.json", status),
            Route("/characters/{cid}/download.zip", download_zip), Route("/characters/{cid}/role.jsonl", role_file)]

"""The studio's front door: the works page (register a source by upload or by a path on this machine, as
`works add` does), a work's cast (find_cast's table; draft the picked members as characters, as `cast --draft`
does) and a character's edit form (written through `register_characters`, the terminal's validation).

Every write goes through pipeline/works.py and pipeline/discover.py; a refusal is shown as the terminal's one line
on the page it came from.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote, urlencode

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse

from extractors.characters import save_character
from extractors.errors import InputError
from extractors.registry import MEDIA_SUFFIXES
from extractors.textio import max_text_bytes

from ..discover import draft_characters, find_cast
from ..settings import load_settings
from ..works import KINDS, SUBTITLE_SUFFIXES, add_work, default_work_id, edit_pipeline, project_characters, register_characters, work_rows
from .builds import read_status
from .render import page, project_of

MEDIA_MAX_BYTES = 2 * 1024 ** 3   # an episode's audio or video; text sources are held to the project's text limit
CAST_TOP = 30


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split())


def safe_name(filename: str) -> str:
    """A file name that stays one plain name in data/raw/: no folders, no leading dot, only word characters, '.'
    and '-' (`../My Novel (1).txt` -> `My_Novel_1_.txt`)."""
    base = (filename or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = re.sub(r"[^\w.\-]+", "_", base).lstrip("._")
    stem, dot, suffix = base.rpartition(".")
    if dot and len(suffix) <= 8:
        return f"{stem[:100]}.{suffix}" if stem else f"upload.{suffix}"
    return base[:100] or "upload.txt"


def size_limit(name: str) -> int:
    return MEDIA_MAX_BYTES if Path(name).suffix.lower() in MEDIA_SUFFIXES else max_text_bytes()


async def _save_upload(upload: UploadFile, folder: Path, name: str) -> Path:
    """The upload written to `folder/name`, refused (one line) past the size limit for its kind."""
    limit, size = size_limit(name), 0
    dest = folder / name
    with open(dest, "wb") as fh:
        while chunk := await upload.read(1 << 20):
            size += len(chunk)
            if size > limit:
                raise InputError(f"{upload.filename} is larger than {limit // 2 ** 20} MB, the limit for this kind "
                                 "of source (raise ROLECORPUS_MAX_TEXT_MB for a longer text, or name its path)")
            fh.write(chunk)
    if size == 0:
        raise InputError(f"{upload.filename} is empty")
    return dest


def _copy_targets(project, source: Path, wid: str) -> set[Path]:
    """Where add_work may copy `source` (and an episode's subtitles) in data/raw/."""
    raw = project.root.resolve() / "data" / "raw"
    try:
        wid = wid or default_work_id(source)
    except InputError:
        return set()
    names = [source.name, *(source.stem + s for s in SUBTITLE_SUFFIXES)]
    return {folder / n for folder in (raw, raw / wid) for n in names}


def _works_page(request: Request, status: int = 200, error: str | None = None, form: dict | None = None):
    project = project_of(request)
    return page("works.html", status, title="Works", nav="Works", rows=work_rows(project), kinds=KINDS,
                error=error, form=form or {}, flash=request.query_params.get("flash"), build=read_status(project),
                purpose="The sources this project builds characters from. Add one (a novel, a script, a quote page, "
                        "an episode with or without its subtitles) by uploading it or naming its path on this machine; "
                        "then meet its cast, and build.")


async def works(request: Request):
    return _works_page(request)


async def add_work_form(request: Request):
    """Register an uploaded file (kept under data/raw/ with a safe name) or a path on this machine."""
    project = project_of(request)
    biggest = MEDIA_MAX_BYTES + (1 << 20)
    if int(request.headers.get("content-length") or 0) > biggest:
        return _works_page(request, 413, f"the upload is larger than {MEDIA_MAX_BYTES // 2 ** 20} MB")
    form = await request.form(max_files=2, max_fields=20)
    fields = {k: str(form.get(k) or "").strip() for k in ("path", "kind", "id", "title", "language")}
    upload, subs = form.get("file"), form.get("subtitles")
    upload = upload if isinstance(upload, UploadFile) and upload.filename else None
    subs = subs if isinstance(subs, UploadFile) and subs.filename else None
    try:
        if bool(upload) == bool(fields["path"]):
            raise InputError("upload a file or name a path on this machine (one of them)")
        with tempfile.TemporaryDirectory(prefix="rolecorpus-upload-") as tmp:
            if upload:
                source = await _save_upload(upload, Path(tmp), safe_name(upload.filename))
                if subs:  # named after the episode, so add_work finds them beside it
                    await _save_upload(subs, Path(tmp), source.stem + Path(safe_name(subs.filename)).suffix.lower())
            else:
                source = Path(fields["path"]).expanduser()
                if not source.is_absolute():
                    raise InputError(f"name the file by its full path (e.g. /home/me/{source}), not {fields['path']!r}")
            copies = _copy_targets(project, source, fields["id"])
            before = {p for p in copies if p.exists()}
            try:
                added = add_work(project, source, fields["id"] or None, fields["kind"] or "auto",
                                 fields["title"] or None, fields["language"] or None)
            except InputError as e:
                for p in copies - before:  # add_work copies before it checks the id: a refused source leaves none
                    shutil.rmtree(p) if p.is_dir() else p.unlink(missing_ok=True)
                raise InputError(str(e).replace(tmp + "/", "")) from None
    except InputError as e:
        return _works_page(request, 400, _one_line(e), fields)
    where = f" (copied to {added.input})" if added.copied_from is not None or upload else ""
    msg = (f"registered {added.kind} work {added.work!r}: {added.title}{where}" if added.created else
           f"work {added.work!r} was already registered with this source")
    return RedirectResponse("/works?" + urlencode({"flash": msg}), status_code=303)


async def cast(request: Request):
    project, wid = project_of(request), request.path_params["wid"]
    settings = load_settings(project.pipeline_yaml)
    if wid not in settings.works:
        raise InputError(f"unknown work {wid!r} (known: {', '.join(settings.works) or 'none'})")
    if settings.works[wid].kind == "tv":  # an episode's cast is its voices
        from .voice_pages import voices_page

        return await voices_page(request)
    found, error = None, None
    try:
        found = find_cast(project, wid, CAST_TOP)
    except InputError as e:
        error = _one_line(e)
    return page("cast.html", title=f"The cast of {settings.works[wid].display_title(wid)}", nav="Works", wid=wid,
                cast=found, error=error, flash=request.query_params.get("flash"),
                characters=project_characters(project, settings),
                purpose="Who speaks in this work, most lines first, with the names the text gives them and which "
                        "configured character each already is. Pick the ones to keep: each becomes a character "
                        "linked to this work (edit it afterwards).")


async def draft_picked(request: Request):
    """Draft character files for the picked members only (the same cast again, then `draft_characters`)."""
    project, wid = project_of(request), request.path_params["wid"]
    picked = set((await request.form()).getlist("pick"))
    if not picked:
        raise InputError("pick at least one member of the cast (tick its box) before drafting")
    found = find_cast(project, wid, CAST_TOP)
    members = [m for m in found.members if m.id in picked]
    if not members:
        raise InputError(f"none of {', '.join(sorted(picked))} is in the cast of {wid} any more; reload the page")
    written, skipped = draft_characters(project, dataclasses.replace(found, members=members))
    msg = f"drafted {len(written)} character(s) linked to {wid}: {', '.join(p.stem for p in written) or 'none'}"
    if skipped:
        msg += f"; already configured: {', '.join(skipped)}"
    return RedirectResponse(f"/works/{quote(wid)}/cast?" + urlencode({"flash": msg}), status_code=303)


def _character(project, cid: str):
    chars = project_characters(project)
    if cid not in chars:
        raise InputError(f"unknown character {cid!r}")
    return chars[cid]


async def edit_character(request: Request):
    project, cid = project_of(request), request.path_params["cid"]
    ch = _character(project, cid)
    return _edit_page(request, ch, ch.works)


def _edit_page(request: Request, ch, linked: list[str], status: int = 200, error: str | None = None):
    settings = load_settings(project_of(request).pipeline_yaml)
    return page("edit_character.html", status, title=f"Edit {ch.name}", nav="Characters", ch=ch, linked=linked,
                works={w: s.display_title(w) for w, s in settings.works.items()}, error=error,
                flash=request.query_params.get("flash"),
                purpose="The names the sources give this character, whether it narrates, its gender (for 'he'/'she') "
                        "and the personality its chat prompt adds; the works it speaks in. Saved with the same "
                        "checks as the terminal; the next build uses it.")


def _set_works(project, cid: str, works: list[str]) -> None:
    """The character's link in pipeline.yaml set to exactly `works` (register_characters only adds links)."""
    def change(doc) -> None:
        doc["characters"][cid]["work"] = works[0] if len(works) == 1 else works

    edit_pipeline(project, change)


async def save_character_form(request: Request):
    project, cid = project_of(request), request.path_params["cid"]
    old = _character(project, cid)
    form = await request.form()
    works = [w for w in form.getlist("works") if w]
    gender = str(form.get("gender") or "") or None
    try:
        if gender not in (None, "male", "female"):
            raise InputError(f"gender must be male or female, not {gender!r}")
        if old.works and not works:
            raise InputError("keep at least one work: a character speaks somewhere")
        aliases = [a.strip() for a in re.split(r"[,\n]", str(form.get("aliases", ""))) if a.strip()]
        new = dataclasses.replace(old, name=str(form.get("name", "")).strip(), gender=gender,
                                  aliases=list(dict.fromkeys(aliases)), narrator=form.get("narrator") == "on",
                                  personality=str(form.get("personality", "")).strip(), works=[])
        if not new.name:
            raise InputError("the name is empty")
        if works:
            register_characters(project, [new], works, overwrite=True)
        else:  # a character no work links (an older config): its file alone, checked as the terminal does
            save_character(project.configs, new)
        if set(old.works) - set(works):
            _set_works(project, cid, works)
    except InputError as e:
        return _edit_page(request, old, works, 400, _one_line(e))
    except ValueError as e:  # pydantic's check of the Character model
        return _edit_page(request, old, works, 400, _one_line(e).split(" For further information")[0])
    msg = f"saved configs/characters/{cid}.yaml" + (f", linked to {', '.join(works)}" if works else "")
    return RedirectResponse(f"/characters/{quote(cid)}/edit?" + urlencode({"flash": msg}), status_code=303)


def routes() -> list:
    from starlette.routing import Route

    return [Route("/works", works), Route("/works", add_work_form, methods=["POST"]),
            Route("/works/{wid}/cast", cast), Route("/works/{wid}/cast", draft_picked, methods=["POST"]),
            Route("/characters/{cid}/edit", edit_character),
            Route("/characters/{cid}/edit", save_character_form, methods=["POST"])]

"""The voices of a tv work, as `rolecorpus speakers discover` finds them: every line of its episodes embedded
(ECAPA-TDNN) and clustered, written to `data/voices/<work>/` (voices.json, lines.jsonl, embeddings.npz, clips/), in
a background thread of the studio with its progress in `<cache>/studio/voices-<work>.json`. Naming a cluster is
`speakers name`: its lines go to the character and the voice model `data/voices/<work>/model` is refitted; the work
is given that model (its `speakers` option) when it has none, so the next build labels its lines by voice.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from extractors.atomic import atomic_write_text
from extractors.errors import InputError
from extractors.ids import check_id

from ..paths import Project
from ..settings import load_settings

_running: dict[tuple[str, str], threading.Lock] = {}   # (project root, work) -> the lock its discovery holds
_guard = threading.Lock()


def voices_dir(project: Project, wid: str) -> Path:
    """Where the work's voices are: the folder its voice model sits in when that folder holds a discovery
    (`speakers: data/voices/s01/model`), else data/voices/<work> (the terminal's `-o data/voices/<work>`)."""
    spec = load_settings(project.pipeline_yaml).works[wid]
    model = spec.options.get("speakers")
    if model and (project.root / str(model)).parent.joinpath("voices.json").is_file():
        return (project.root / str(model)).parent
    return project.root / "data" / "voices" / check_id(wid, "work id")


def read_voices(project: Project, wid: str) -> dict | None:
    """voices.json of the work's discovery (None when there is none yet)."""
    path = voices_dir(project, wid) / "voices.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        raise InputError("damaged voices.json (run the discovery again)", path) from None


def status_path(project: Project, wid: str) -> Path:
    return project.cache / "studio" / f"voices-{check_id(wid, 'work id')}.json"


def _lock(project: Project, wid: str) -> threading.Lock:
    with _guard:
        return _running.setdefault((str(project.root), wid), threading.Lock())


def read_status(project: Project, wid: str) -> dict:
    try:
        status = json.loads(status_path(project, wid).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"state": "idle"}
    if status.get("state") == "running" and not _lock(project, wid).locked():
        status.update(state="interrupted", error="the studio stopped during this discovery; start it again")
    return status


def discover_work(project: Project, wid: str, progress) -> dict:
    """`speakers discover` over the work's episodes (subtitles beside each, or its `subtitles` option, else
    Whisper), into voices_dir; `progress(**fields)` is told each step. Returns voices.json."""
    from ..batch import expand, file_options, is_batch
    from ..voices import discover_episodes

    spec = load_settings(project.pipeline_yaml).works[wid]
    source = project.root / spec.input
    opts = project.rooted(spec.typed_options(wid, project.pipeline_yaml)).model_copy(update={"speakers": None})
    files = expand(source, "tv", spec.files) if is_batch(source, spec.files) else [source]
    # the work's own subtitles option, else the subtitles beside each episode, if any
    episodes = [(f, opts if opts.subtitles else file_options("tv", opts, f)) for f in files]
    return discover_episodes(project, episodes, voices_dir(project, wid), wid, progress)


def _run(project: Project, wid: str, lock: threading.Lock, discover) -> None:
    status = {"state": "running", "step": "prepare", "item": None, "done": 0, "total": 0, "message": "starting",
              "error": None, "started": time.time(), "finished": None}

    def progress(**changes) -> None:
        status.update(changes)
        status_path(project, wid).parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(status_path(project, wid), json.dumps(status, ensure_ascii=False))

    try:
        progress()
        meta = discover(project, wid, progress)
        progress(state="done", finished=time.time(), message=f"found {len(meta['voices'])} voices")
    except InputError as e:
        progress(state="failed", finished=time.time(), error=" ".join(str(e).split()))
    except Exception as e:  # noqa: BLE001  (the thread's last word: shown on the page, never a traceback)
        progress(state="failed", finished=time.time(), error=f"{type(e).__name__}: {' '.join(str(e).split())}")
    finally:
        lock.release()


def start_discovery(project: Project, wid: str, discover=None) -> bool:
    """Find the work's voices in a background thread; False when that is already running in this studio."""
    lock = _lock(project, wid)
    if not lock.acquire(blocking=False):
        return False
    status_path(project, wid).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(status_path(project, wid), json.dumps({"state": "running", "step": "prepare", "done": 0,
                                                             "total": 0, "message": "starting"}))
    threading.Thread(target=_run, args=(project, wid, lock, discover or discover_work), name="studio-voices",
                     daemon=True).start()
    return True


def name_voice(project: Project, wid: str, cluster: str, cid: str) -> tuple[int, str | None]:
    """`speakers name CLUSTER CID` for the work's discovery (the character linked to the work first); the work
    gets the refitted model as its `speakers` option when it has none. Returns (lines named, option set or None)."""
    from ..voices import name_voices
    from ..works import edit_pipeline, link_character, project_characters

    settings = load_settings(project.pipeline_yaml)
    folder = voices_dir(project, wid)
    check_id(cluster, "cluster id")
    ch = project_characters(project, settings).get(cid)
    if ch is None:
        raise InputError(f"unknown character {cid!r}")
    if wid not in ch.works:
        link_character(project, cid, [wid])
    model = folder / "model"
    n, _, _, _ = name_voices(project, folder, [(cluster, cid)], out=model)
    if settings.works[wid].options.get("speakers"):
        return n, None
    rel = model.relative_to(project.root).as_posix() if model.is_relative_to(project.root) else str(model)

    def give_model(doc) -> None:
        work = doc["works"][wid]
        if work.get("options") is None:
            work["options"] = {}
        work["options"]["speakers"] = rel

    edit_pipeline(project, give_model)
    return n, rel

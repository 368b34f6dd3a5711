"""The studio's build button: `build_all` in a background thread, one build at a time per project, its progress in
a small JSON file (`<cache>/studio/build.json`: state, step, item, done/total, last message, error) that every page
and tab polls, so a reload or a second tab sees the same build.

Progress comes from the engine: a wrapper around its `map` records each finished job (a file extracted, a
character segmented, embedded, packaged). A failure is the terminal's one line (`BatchFailed`, `InputError`).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from filelock import FileLock, Timeout

from extractors.atomic import atomic_write_text
from extractors.errors import InputError

from ..paths import Project

_running: dict[str, threading.Lock] = {}   # project root -> the lock its build thread holds
_guard = threading.Lock()


def status_path(project: Project) -> Path:
    return project.cache / "studio" / "build.json"


def _write(project: Project, status: dict) -> None:
    path = status_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(status, ensure_ascii=False))


def _lock(project: Project) -> threading.Lock:
    with _guard:
        return _running.setdefault(str(project.root), threading.Lock())


def read_status(project: Project) -> dict:
    """The last build's status; a build marked running that no studio runs any more (the studio was stopped
    mid-build) reads as interrupted."""
    path = status_path(project)
    try:
        status = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"state": "idle"}
    if status.get("state") == "running" and not _lock(project).locked():
        try:
            with FileLock(str(path) + ".lock", timeout=0):
                status.update(state="interrupted", error="the studio stopped during this build; build again to "
                              "resume from the cache")
        except Timeout:  # another studio on this project builds it
            pass
    return status


class ProgressEngine:
    """An engine that writes the status after each job the wrapped engine finishes."""

    def __init__(self, engine, progress):
        self.engine, self.progress = engine, progress

    def map(self, method: str, items):
        items = list(items)
        self.progress(step=method, done=0, total=len(items), item=None)
        for n, (item, ok, payload) in enumerate(self.engine.map(method, items), 1):
            name = getattr(item, "character", None) or Path(str(getattr(item, "source", item))).name
            if ok:
                message = payload if isinstance(payload, str) else f"{method}: {name} done"
            else:
                message = f"failed: {payload}"
            self.progress(step=method, done=n, total=len(items), item=name, message=" ".join(str(message).split()))
            yield item, ok, payload

    def __getattr__(self, name):
        return getattr(self.engine, name)


def _run(project: Project, targets: list[str], lock: threading.Lock, build) -> None:
    status = {"state": "running", "targets": targets, "step": "prepare", "item": None, "done": 0, "total": 0,
              "message": "starting", "error": None, "started": time.time(), "finished": None}

    def progress(**changes) -> None:
        status.update(changes)
        _write(project, status)

    try:
        file_lock = FileLock(str(status_path(project)) + ".lock", timeout=0)
        with file_lock:
            progress()
            build(project, targets, lambda engine: ProgressEngine(engine, progress))
        progress(state="done", finished=time.time(), message="built " + (", ".join(targets) or "everything"))
    except Timeout:
        progress(state="failed", finished=time.time(), error="another studio or process is building this project")
    except InputError as e:  # BatchFailed is one
        progress(state="failed", finished=time.time(), error=" ".join(str(e).split()))
    except Exception as e:  # noqa: BLE001  (the thread's last word: shown on the page, never a traceback)
        progress(state="failed", finished=time.time(), error=f"{type(e).__name__}: {' '.join(str(e).split())}")
    finally:
        lock.release()


def build_targets(project: Project, targets: list[str], wrap) -> None:
    """`rolecorpus build TARGETS` on the local engine, its engine wrapped by `wrap`."""
    from ..engine import make_engine
    from ..engine.job import build_all

    with make_engine("local", None, 0) as engine:
        build_all(project, wrap(engine), targets)


def start_build(project: Project, targets: list[str], build=None) -> bool:
    """Start building `targets` (none: everything registered) in a background thread; False when a build of
    this project is already running in this studio."""
    lock = _lock(project)
    if not lock.acquire(blocking=False):
        return False
    _write(project, {"state": "running", "targets": targets, "step": "prepare", "item": None, "done": 0,
                     "total": 0, "message": "starting", "error": None, "started": time.time(), "finished": None})
    threading.Thread(target=_run, args=(project, targets, lock, build or build_targets), name="studio-build", daemon=True).start()
    return True

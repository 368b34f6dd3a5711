"""Write files so that a crash never leaves a half-written output behind.

Everything is written to a temporary sibling and renamed into place; directories are built
in a temporary sibling and swapped in whole. Temporary names carry the writer's process id
(`.<name>.<pid>.<random>.tmp`, the folder being replaced `.<name>.<pid>.old.tmp`), so `clean_orphans` can remove
those a killed process left behind (its pid is gone) without touching the ones a live process is still writing;
every write cleans the orphans of its own target first, so a rerun leaves nothing of a killed run behind.
Outputs get the modes the user's umask gives (0644 files, 0755 folders under umask 022), not mkstemp's 0600.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import IO, Iterator


@functools.lru_cache(maxsize=1)
def umask() -> int:
    """The process's umask, read without changing it (Linux /proc; elsewhere set and restored once)."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/status", encoding="ascii") as fh:
            for row in fh:
                if row.startswith("Umask:"):
                    return int(row.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _clean_target(path: Path) -> None:
    """The temporary files and folders of `path` that dead writers left in its folder (and a `.<name>.old` folder
    of an older version of this module)."""
    clean_orphans(path.parent, name=path.name)
    legacy = path.with_name(f".{path.name}.old")
    if legacy.is_dir():
        shutil.rmtree(legacy, ignore_errors=True)


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temp file next to `path`; on success rename it over `path`, on error delete it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _clean_target(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, 0o666 & ~umask())  # mkstemp makes 0600: the output gets what the umask gives
    os.close(fd)
    kwargs = {} if "b" in mode else {"encoding": encoding, "newline": "\n"}
    try:
        with open(tmp, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    with atomic_open(path, "w") as fh:
        fh.write(text)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    with atomic_open(path, "wb") as fh:
        fh.write(data)


@contextlib.contextmanager
def atomic_dir(path: str | Path) -> Iterator[Path]:
    """Yield a fresh temp directory; on success it replaces `path` whole, on error it is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _clean_target(path)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent))
    os.chmod(tmp, 0o777 & ~umask())  # mkdtemp makes 0700
    try:
        yield tmp
        old = None
        if path.exists():
            old = path.with_name(f".{path.name}.{os.getpid()}.old.tmp")
            if old.exists():
                shutil.rmtree(old)
            os.replace(path, old)
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


_ORPHAN = re.compile(r"\A\..+\.(\d+)\.[^.]+\.tmp\Z")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def clean_orphans(directory: str | Path, recursive: bool = False, name: str | None = None) -> int:
    """Remove the temporary files and folders of dead writers under `directory` (only those of the output `name`
    when given); return how many."""
    directory = Path(directory)
    if not directory.is_dir():
        return 0
    removed = 0
    pattern = f".{glob.escape(name)}.*.tmp" if name else ".*.tmp"
    for p in directory.rglob(pattern) if recursive else directory.glob(pattern):
        m = _ORPHAN.match(p.name)
        if not m or _alive(int(m.group(1))):
            continue
        with contextlib.suppress(OSError):
            shutil.rmtree(p) if p.is_dir() else os.unlink(p)
            removed += 1
    return removed

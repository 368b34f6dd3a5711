"""The one place identifiers that become file names are validated, and written paths are proved to stay put.

A character id, a work id or any other name that ends up in a path (`configs/characters/<id>.yaml`,
`data/lines/<work>.jsonl`, `metrics/<kind>_<work>.json`) goes through `check_id` once: letters (any
script), digits, `_`, `-` and `.` only, starting with a letter or digit, at most `MAX_ID` characters, the
whole string (`\\A...\\Z`: a trailing newline is refused too). So no separator, no `..`, no empty name.

`inside(path, root)` proves a path to be written resolves under `root` (symlinks followed) and raises
InputError otherwise; `check_output(path)` refuses an output that is a directory or whose folder cannot
be written, before any work is done.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .errors import InputError

MAX_ID = 64
# a letter or digit of any script first, then letters, digits, '_', '-', '.'; the whole string
_ID = re.compile(r"\A[^\W_][\w.\-]*\Z")


def id_problem(value: object, what: str = "id") -> str | None:
    """Why `value` is no valid identifier, or None when it is one."""
    if not isinstance(value, str):
        return f"{what} must be a string"
    shown = ascii(value) if len(value) <= 40 else ascii(value[:40]) + "..."
    if not value:
        return f"{what} is empty"
    if len(value) > MAX_ID:
        return f"{what} {shown} is longer than {MAX_ID} characters"
    if not _ID.match(value) or ".." in value:
        return (f"{what} {shown} may hold only letters, digits, '_', '-' and '.' (starting with a letter or digit; "
                "no '/', '..', spaces or control characters)")
    return None


def check_id(value: object, what: str = "id", path: str | Path | None = None) -> str:
    """`value` when it is a valid identifier, else InputError naming what it is (and `path` if given)."""
    problem = id_problem(value, what)
    if problem:
        raise InputError(problem, path)
    return value  # type: ignore[return-value]


def inside(path: str | Path, root: str | Path, what: str = "output") -> Path:
    """`path` resolved, when it stays under `root`; InputError otherwise."""
    p, r = Path(path).resolve(), Path(root).resolve()
    if p != r and r not in p.parents:
        raise InputError(f"{what} would be written outside {r}", path)
    return p


def check_output(path: str | Path, what: str = "output") -> Path:
    """Refuse an output file path that is a directory, or whose nearest existing folder is not writable."""
    p = Path(path)
    if str(path) in ("", "."):
        raise InputError(f"{what} path is empty", path)
    if p.is_dir():
        raise InputError(f"{what} is a directory, expected a file path", path)
    for up in p.absolute().parents:  # the first folder on the way up that is there: a dangling link is not one
        if os.path.lexists(up):
            if not up.is_dir():
                raise InputError(f"{what} folder {up} is not a directory (a file, or a link to nowhere)", path)
            break
    parent = Path(os.path.realpath(p)).parent  # realpath: a loop of links is no exception here
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"{what} folder {parent} is not a directory", path)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot write here: permission denied on {parent}", path)
    return p

"""The one error type users see: a message naming the file and what is wrong with it."""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """Bad input: the CLI prints `error: <message>` on one line and exits non-zero."""

    def __init__(self, message: str, path: str | Path | None = None, row: int | None = None):
        where = ""
        if path is not None:
            where = str(path)
            if row is not None:
                where += f", row {row}"
            where += ": "
        super().__init__(where + message)
        self.path = path
        self.row = row

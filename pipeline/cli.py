"""Entry point of the `rolecorpus` command: imports every command module, turns InputError into one
`error:` line with exit code 2, and catches anything unexpected the same way: the traceback goes to a log
file (secrets scrubbed) and the one line says where it is. No traceback ever reaches the terminal."""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

import typer
from typer.core import _click as click  # typer's own click: the exceptions its parser raises

from extractors.errors import InputError
from extractors.llm import redact_secrets

from .cli_app import app
from .commands import build, cast, characters, chat, corpus, extract, novel, speakers  # noqa: F401  (registers commands)
from .commands import report, studio  # noqa: F401  (registers `rolecorpus report` and `rolecorpus studio`)


def _one_line(text: str) -> str:
    return " ".join(redact_secrets(text).split())


def log_traceback(exc: BaseException) -> Path | None:
    """Write the traceback (secrets scrubbed) to `$ROLECORPUS_LOG_DIR` or the temp folder; its path, or None."""
    folder = Path(os.environ.get("ROLECORPUS_LOG_DIR") or Path(tempfile.gettempdir()) / "rolecorpus-logs")
    text = redact_secrets("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"error-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        path.write_text(f"argv: {redact_secrets(' '.join(sys.argv))}\n{text}", encoding="utf-8", errors="replace")
        return path
    except OSError:
        return None


def report_unexpected(exc: BaseException) -> None:
    """The one line for an error nobody foresaw: what it was, and where the traceback is."""
    where = log_traceback(exc)
    what = _one_line(f"{type(exc).__name__}: {exc}")[:300]
    if isinstance(exc, OSError) and getattr(exc, "filename", None):
        what = _one_line(f"{exc.filename}: {exc.strerror or type(exc).__name__}")
    print(f"error: {what} (unexpected; traceback in {where or 'no log: the log folder is not writable'})",
          file=sys.stderr)


def _notes_to_stderr() -> None:
    """Warnings of the `rolecorpus.*` loggers (a guessed encoding...) as `note: ...` lines on stderr."""
    logger = logging.getLogger("rolecorpus")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("note: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


def _usage_error(e: click.ClickException) -> None:
    """A mistyped command line as one line (the rich panel click draws is several), with where to look."""
    ctx = getattr(e, "ctx", None)
    if type(e).__name__ == "NoArgsIsHelpError":  # `rolecorpus` alone: the help was printed, as before
        sys.exit(e.exit_code)
    where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
    print(f"error: {_one_line(e.format_message())}{where}", file=sys.stderr)
    sys.exit(e.exit_code if e.exit_code else 2)


def main() -> None:
    _notes_to_stderr()
    try:
        code = app(standalone_mode=False)
        if isinstance(code, int) and code:  # typer.Exit(code) from a command
            sys.exit(code)
    except click.ClickException as e:
        _usage_error(e)
    except typer.Abort:
        print("error: aborted", file=sys.stderr)
        sys.exit(1)
    except InputError as e:
        print(f"error: {_one_line(str(e))}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("interrupted: nothing half-written was kept; rerun to resume from the cache", file=sys.stderr)
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001  (the top-level handler: one line, traceback to a log)
        report_unexpected(e)
        sys.exit(2)


if __name__ == "__main__":
    main()

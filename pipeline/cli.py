"""Entry point of the `rolecorpus` command: imports every command module, turns InputError into one
`error:` line with exit code 2, and catches anything unexpected the same way: the traceback goes to a log
file (secrets scrubbed) and the one line says where it is. No traceback ever reaches the terminal."""

from __future__ import annotations

import os
import sys

import _signal  # the C module: `signal` first imports enum, which is slow enough for a Ctrl-C to land in

INTERRUPTED = "interrupted: nothing half-written was kept; rerun to resume from the cache"


def _interrupted_while_starting(signum, frame) -> None:  # pragma: no cover  (a Ctrl-C during the imports)
    """Ctrl-C before any command ran: nothing can be half-written yet, so leave at once, without a traceback."""
    sys.stderr.write(INTERRUPTED + "\n")
    sys.stderr.flush()
    os._exit(130)


# the imports below take a second or two: a Ctrl-C then would print a traceback of the import machinery.
# Only when this process is the command (not when a test imports the module); SIGINT ignored stays ignored.
if (__name__ == "__main__" or os.path.basename(sys.argv[0] or "") == "rolecorpus") \
        and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _interrupted_while_starting)

import atexit  # noqa: E402
import logging  # noqa: E402
import signal  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

import typer  # noqa: E402
from typer.core import _click as click  # noqa: E402  # typer's own click: the exceptions its parser raises

from extractors.errors import InputError  # noqa: E402
from extractors.llm import redact_secrets  # noqa: E402

from .cli_app import app  # noqa: E402
from .commands import works  # noqa: E402,F401  (first: `works` leads the command list, as it leads the flow)
from .commands import build, cast, characters, chat, corpus, extract, novel, speakers  # noqa: E402,F401  (registers commands)
from .commands import evalchat, synth  # noqa: E402,F401  (registers `eval chat`, `synth questions|dialogues`)
from .commands import report, studio  # noqa: E402,F401  (registers `rolecorpus report` and `rolecorpus studio`)
from .commands import annotate, profile  # noqa: E402,F401  (registers `profile`, `annotate emotions`)
from .commands import export  # noqa: E402,F401  (registers `rolecorpus export`)


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


_signalled: list[int] = []


def _interrupt(signum, frame) -> None:
    """SIGINT/SIGTERM while a command runs: unwind as KeyboardInterrupt, so every atomic write deletes its
    temporary file and the staging folders go; remember it (typer turns the interrupt into `Exit(130)`)."""
    _signalled.append(signum)
    raise KeyboardInterrupt


def _catch_interrupts() -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) in (signal.default_int_handler, signal.SIG_DFL, _interrupted_while_starting):
            signal.signal(sig, _interrupt)


def _exit_interrupted() -> None:
    """The interrupt has unwound (every atomic write dropped its temporary file): say so, run the exit hooks
    with further signals ignored, and leave with 128 + the signal. Not `sys.exit`: a second Ctrl-C during the
    interpreter's shutdown, or a KeyboardInterrupt that once escaped an `exec` of a string (dataclasses and
    typing build functions that way while modules import), makes CPython end by SIGINT (-2), not 130."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    print(INTERRUPTED, file=sys.stderr)
    atexit._run_exitfuncs()  # what a normal exit runs: weakref finalizers (temporary folders), logging, Ray
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(128 + (_signalled[0] if _signalled else signal.SIGINT))


def main() -> None:
    _notes_to_stderr()
    _catch_interrupts()
    try:
        code = app(standalone_mode=False)
        if _signalled:  # typer swallowed the KeyboardInterrupt into exit code 130
            _exit_interrupted()
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
        _exit_interrupted()
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001  (the top-level handler: one line, traceback to a log)
        report_unexpected(e)
        sys.exit(2)


if __name__ == "__main__":
    main()

"""Shared assertion for the CLI tests: a bad input ends in exactly one `error:` line and exit code 2.

Works with a subprocess result (`returncode`) and with a typer CliRunner result (`exit_code`). Also
`interruptible`, for a child process a test sends Ctrl-C.
"""

from __future__ import annotations

import signal


def interruptible() -> None:
    """`preexec_fn` of a child a test sends SIGINT: the default disposition again, so Python raises
    KeyboardInterrupt even when the test run itself was started in the background (a shell's `cmd &`
    ignores SIGINT, and a child inherits that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def one_line_error(result, *needles: str) -> str:
    code = getattr(result, "returncode", getattr(result, "exit_code", None))
    assert code == 2, (code, result.stderr, getattr(result, "exception", None))
    err = [ln for ln in result.stderr.strip().splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("error: "), result.stderr
    for n in needles:
        assert n in err[0], err[0]
    return err[0]

"""Entry point of the `rolecorpus` command: imports every command module and turns InputError
into a one-line message with a non-zero exit code."""

from __future__ import annotations

import sys

from extractors.errors import InputError

from .cli_app import app
from .commands import build, cast, characters, chat, corpus, extract, novel, speakers  # noqa: F401  (registers commands)


def main() -> None:
    try:
        app()
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("interrupted: nothing half-written was kept; rerun to resume from the cache", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()

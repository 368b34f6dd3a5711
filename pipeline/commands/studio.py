"""`rolecorpus studio`: serve the studio web application (pipeline/studio/) on 127.0.0.1 for the project in the
current directory (or $ROLECORPUS_ROOT)."""

from __future__ import annotations

import errno
import socket

import typer

from extractors.errors import InputError

from ..cli_app import app, one_line_errors
from ..paths import Project

HOST = "127.0.0.1"


def check_port(port: int, host: str = HOST) -> None:
    """InputError when the port cannot be served (in use, or out of range), before anything starts."""
    if not 1 <= port <= 65535:
        raise InputError(f"--port must be 1..65535, not {port}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a listener is still refused
        try:
            s.bind((host, port))
        except OSError as e:
            why = "is in use (another studio or server?)" if e.errno == errno.EADDRINUSE else f"cannot be used ({e.strerror})"
            raise InputError(f"port {port} on {host} {why}; pick another with --port") from None


@app.command("studio")
@one_line_errors
def studio(port: int = typer.Option(8765, "--port", help="Port to serve on (127.0.0.1 only).")) -> None:
    """Serve the studio (open the address it prints in a browser): characters, corpus reports with charts, the
    review queue of doubtful lines (with audio clips), story search and chat. Everything is local; Ctrl-C stops it."""
    project = Project.current()
    if not project.pipeline_yaml.is_file():
        raise InputError("not a rolecorpus project (no configs/pipeline.yaml here; cd to the project or set "
                         "ROLECORPUS_ROOT)", project.root)
    check_port(port)
    try:
        import uvicorn

        from ..studio.app import make_app
    except ImportError as e:
        raise InputError(f"the studio needs {e.name or 'its web packages'}: pip install 'rolecorpus[studio]'") from None

    typer.echo(f"rolecorpus studio for {project.root}: http://{HOST}:{port}/  (Ctrl-C stops it)", err=True)
    uvicorn.run(make_app(project), host=HOST, port=port, log_level="warning")

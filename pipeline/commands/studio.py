"""`rolecorpus studio`: serve the studio web application (pipeline/studio/) for the project in the current
directory (or $ROLECORPUS_ROOT), on 127.0.0.1; `--host` serves it beyond the loopback, with a warning, and then
every request needs the token it prints (as Jupyter does)."""

from __future__ import annotations

import errno
import ipaddress
import secrets
import signal
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
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except (socket.gaierror, UnicodeError):
        raise InputError(f"--host {host!r} is not an address or name of this machine") from None
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a listener is still refused
        try:
            s.bind((host, port))
        except OSError as e:
            why = "is in use (another studio or server?)" if e.errno == errno.EADDRINUSE else f"cannot be used ({e.strerror})"
            raise InputError(f"port {port} on {host} {why}; pick another with --port") from None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@app.command("studio")
@one_line_errors
def studio(port: int = typer.Option(8765, "--port", help="Port to serve on."),
           host: str = typer.Option(HOST, "--host", help="Address to serve on (default the loopback, reachable from "
                                    "this machine only); any other address is reachable by others, so every request "
                                    "then needs the token the studio prints.")) -> None:
    """Serve the studio (open the address it prints in a browser): characters, corpus reports with charts, the
    review queue of doubtful lines (with audio clips), story search and chat. Everything is local; Ctrl-C stops it."""
    project = Project.current()
    if not project.pipeline_yaml.is_file():
        raise InputError("not a rolecorpus project (no configs/pipeline.yaml here; cd to the project or set "
                         "ROLECORPUS_ROOT)", project.root)
    host = host.strip("[]")
    check_port(port, host)
    try:
        import uvicorn

        from ..studio.app import make_app
    except ImportError as e:
        raise InputError(f"the studio needs {e.name or 'its web packages'}: pip install 'rolecorpus[studio]'") from None

    shown = f"[{host}]" if ":" in host else host
    if is_loopback(host):
        web = make_app(project)
        typer.echo(f"rolecorpus studio for {project.root}: http://{shown}:{port}/  (Ctrl-C stops it)", err=True)
    else:
        # beyond the loopback the Host header cannot be known in advance (any name or address of this machine):
        # the token, which only the person who started the studio has, guards every request instead
        token = secrets.token_urlsafe(24)
        web = make_app(project, token=token, allowed_hosts=["*"])
        typer.echo(f"warning: the studio is served on {host}, reachable from other machines; every request needs "
                   "its token (anyone with the address below can change this project)", err=True)
        typer.echo(f"rolecorpus studio for {project.root}: http://{shown}:{port}/?token={token}  (Ctrl-C stops it)",
                   err=True)
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then raises the signal again for the handler it found: this
    # one, so a stopped studio says so instead of the batch commands' "interrupted ..." line
    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        uvicorn.run(web, host=host, port=port, log_level="warning")
    except _Stopped:
        typer.echo("studio stopped", err=True)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class _Stopped(Exception):
    """The studio was asked to stop (Ctrl-C, SIGTERM)."""


def _stop(signum, frame) -> None:
    raise _Stopped

"""Engines that run the heavy stages' jobs (a file to extract, a character to segment, embed or package).

`local` (the default, what `make sample` and `dvc repro` use) runs them one after another in this process, with
one `Worker`; `ray` runs them on Ray actors (pipeline/engine/rayengine.py), each a `Worker` that loads its models
once and keeps them for every job it gets. Both yield (item, ok, result-or-error) and never stop at a failed job.
Ray is imported only by the ray engine, so nothing else needs it installed.
"""

from __future__ import annotations

from extractors.errors import InputError

ENGINES = ("local", "ray")


def make_engine(name: str = "local", address: str | None = None, workers: int = 0):
    """The engine `name`: local (serial, in-process) or ray (in-process Ray, or the cluster at `address` /
    RAY_ADDRESS), with `workers` actors (0: one per CPU Ray has)."""
    if name == "local":
        from .local import LocalEngine

        return LocalEngine()
    if name == "ray":
        from .rayengine import RayEngine

        return RayEngine(address=address, workers=workers)
    raise InputError(f"--engine must be one of {', '.join(ENGINES)}, not {name!r}")

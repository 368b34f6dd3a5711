"""`rolecorpus build`: the whole project in one job on one engine, writing exactly the files `dvc repro` writes.

The voice models of `voices:` first (in this process: a few labelled lines each), then the lines (every file of
every work, all at once, so a season and a shelf share the workers), then per
character segment -> embed -> package, each step fanned out over the characters whose earlier steps succeeded.
Failures are collected and named at the end; whatever succeeded is written (a work only when all its files did).
"""

from __future__ import annotations

import sys

from extractors.errors import InputError

from ..batch import BatchFailed, gather, plan_work, write_work
from ..paths import Project
from ..settings import load_settings
from ..works import select
from .worker import CharacterJob

STEPS = ("segment", "embed", "package")


def _plans(project: Project, settings, works: set[str]) -> tuple[list, dict[str, str]]:
    plans, errors = [], {}
    for work, spec in settings.works.items():
        if work not in works:
            continue
        try:
            opts = project.rooted(spec.typed_options(work, project.pipeline_yaml))
            plans.append(plan_work(project, spec.kind, project.root / spec.input, work, project.lines(work), opts,
                                   spec.files))
        except InputError as e:
            errors[f"work {work}"] = str(e)
    return plans, errors


def _voices(project: Project, settings) -> dict[str, str]:
    """Train the voice models (`rolecorpus speakers train`, as stage voices@ID) the tv works' options name."""
    from ..voices import train_voices

    errors = {}
    for vid, spec in settings.voices.items():
        try:
            train_voices(project, project.root / spec.labels, project.root / settings.sources / "speakers" / vid)
        except InputError as e:
            errors[f"voices {vid}"] = str(e)
    return errors


def _seasons(project: Project, settings) -> dict[str, str]:
    """Discover and name the voices of each season (as stage season@ID: `speakers discover` into data/voices/ID,
    then `speakers name --names` into SOURCES/speakers/ID), so the works that name that model can be built."""
    from ..voices import discover_season, episodes, name_voices

    errors = {}
    for sid, spec in settings.seasons.items():
        voices = project.root / "data" / "voices" / sid
        try:
            discover_season(project, episodes([str(project.root / spec.episodes)]), voices, beside=True, work=sid)
            name_voices(project, voices, names=project.root / spec.names,
                        out=project.root / settings.sources / "speakers" / sid)
        except InputError as e:
            errors[f"season {sid}"] = str(e)
    return errors


def build_all(project: Project, engine, targets: list[str] | None = None) -> None:
    """Build every registered work and character on `engine` (with `targets`: those works and characters, see
    `works.select`); BatchFailed names what failed."""
    from tqdm import tqdm

    settings = load_settings(project.pipeline_yaml)
    works, characters = select(settings, targets or [])
    tv = any(settings.works[w].kind == "tv" for w in works)
    errors = _voices(project, settings) if tv else {}  # the voice models only tv works use
    if tv:
        errors.update(_seasons(project, settings))
    plans, plan_errors = _plans(project, settings, works)
    errors.update(plan_errors)
    results, file_errors = gather(plans, engine, project)
    errors.update(file_errors)
    built = set()
    for plan in plans:
        if all(j.key in results for j in plan.jobs):
            write_work(plan, results, project)
            built.add(plan.work)
    embed = settings.embed.model_dump()
    chosen = {cid: spec for cid, spec in settings.characters.items() if cid in characters}
    jobs = [CharacterJob(str(project.root), str(project.cache), cid, embed)
            for cid, spec in chosen.items() if set(spec.works()) <= built]
    for cid, spec in chosen.items():
        if not set(spec.works()) <= built:
            errors[f"character {cid}"] = f"not built: work(s) {', '.join(sorted(set(spec.works()) - built))} failed"
    for step in STEPS:
        ok_jobs = []
        bar = tqdm(total=len(jobs), desc=step, unit="character", file=sys.stderr, disable=None)
        for job, ok, payload in engine.map(step, jobs):
            bar.update(1)
            if ok:
                ok_jobs.append(job)
                bar.write(payload, file=sys.stdout)
            else:
                errors[f"character {job.character}"] = payload
                bar.write(f"failed: {payload}", file=sys.stderr)
        bar.close()
        jobs = sorted(ok_jobs, key=lambda j: j.character)
    if errors:
        raise BatchFailed(f"{len(errors)} failed: {'; '.join(f'{k}: {v}' if k not in v else v for k, v in sorted(errors.items()))}")

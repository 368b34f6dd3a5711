"""Batch works: one work made of many files (a season of episodes, a shelf of novels), extracted file by file.

A work whose input is a folder (configs: `input: data/raw/season1`, optionally `files: "*.mkv"`) or, on the
command line, a glob (`rolecorpus extract tv "S01/*.mkv"`) is a batch. Every file is one job (`FileJob`) run by an
engine (pipeline.engine: serial in-process, or Ray actors that keep their models loaded); tv episodes take the
subtitles found beside them by name (ep01.mkv + ep01.srt/.ass/.ssa/.vtt; none = Whisper). Each file's lines are
kept in a per-file cache (`.cache/.../batch`) the moment they are made, keyed by everything that decides them
(the file's bytes, the options and their files, configs/, the speakers settings, the extractor code), so a
killed or failed run redoes only what is missing. The work's lines file is written once, with the files in path
order (the same bytes whatever the engine and the order they finished in), through `run.run_extract`.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

from extractors.cache import ContentCache, content_key
from extractors.errors import InputError
from extractors.ids import check_id, check_output
from extractors.records import Line, line_counts, line_from_dict, summary as lines_summary
from extractors.registry import get_extractor

from .extraction import make_context, run_extract
from .paths import Project

SUBTITLES = (".srt", ".ass", ".ssa", ".vtt")
CODE = ("extractors", "pipeline/extraction.py", "pipeline/works.py", "pipeline/batch.py", "pipeline/models.py")


def is_batch(source: str | Path, files: str | None = None) -> bool:
    """True for a glob, a folder, or an input given with a `files` pattern."""
    return bool(files) or any(c in str(source) for c in "*?[") or Path(source).is_dir()


def expand(source: str | Path, kind: str, files: str | None = None) -> list[Path]:
    """The files of a batch, sorted by path: a glob's matches, or a folder's files (those matching `files`;
    else all but hidden ones). Subtitle files are never episodes. No file, or two with one name: InputError."""
    text = str(source)
    if any(c in text for c in "*?["):
        if files:
            raise InputError("give either a pattern or files:, not both", source)
        found = [Path(p) for p in glob.glob(text, recursive=True)]
    elif Path(source).is_dir():
        found = list(Path(source).glob(files or "*"))
    else:
        raise InputError("not a folder (files: picks files inside a folder)" if Path(source).exists() else
                         "no such file or folder", source)
    picked = sorted(p for p in found if p.is_file() and not p.name.startswith(".")
                    and not (kind == "tv" and p.suffix.lower() in SUBTITLES))
    if not picked:
        if Path(source).is_dir():
            raise InputError(f"a directory with no file matching {files or '*'} (a folder is a batch work: "
                             "every file in it is read)", source)
        raise InputError("matches no file", source)
    seen: dict[str, Path] = {}
    for p in picked:  # a line's `source` is the file name: two files of one name would mix their lines
        if p.name in seen:
            raise InputError(f"two files named {p.name} ({seen[p.name].parent} and {p.parent}); rename one", source)
        seen[p.name] = p
    return picked


def file_options(kind: str, opts: BaseModel, path: Path) -> BaseModel:
    """The options for one file of a batch: tv episodes get the subtitles beside them (same stem), if any."""
    if kind != "tv":
        return opts
    if getattr(opts, "subtitles", None):
        raise InputError("in a batch the subtitles are found beside each episode by name (ep01.mkv + ep01.srt); "
                         "remove the subtitles option", path)
    for suffix in SUBTITLES + tuple(s.upper() for s in SUBTITLES):
        sub = path.with_suffix(suffix)
        if sub.is_file():
            return opts.model_copy(update={"subtitles": sub})
    return opts


def _sha_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _sha_tree(path: Path, skip: tuple[str, ...] = ()) -> str:
    """sha256 over the relative names and bytes of every file under `path` (a file: its bytes)."""
    if path.is_file():
        return _sha_file(path)
    parts = [(str(p.relative_to(path)), _sha_file(p)) for p in sorted(path.rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts and p.name not in skip]
    return content_key(json.dumps(parts))


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The extraction code itself: a changed extractor makes every cached file result stale."""
    root = Path(__file__).resolve().parent.parent
    return content_key(*(_sha_tree(root / c) for c in CODE if (root / c).exists()))


def _option_value(v):
    if isinstance(v, Path):
        return ["path", _sha_tree(v) if v.exists() else str(v)]
    return v if isinstance(v, (str, int, float, bool, type(None))) else str(v)


@dataclass(frozen=True)
class FileJob:
    """One file of a work, as a worker needs it (picklable: it travels to Ray actors)."""

    root: str
    cache: str
    kind: str
    work: str
    source: Path
    options: BaseModel
    output: str
    key: str = ""


def make_job(project: Project, kind: str, work: str, path: Path, opts: BaseModel, output: Path) -> FileJob:
    from .settings import load_settings

    settings = load_settings(project.pipeline_yaml)
    speakers = settings.speakers.model_dump(exclude_unset=True)
    links = {cid: spec.works() for cid, spec in settings.characters.items()}  # which characters are the work's
    parts = {k: _option_value(v) for k, v in opts}
    env = [os.environ.get(k, "") for k in ("ROLECORPUS_LLM_MODEL", "OPENAI_MODEL", "OPENAI_BASE_URL")]
    key = content_key("batch-file-v1", kind, work, path.name, _sha_file(path), json.dumps(parts, sort_keys=True),
                      json.dumps(speakers, sort_keys=True), json.dumps(links, sort_keys=True), _sha_tree(project.configs, skip=("pipeline.yaml",)),
                      json.dumps(env), code_fingerprint())
    return FileJob(str(project.root), str(project.cache), kind, work, path, opts, str(output), key)


def run_job(job: FileJob, models) -> dict:
    """Extract one file (in a worker): its lines, metrics, report and the counters it staged. Raises on error."""
    project = Project(Path(job.root))
    extractor = get_extractor(job.kind)()
    messages: list[str] = []
    staging = Path(tempfile.mkdtemp(prefix=".rolecorpus-batch-"))
    try:
        ctx = make_context(project, job.options, models, staging / "m", messages.append, work=job.work)
        ctx.progress = False
        lines = list(extractor.extract(job.source, job.work, ctx))
        if not lines:
            raise InputError("no lines were extracted", job.source)
        staged = {f.name: f.read_text(encoding="utf-8") for f in sorted((staging / "m").glob("*.json"))}
        report = extractor.summary(lines, Path(job.output), ctx)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return {"lines": [ln.to_dict() for ln in lines], "metrics": ctx.metrics, "report": report, "staged": staged,
            "log": messages}


def _sum(dicts: list[dict]) -> dict:
    """Counters of several files added up (numbers summed, nested dicts merged; anything else: the last)."""
    out: dict = {}
    for d in dicts:
        for k, v in d.items():
            if isinstance(v, dict):
                out[k] = _sum([out.get(k) or {}, v]) if isinstance(out.get(k, {}), dict) else v
            elif isinstance(v, (int, float)) and not isinstance(v, bool) and isinstance(out.get(k), (int, float)):
                out[k] = out[k] + v
            else:
                out[k] = v
    return out


@dataclass
class BatchExtractor:
    """The extractor contract over finished file results (in path order), for `run_extract` to write."""

    inner: object
    results: list[dict]
    names: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.kind, self.Options = self.inner.kind, self.inner.Options
        self.summary_to_stdout = getattr(self.inner, "summary_to_stdout", False)

    def extract(self, source: Path, work: str, ctx):
        staged: dict[str, list[dict]] = {}
        for r in self.results:
            for name, text in r["staged"].items():
                staged.setdefault(name, []).append(json.loads(text))
        if ctx.metrics_dir is not None and staged:
            Path(ctx.metrics_dir).mkdir(parents=True, exist_ok=True)
            for name, parts in staged.items():
                (Path(ctx.metrics_dir) / name).write_text(json.dumps(_sum(parts), indent=2) + "\n", encoding="utf-8")
        lines = [line_from_dict(d) for r in self.results for d in r["lines"]]
        if len(self.results) == 1:
            ctx.metrics.update(self.results[0]["metrics"])
        else:
            per_file = {n: r["metrics"] or line_counts([line_from_dict(d) for d in r["lines"]])
                        for n, r in zip(self.names, self.results)}
            ctx.metrics.update(line_counts(lines) | {"files": per_file})
        yield from lines

    def summary(self, lines: list[Line], output: Path, ctx) -> str:
        if len(self.results) == 1:
            return self.results[0]["report"]
        return f"{lines_summary(lines, output)} from {len(self.results)} files"


@dataclass
class WorkPlan:
    """One work to extract: its files as jobs, and where its lines go."""

    kind: str
    source: Path
    work: str
    output: Path
    options: BaseModel
    jobs: list[FileJob]


def plan_work(project: Project, kind: str, source: Path, work: str, output: Path, opts: BaseModel,
              files: str | None = None) -> WorkPlan:
    """A single file is a batch of one (same lines, same metrics as `run_extract` on it)."""
    batch = is_batch(source, files)
    if batch:
        paths = expand(source, kind, files)
    elif Path(source).is_file():
        paths = [Path(source)]
    else:
        raise InputError("not a regular file" if Path(source).exists() else "no such file", source)
    jobs = [make_job(project, kind, work, p, file_options(kind, opts, p) if batch else opts, output) for p in paths]
    return WorkPlan(kind, Path(source), work, Path(output), opts, jobs)


class BatchFailed(InputError):
    """Some files of a batch failed; the message names them."""


def gather(plans: list[WorkPlan], engine, project: Project) -> tuple[dict[str, dict], dict[str, str]]:
    """Run every job not in the per-file cache on `engine` (cached the moment each is done): results by job key,
    and the errors by file (`path: problem`)."""
    from tqdm import tqdm

    cache = ContentCache(project.cache / "batch")
    jobs = [j for p in plans for j in p.jobs]
    results = {j.key: e for j in jobs if (e := cache.get(j.key, lambda d: "lines" in d)) is not None}
    todo = list({j.key: j for j in jobs if j.key not in results}.values())
    errors: dict[str, str] = {}
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), desc="extract", unit="file", file=sys.stderr,
               disable=None)
    try:
        for job, ok, payload in engine.map("extract", todo):
            if ok:
                cache.put(job.key, payload)
                results[job.key] = payload
            else:
                errors[str(job.source)] = payload
                bar.write(f"failed: {payload}", file=sys.stderr)
            bar.update(1)
    finally:
        bar.close()
    return results, errors


def write_work(plan: WorkPlan, results: dict[str, dict], project: Project, partial: bool = False) -> list[Line]:
    """Write the work's lines from its files' results (in path order); the failed files are left out only with
    `partial` (and a work none of whose files succeeded is not written)."""
    done = [j for j in plan.jobs if j.key in results]
    if not done or (len(done) < len(plan.jobs) and not partial):
        return []
    for j in done:
        for msg in results[j.key].get("log", []):
            print(msg, file=sys.stderr)
    ext = BatchExtractor(get_extractor(plan.kind)(), [results[j.key] for j in done], [j.source.name for j in done])
    return run_extract(plan.kind, plan.source, plan.work, plan.output, plan.options, project, extractor=ext)


def failure(errors: dict[str, str], plans: list[WorkPlan], partial: bool) -> BatchFailed:
    """The closing error: how many files failed, which, and what was (or was not) written."""
    total = sum(len(p.jobs) for p in plans)
    names = ", ".join(sorted(errors))
    kept = ("the lines of the others were written" if partial else
            "nothing was written for the works they belong to; the others are extracted and cached")
    return BatchFailed(f"{len(errors)} of {total} file(s) failed: {names}; {kept}. Fix or remove the failed "
                       "file(s) and rerun: only they are redone")


def extract_batch(kind: str, source: Path, work: str, output: Path, opts: BaseModel, project: Project,
                  engine, files: str | None = None, partial: bool = False) -> list[Line]:
    """Extract one work (a file or a batch) on `engine` and write its lines; BatchFailed names failed files."""
    check_id(work, "--work")
    check_output(output, "-o")
    plan = plan_work(project, kind, source, work, output, opts, files)
    results, errors = gather([plan], engine, project)
    lines = write_work(plan, results, project, partial)
    if errors:
        raise failure(errors, [plan], partial)
    return lines

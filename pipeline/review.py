"""The review file: a person's decisions about doubtful lines, one file per work, applied by `build-lines`.

`<sources>/review/<work>.jsonl` is rewritten atomically under a file lock after every decision, so nothing
decided is lost on a crash nor when two studios and the CLI decide at once. Lines are keyed by what the extractor
sees (unit, times, a hash of the text), so decisions survive a rerun. Format: docs/design.md."""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from extractors.atomic import atomic_write_text
from extractors.errors import InputError
from extractors.ids import check_id
from extractors.records import Line, iter_json_rows

DECISIONS = ("accept", "character", "nobody", "skip")
REVIEW_DIR = "review"  # under the sources folder
VOICE_DOUBT = ("maybe", "unknown", "too-short")


@dataclass
class Decision:
    key: str
    unit: str
    text: str
    decision: str
    speaker: str | None = None
    before: str | None = None
    start: float | None = None
    end: float | None = None
    at: str = ""


def review_path(root: str | Path, sources: str | Path, work: str) -> Path:
    """`<project>/<sources>/review/<work>.jsonl` (the work id checked: it becomes a file name)."""
    return Path(root) / sources / REVIEW_DIR / f"{check_id(work, 'work id')}.jsonl"


def _hash(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:12]


def line_keys(lines: list[Line]) -> list[str]:
    """The review key of every line (see the module docstring), in order."""
    seen: dict[str, int] = {}
    out = []
    for ln in lines:
        h = _hash(ln.text)
        if ln.start is not None and ln.end is not None:
            out.append(f"{ln.unit}@{ln.start:.2f}-{ln.end:.2f}:{h}")
            continue
        base = f"{ln.unit}:{h}"
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(base if n == 0 else f"{base}#{n}")
    return out


def read_review(path: str | Path, known: set[str] | None = None) -> dict[str, Decision]:
    """The decisions of a review file by key ({} when there is none); a bad row names the file and row."""
    path = Path(path)
    if not path.exists():
        return {}
    out: dict[str, Decision] = {}
    for row, d in iter_json_rows(path):
        try:
            dec = Decision(**d)
        except TypeError:
            raise InputError("not a review row (needs key, unit, text, decision; see pipeline/review.py)",
                             path, row) from None
        if dec.decision not in DECISIONS:
            raise InputError(f"decision {dec.decision!r} is not one of {', '.join(DECISIONS)}", path, row)
        if dec.decision in ("accept", "character") and not dec.speaker:
            raise InputError(f"decision {dec.decision!r} needs a speaker", path, row)
        if known is not None and dec.speaker and dec.speaker not in known:
            raise InputError(f"unknown character {dec.speaker!r} (add it with `rolecorpus add-character`)", path, row)
        out[dec.key] = dec
    return out


LOCK_TIMEOUT = 60.0  # seconds a decision waits for another writer of the same review file


@contextlib.contextmanager
def locked(path: str | Path):
    """Hold the review file's lock (a sibling `.<name>.lock`) while reading and rewriting it: another process
    (a second studio, the CLI) waits, so no decision is overwritten by a stale copy of the file."""
    from filelock import FileLock, Timeout

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(path.with_name(f".{path.name}.lock")), timeout=LOCK_TIMEOUT)
    try:
        lock.acquire()
    except Timeout:
        raise InputError(f"another process has held the review file's lock for {LOCK_TIMEOUT:.0f} s; try again",
                         path) from None
    try:
        yield
    finally:
        lock.release()


def write_review(path: str | Path, decisions: dict[str, Decision]) -> None:
    text = "".join(json.dumps(asdict(d), ensure_ascii=False) + "\n" for d in decisions.values())
    atomic_write_text(path, text)


def record(path: str | Path, key: str, line: Line, decision: str, speaker: str | None = None) -> Decision:
    """Add (or replace) the decision about one line and rewrite the review file atomically."""
    if decision not in DECISIONS:
        raise InputError(f"decision {decision!r} is not one of {', '.join(DECISIONS)}")
    if decision == "nobody":
        speaker = None
    elif decision == "accept":
        speaker = speaker or proposal(line)
    if decision in ("accept", "character") and not speaker:
        raise InputError(f"decision {decision!r} needs a character")
    if decision == "skip":
        speaker = None
    dec = Decision(key=key, unit=line.unit, text=line.text, decision=decision, speaker=speaker,
                   before=line.speaker, start=line.start, end=line.end,
                   at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    with locked(path):
        decisions = read_review(path)
        decisions.pop(key, None)  # the newest decision goes last
        decisions[key] = dec
        write_review(path, decisions)
    return dec


def proposal(line: Line) -> str | None:
    """The speaker a reviewer is asked to accept: the line's speaker, else the voice model's best guess."""
    if line.speaker:
        return line.speaker
    voice = line.extra.get("voice") if isinstance(line.extra, dict) else None
    guesses = (voice or {}).get("guesses") or []
    return guesses[0].get("character") if guesses and isinstance(guesses[0], dict) else None


def doubt(line: Line) -> str | None:
    """Why a line needs a person (None when it does not): `voice maybe`, `voice unknown`, `no speaker`."""
    if line.kind != "dialogue" or line.evidence == "manual":
        return None
    voice = line.extra.get("voice") if isinstance(line.extra, dict) else None
    status = (voice or {}).get("status")
    if status in VOICE_DOUBT:
        return f"voice {status}"
    return "no speaker" if line.speaker is None else None


def apply_review(lines: list[Line], decisions: dict[str, Decision]) -> int:
    """Set every decided line (not skipped) to its decision: evidence manual, confidence 1.0. Returns how many."""
    if not decisions:
        return 0
    changed = 0
    for ln, key in zip(lines, line_keys(lines)):
        dec = decisions.get(key)
        if dec is None or dec.decision == "skip":
            continue
        before = {"speaker": ln.speaker, "confidence": ln.confidence, "evidence": ln.evidence}
        ln.speaker = dec.speaker if dec.decision != "nobody" else None
        ln.confidence, ln.evidence = 1.0, "manual"
        ln.extra = {**ln.extra, "review": {"decision": dec.decision, "at": dec.at, "before": before}}
        changed += 1
    return changed


def apply_review_file(path: str | Path, lines: list[Line], known: set[str] | None = None) -> int:
    """Apply a review file (when there is one) to freshly extracted lines; how many changed."""
    return apply_review(lines, read_review(path, known))


def record_many(path: str | Path, lines: list[Line], answers: list[tuple[int, str | None]]) -> int:
    """Record several answers at once (one atomic write): (position in `lines`, character id or None = nobody);
    an answer equal to the line's speaker is an `accept`. Returns how many were recorded."""
    if not answers:
        return 0
    keys = line_keys(lines)
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with locked(path):
        decisions = read_review(path)
        for i, cid in answers:
            ln = lines[i]
            decision = "nobody" if cid is None else "accept" if cid == ln.speaker else "character"
            decisions.pop(keys[i], None)
            decisions[keys[i]] = Decision(key=keys[i], unit=ln.unit, text=ln.text, decision=decision, speaker=cid,
                                          before=ln.speaker, start=ln.start, end=ln.end, at=at)
        write_review(path, decisions)
    return len(answers)


def record_sheet(root: str | Path, sources: str, works, sheet: str | Path, lines: list[Line],
                 resolver=None) -> list[Path]:
    """The answers of a `rolecorpus speakers review` CSV sheet about `lines` (as they were before the answers were
    applied), also recorded in the review file of each configured work (`works`) the lines belong to, so
    `build-lines` keeps them: the CLI and the studio write the same file."""
    from extractors.tv import line_key, read_review as read_sheet

    where = {line_key(ln): i for i, ln in enumerate(lines)}
    by_work: dict[str, list[tuple[int, str | None]]] = {}
    for c in read_sheet(sheet, resolver):
        if c.key in where and lines[where[c.key]].work in works:
            by_work.setdefault(lines[where[c.key]].work, []).append((where[c.key], c.character))
    written = []
    for work, answers in by_work.items():
        mine = [ln for ln in lines if ln.work == work]
        pos = {id(ln): n for n, ln in enumerate(mine)}
        path = review_path(root, sources, work)
        record_many(path, mine, [(pos[id(lines[i])], cid) for i, cid in answers])
        written.append(path)
    return written

"""A character's corpus at a glance: the figures (`corpus_stats`) and their charts (`report_charts`), shown by the
studio's character page and written as one static HTML file by `rolecorpus report ID` (CSS inlined, no script).

Figures: the character's dialogue lines in its works by source and by evidence, the histogram of their speaker
confidence, stories by length in tokens, the people the character answers most in its stories, and emotions when
`data/emotions/<ID>.jsonl` exists (`rolecorpus annotate emotions`: one record per line with an `emotion`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from extractors.characters import get_character
from extractors.ids import check_id
from extractors.records import iter_json_rows, read_lines

from .paths import Project
from .settings import load_settings
from .stories import read_stories
from .studio.charts import bar_chart, column_chart


def emotions_path(project: Project, cid: str) -> Path:
    return project.root / "data" / "emotions" / f"{check_id(cid, 'character id')}.jsonl"


def _works(project: Project, cid: str) -> list[str]:
    spec = load_settings(project.pipeline_yaml).characters.get(cid)
    return spec.works() if spec is not None else []


def _confidence_bins(values: list[float | None]) -> list[tuple[str, int]]:
    bins = [0] * 10
    for v in values:
        if v is not None:
            bins[min(9, int(v * 10))] += 1
    return [(f"{i / 10:.1f}", n) for i, n in enumerate(bins)]


def _token_bins(tokens: list[int], width: int = 50) -> list[tuple[str, int]]:
    if not tokens:
        return []
    counts = Counter(t // width for t in tokens)
    return [(f"{b * width}", counts.get(b, 0)) for b in range(max(counts) + 1)]


def _answered(stories, cid: str) -> Counter:
    """Who spoke the dialogue line just before each of the character's lines in its stories."""
    who: Counter = Counter()
    for s in stories:
        prev = None
        for ln in s.lines:
            if ln.get("kind") != "dialogue":
                continue
            speaker = ln.get("speaker") or ln.get("name")
            if speaker == cid and prev and prev != cid:
                who[prev] += 1
            prev = speaker
    return who


def corpus_stats(project: Project, cid: str) -> dict:
    """Every figure the report draws, from the files the pipeline wrote (missing ones count as empty)."""
    ch = get_character(project.configs, cid)
    works = _works(project, ch.id)
    mine = []
    for w in works:
        if project.lines(w).is_file():
            mine += [ln for ln in read_lines(project.lines(w)) if ln.kind == "dialogue" and ln.speaker == ch.id]
    stories = read_stories(project.stories(ch.id)) if project.stories(ch.id).is_file() else []
    emotions: Counter = Counter()
    if emotions_path(project, ch.id).is_file():
        emotions.update(str(d.get("emotion")) for _, d in iter_json_rows(emotions_path(project, ch.id)))
    manifest = project.package(ch.id) / "manifest.json"
    return {
        "character": ch, "works": works, "lines": len(mine),
        "by_source": Counter(f"{ln.work}/{ln.source}" for ln in mine).most_common(),
        "by_evidence": Counter(ln.evidence or "none" for ln in mine).most_common(),
        "confidence": _confidence_bins([ln.confidence for ln in mine]),
        "stories": len(stories), "tokens": _token_bins([s.tokens for s in stories]),
        "answered": _answered(stories, ch.id).most_common(10),
        "emotions": emotions.most_common(),
        "manifest": json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else None,
    }


def report_charts(stats: dict) -> list[str]:
    """The charts of one character's report, as inline SVG figures."""
    charts = [
        bar_chart("Lines by source", stats["by_source"], empty="no lines yet: run `dvc repro` (or build-lines)"),
        bar_chart("Lines by evidence (how the speaker was found)", stats["by_evidence"], empty="no lines yet"),
        column_chart("Speaker confidence of the lines", stats["confidence"], "confidence",
                     empty="no lines with a confidence"),
        column_chart("Stories by length", stats["tokens"], "tokens per story", unit="stories",
                     empty="no stories yet: run `rolecorpus segment`"),
        bar_chart("Who they answer most (in the stories)", stats["answered"], unit="replies",
                  empty="no exchanges in the stories"),
    ]
    charts.append(bar_chart("Emotions of the lines", stats["emotions"], empty="") if stats["emotions"] else
                  '<figure class="chart empty"><figcaption>Emotions</figcaption><p class="muted">not annotated: '
                  f'run `rolecorpus annotate emotions {stats["character"].id}`</p></figure>')
    return charts


def render_report(project: Project, cid: str) -> str:
    """The standalone HTML report of one character (what `rolecorpus report ID` writes)."""
    from .studio.render import inline_css, templates

    stats = corpus_stats(project, cid)
    return templates().get_template("report_static.html").render(
        stats=stats, charts=report_charts(stats), css=inline_css(), standalone=True)

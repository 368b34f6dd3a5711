"""The characters page's table: each configured character with its works, lines, stories, embedding model and
how far it is built (packaged, stories only, lines only, not built, linked to no work)."""

from __future__ import annotations

import json
from collections import Counter

from extractors.characters import load_characters
from extractors.records import read_lines

from ..paths import Project
from ..settings import load_settings


def _count_rows(path) -> int:
    with open(path, encoding="utf-8") as fh:
        return sum(1 for row in fh if row.strip())


def character_rows(project: Project) -> list[dict]:
    settings = load_settings(project.pipeline_yaml)
    spoken: dict[str, Counter] = {}
    for work in settings.works:
        path = project.lines(work)
        if path.is_file():
            spoken[work] = Counter(ln.speaker for ln in read_lines(path) if ln.kind == "dialogue" and ln.speaker)
    rows = []
    for cid, ch in sorted(load_characters(project.configs).items()):
        spec = settings.characters.get(cid)
        works = spec.works() if spec is not None else []
        stories = project.stories(cid)
        manifest = project.package(cid) / "manifest.json"
        model = None
        if manifest.is_file():
            model = json.loads(manifest.read_text(encoding="utf-8")).get("models", {}).get("embedding", {}).get("model")
        n_stories = _count_rows(stories) if stories.is_file() else 0
        if spec is None:
            state, cls = "linked to no work (edit it to pick one)", "none"
        elif model:
            state, cls = "packaged (ready to chat)", "built"
        elif stories.is_file():
            state, cls = "stories, not packaged", "partial"
        elif any(w in spoken for w in works):
            state, cls = "lines only", "partial"
        else:
            state, cls = "not built (Build page, or rolecorpus build)", "none"
        rows.append({"id": cid, "name": ch.name, "series": ch.series, "works": works,
                     "lines": sum(spoken.get(w, Counter())[cid] for w in works), "stories": n_stories,
                     "model": model, "state": state, "state_class": cls})
    return rows

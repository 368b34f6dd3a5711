"""The character steps after the lines: segment (lines -> stories), embed (stories -> vectors), package (-> the
character's folder). Each takes the project and a character id, writes its output atomically and returns its
one-line report; the commands and both engines call these."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import numpy as np
from numpy.lib import format as npy_format

from extractors.atomic import atomic_open
from extractors.characters import AliasResolver, get_character, load_characters
from extractors.errors import InputError
from extractors.ids import check_id, check_output
from extractors.records import read_lines

from .embedders import CachedEmbedder
from .emotions import emotions_path, read_distribution
from .package import build_package, load_embeddings
from .paths import Project
from .profile import read_profile
from .segment import Params, Segmenter
from .settings import Settings, load_settings
from .stories import count_kinds, read_stories, write_stories


def lines_for(project: Project, settings: Settings, cid: str, given: list[Path]) -> list[Path]:
    """The line files a character's stories come from: `given`, else those of its works in pipeline.yaml."""
    if given:
        return given
    spec = settings.characters.get(cid)
    if spec is None:
        raise InputError(f"no LINES given and characters.{cid}.work is not set in {project.pipeline_yaml}")
    return [project.lines(check_id(w, f"characters.{cid}.work")) for w in spec.works()]


def segment_character(project: Project, character: str, lines: list[Path] | None = None,
                      output: Path | None = None) -> str:
    """Cut the character's stories out of the lines of its works (the `segment:` limits of pipeline.yaml)."""
    if output is not None:
        check_output(output, "-o")
    settings = load_settings(project.pipeline_yaml)
    ch = get_character(project.configs, character)
    resolver = AliasResolver(load_characters(project.configs))
    all_lines = []
    for path in lines_for(project, settings, character, list(lines or [])):
        all_lines.extend(read_lines(path))
    params = Params(**settings.segment.model_dump())
    stories = Segmenter(ch.id, resolver, params).run(all_lines)
    out = output or project.stories(ch.id)
    if not stories:
        spoken = sum(1 for ln in all_lines if ln.speaker == ch.id and ln.kind == "dialogue")
        raise InputError(f"no stories for {ch.id!r}: {spoken} dialogue line(s) by them, none answering another speaker"
                         f" (segment.solo: {params.solo})")
    write_stories(out, stories)
    kinds = count_kinds(stories)
    return (f"{ch.id}: {len(stories)} stories ({kinds['exchange']} exchange, {kinds['solo']} solo), "
            f"{sum(s.exchanges for s in stories)} exchanges from {len(all_lines)} lines -> {out}")


def embed_stories(project: Project, cid: str, stories: list, emb: CachedEmbedder, backend: str) -> str:
    """Embed the stories with `emb` and write data/embeddings/ID.npz; the one-line report (also used by the
    engines of pipeline/engine, whose workers keep one embedder for every character they embed)."""
    cache = emb.cache
    cache.hits = cache.misses = 0
    try:
        vecs = emb.encode([s.text for s in stories], progress=sys.stderr.isatty())  # no bar in a log or pipe
    except Exception as e:  # noqa: BLE001  (an endpoint's errors: one line, class and status only, never its text)
        if type(e).__module__.split(".")[0] not in ("openai", "httpx", "httpcore"):
            raise
        status = getattr(e, "status_code", None)
        raise InputError(f"the embeddings endpoint failed ({type(e).__name__}" + (f", HTTP {status}" if status else "")
                         + "); nothing was written") from None
    finally:
        cache.close()
    meta = {"model": emb.name, "dim": int(vecs.shape[1]), "normalized": emb.normalized, "backend": backend}
    out = project.embeddings(cid)
    with atomic_open(out, "wb") as fh:
        save_npz(fh, vectors=vecs, ids=np.array([s.id for s in stories]), meta=np.array(json.dumps(meta)))
    return f"{cid}: {len(stories)} vectors ({emb.name}, {vecs.shape[1]}-d; cache hits {cache.hits}, new {cache.misses}) -> {out}"


def save_npz(fh, **arrays) -> None:
    """`np.savez`, but every member dated 1980-01-01 (numpy stamps the time of writing), so the same vectors
    are the same bytes whenever and by whichever engine they are written (DVC sees no change)."""
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, arr in arrays.items():
            with zf.open(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)), "w", force_zip64=True) as f:
                npy_format.write_array(f, np.asanyarray(arr), allow_pickle=False)


def package_character(project: Project, character: str) -> str:
    """Write the character's package: system prompt, stories, role file and manifest (data/characters/ID/)."""
    settings = load_settings(project.pipeline_yaml)
    ch = get_character(project.configs, character)
    stories = read_stories(project.stories(ch.id))
    vecs, meta = load_embeddings(project.embeddings(ch.id), stories)
    sources = sorted({f"{s.work}/{s.source}" for s in stories})
    out = build_package(project.package(ch.id), ch, stories, vecs, meta, {"segment": settings.segment.model_dump()},
                        sources, profile=read_profile(project.configs, ch.id),
                        emotions=read_distribution(emotions_path(project.root, ch.id)))
    return f"{ch.id}: package with {len(stories)} stories -> {out}"

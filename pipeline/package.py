"""Build a character package `data/characters/<id>/` (docs/design.md): system prompt, stories,
ChatHaruhi 2.0 role file and manifest — written whole into a temp dir and swapped in."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import jsonlines
import numpy as np

from extractors.atomic import atomic_dir
from extractors.characters import Character
from extractors.errors import InputError

from .rolefile import role_rows
from .stories import Story, count_kinds

PROMPT_TEMPLATE = """I want you to act like {name} from {series}.
You are now cosplaying {name}.
If others' questions are related to {series}, please try to reuse the original lines from it.
I want you to respond and answer like {name}, using the tone, manner and vocabulary {name} would use.
You must know all of the knowledge of {name}.
{personality}"""

PROMPT_TEMPLATE_ZH = """我希望你像{series}中的{name}一样回答问题。
你现在正在扮演{name}。
如果别人的问题与{series}有关，请尽量重复使用原著中的台词。
我希望你像{name}那样，用{name}会使用的语气、方式和词汇来回应和回答。
你必须知道{name}的所有知识。
{personality}"""


def system_prompt(ch: Character, profile: str | None = None) -> str:
    """The paper's prompt; a profile (configs/profiles/<id>.md, pipeline/profile.py) follows the personality note."""
    template = PROMPT_TEMPLATE_ZH if ch.language == "zh" else PROMPT_TEMPLATE
    personality = "\n\n".join(t for t in (ch.personality.strip(), (profile or "").strip()) if t)
    return template.format(name=ch.name, series=ch.series or "the story", personality=personality).rstrip() + "\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_embeddings(path: str | Path, stories: list[Story]) -> tuple[np.ndarray, dict]:
    path = Path(path)
    if not path.exists():
        raise InputError("no embeddings; run `rolecorpus embed` first", path)
    with np.load(path, allow_pickle=False) as z:
        vecs = z["vectors"].astype(np.float32)
        ids = [str(i) for i in z["ids"]]
        meta = json.loads(str(z["meta"]))
    if ids != [s.id for s in stories] or len(vecs) != len(stories):
        raise InputError("embeddings do not match the stories (rerun `rolecorpus embed`)", path)
    return vecs, meta


def build_package(out_dir: str | Path, ch: Character, stories: list[Story], vectors: np.ndarray,
                  embed_meta: dict, params: dict, sources: list[str], *, profile: str | None = None,
                  emotions: dict | None = None) -> Path:
    """`profile`: the profile text for the system prompt; `emotions`: the label counts of data/emotions/<id>.jsonl
    (manifest `emotions`). Without them the package is what it was before profiles and emotions existed."""
    if not stories:
        raise InputError(f"character {ch.id!r} has no stories to package")
    prompt = system_prompt(ch, profile)
    column = embed_meta["model"]
    config = {
        "character": ch.id, "name": ch.name, "series": ch.series, "language": ch.language,
        "embedding": {"model": column, "dim": int(vectors.shape[1]), "dtype": "float32",
                      "byte_order": "big-endian", "struct": "!f", "encoding": "base64",
                      "normalized": bool(embed_meta.get("normalized", True))},
        "generator": "rolecorpus",
    }
    with atomic_dir(out_dir) as tmp:
        (tmp / "system_prompt.txt").write_text(prompt, encoding="utf-8")
        sdir = tmp / "stories"
        sdir.mkdir()
        story_hashes = {}
        for s in stories:
            data = (s.text + "\n").encode("utf-8")
            (sdir / f"{s.id}.txt").write_bytes(data)
            story_hashes[f"stories/{s.id}.txt"] = _sha(data)
        role_path = tmp / f"{ch.id}.jsonl"
        with jsonlines.open(role_path, "w", compact=True) as w:
            w.write_all(role_rows(prompt, config, column, [s.text for s in stories], vectors))
        manifest = {
            "character": {"id": ch.id, "name": ch.name, "series": ch.series, "language": ch.language,
                          "aliases": ch.aliases},
            "counts": {
                "stories": len(stories),
                "exchanges": sum(s.exchanges for s in stories),
                "story_kinds": count_kinds(stories),  # {"exchange": n, "solo": m}
                "tokens": sum(s.tokens for s in stories),
                "works": sorted({s.work for s in stories}),
            },
            "sources": sources,
            "models": {"embedding": config["embedding"], "tokenizer": "tiktoken cl100k_base"},
            "parameters": params,
            "hashes": {
                "system_prompt.txt": _sha(prompt.encode("utf-8")),
                f"{ch.id}.jsonl": _sha(role_path.read_bytes()),
                "stories": _sha(json.dumps(story_hashes, sort_keys=True).encode()),
            },
            # SOURCE_DATE_EPOCH (reproducible builds): a fixed date, so two builds of one corpus are byte-identical
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(os.environ["SOURCE_DATE_EPOCH"])
                                                                       if os.environ.get("SOURCE_DATE_EPOCH") else None)),
        }
        if profile:
            manifest["profile"] = {"file": f"configs/profiles/{ch.id}.md", "sha256": _sha(profile.encode("utf-8"))}
        if emotions is not None:
            manifest["emotions"] = emotions  # lines per label, RoleCraft's ten (pipeline/emotions.py)
        (tmp / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return Path(out_dir)

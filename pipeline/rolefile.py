"""The ChatHaruhi 2.0 role file (`<id>.jsonl`): encode and decode.

Row 1 `{"text": system_prompt, COL: "system_prompt"}`, row 2 `{"text": <config JSON>, COL: "config"}`,
then one row per story `{"text": story, COL: base64(float32 big-endian vector)}`; COL names the
embedding model. This is the byte layout ChatHaruhi's own loader decodes with `struct '!f'`.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np

from extractors.errors import InputError
from extractors.records import iter_json_rows


def vector_to_base64(vec: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vec, dtype=">f4").tobytes()).decode("ascii")


def base64_to_vector(data: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(data), dtype=">f4").astype(np.float32)


def role_rows(system_prompt: str, config: dict, column: str, texts: list[str], vectors: np.ndarray) -> list[dict]:
    if len(texts) != len(vectors):
        raise ValueError("one vector per story")
    rows = [{"text": system_prompt, column: "system_prompt"},
            {"text": json.dumps(config, ensure_ascii=False), column: "config"}]
    rows += [{"text": t, column: vector_to_base64(v)} for t, v in zip(texts, vectors)]
    return rows


def read_role_file(path: str | Path) -> tuple[str, dict, str, list[str], np.ndarray]:
    """(system_prompt, config, column, texts, vectors) from a role file."""
    path = Path(path)
    if not path.exists():
        raise InputError("no role file; run `rolecorpus package` first", path)
    system_prompt, config, column = None, {}, None
    texts, vecs = [], []
    for row, d in iter_json_rows(path):
        if column is None:
            cols = [k for k in d if k != "text"]
            if len(cols) != 1:
                raise InputError("expected one embedding column besides 'text'", path, row)
            column = cols[0]
        value = d.get(column)
        if value == "system_prompt":
            system_prompt = d["text"]
        elif value == "config":
            try:
                config = json.loads(d["text"])
            except json.JSONDecodeError:
                config = {"raw": d["text"]}
        else:
            texts.append(d["text"])
            vecs.append(base64_to_vector(value))
    if system_prompt is None or not texts:
        raise InputError("role file has no system prompt or no stories", path)
    return system_prompt, config, column, texts, np.stack(vecs)

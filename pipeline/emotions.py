"""Emotion labels (`rolecorpus annotate emotions ID`): each of the character's lines gets one of RoleCraft's ten
emotions, stored with the line in `data/emotions/<id>.jsonl` as {"work", "unit", "index", "text", "emotion"}.

Lines go to the LLM in numbered batches (with the line each one answers as context) through the editable templates
`configs/prompts/emotions.system.txt` / `.user.txt`, in the server's JSON mode; the answer is a JSON object mapping
each line's number to its label (a list of as many labels is read too; near-JSON is mended). Decision: an
answer that is not such a list, or holds a label outside the ten, is asked again once as a different sample
(`variant=1`, cached like the first); what is still missing after that becomes `Other` and the record says
`"fallback": true`. Labels are matched case-insensitively, and the Chinese names (愤怒, 高兴…) are accepted.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from extractors.atomic import atomic_open
from extractors.characters import Character
from extractors.errors import InputError
from extractors.ids import check_id
from extractors.llm import parse_json
from extractors.records import Line, iter_json_rows

from .profile import LANGUAGE_NAMES, is_chinese, load_templates, render, replies

LABELS = ("Anger", "Disgust", "Fear", "Happiness", "Sadness", "Surprise", "Neutral", "Frustration", "Excitement",
          "Other")
_ZH = {"愤怒": "Anger", "生气": "Anger", "厌恶": "Disgust", "恐惧": "Fear", "害怕": "Fear", "高兴": "Happiness",
       "快乐": "Happiness", "喜悦": "Happiness", "悲伤": "Sadness", "伤心": "Sadness", "惊讶": "Surprise",
       "中性": "Neutral", "平静": "Neutral", "沮丧": "Frustration", "挫败": "Frustration", "兴奋": "Excitement",
       "其他": "Other"}
_BY_NAME = {label.casefold(): label for label in LABELS} | _ZH
KEYS = ("work", "unit", "index", "text", "emotion")


def emotions_path(root: Path, cid: str) -> Path:
    return Path(root) / "data" / "emotions" / f"{check_id(cid, 'character id')}.jsonl"


def label_of(value: object) -> str | None:
    """One of the ten labels for a model's word (`happiness`, ` Anger.`, `高兴`), or None."""
    if not isinstance(value, str):
        return None
    return _BY_NAME.get(value.strip().strip(".。!\"'").casefold())


def _label_list(value: object, n: int) -> list | None:
    """The n items of a parsed answer: an object numbered "1".."n" (the form the prompt asks for: a small model
    keeps count by the numbers; a number it skipped is None), an object holding one list (`{"labels": [...]}`),
    or a list."""
    if isinstance(value, dict):
        numbered = {int(k.strip()): v for k, v in value.items() if isinstance(k, str) and k.strip().isdigit()}
        lists = [v for v in value.values() if isinstance(v, list)]
        if numbered and all(1 <= k <= n for k in numbered):
            value = [numbered.get(i) for i in range(1, n + 1)]
        elif len(lists) == 1:
            value = lists[0]
    return value if isinstance(value, list) and len(value) == n else None


def parse_labels(answer: str, n: int) -> list[str | None] | None:
    """The n labels of an answer (None where a label is not one of the ten); None when the answer holds no list of
    n items. Near-JSON (fenced, trailing commas, single quotes) is mended first (extractors.llm.parse_json)."""
    items = _label_list(parse_json(answer, dict), n) or _label_list(parse_json(answer, list), n)
    if items is None:
        return None
    return [label_of(x.get("emotion") if isinstance(x, dict) else x) for x in items]


def batch_messages(ch: Character, batch: list[tuple[Line, Line | None]], configs: Path) -> list[dict]:
    folder, system, user = load_templates(configs, "emotions")
    q = "「{}」" if is_chinese(ch) else '"{}"'
    numbered = []
    for i, (ln, prompt) in enumerate(batch, start=1):
        if prompt is not None:
            numbered.append(f"   ({prompt.name or prompt.speaker}: {q.format(prompt.text[:200])})")
        numbered.append(f"{i}. {ch.name}: {q.format(ln.text[:500])}")
    values = {"name": ch.name, "series": ch.series or "the story", "count": len(batch),
              "language_name": LANGUAGE_NAMES.get(ch.language, ch.language), "numbered_lines": "\n".join(numbered)}
    return [{"role": "system", "content": render(system, values, folder / "emotions.system.txt")},
            {"role": "user", "content": render(user, values, folder / "emotions.user.txt")}]


def _relabel(client, requests: list, batches: list, labels: list) -> int:
    """Ask once more (a different sample) for every batch with a bad answer; fill what the second answer gives."""
    redo = [i for i, ls in enumerate(labels) if ls is None or None in ls]
    if not redo:
        return 0
    again = client.complete_many([requests[i] for i in redo], desc="emotions (again)", variants=[1] * len(redo),
                                 json=True)
    for i, answer in zip(redo, again):
        second = parse_labels(answer, len(batches[i])) or [None] * len(batches[i])
        first = labels[i] or [None] * len(batches[i])
        labels[i] = [a or b for a, b in zip(first, second)]
    return len(redo)


def annotate(client, ch: Character, lines: list[Line], configs: Path, batch: int = 20) -> tuple[list[dict], dict]:
    """The emotion record of each dialogue line of `ch` (in corpus order) and counts for the metrics."""
    pairs = replies(lines, ch.id)
    if not pairs:
        raise InputError(f"character {ch.id!r} has no dialogue lines in its works' lines; nothing to annotate")
    batches = [pairs[i:i + batch] for i in range(0, len(pairs), batch)]
    requests = [batch_messages(ch, b, configs) for b in batches]
    answers = client.complete_many(requests, desc=f"emotions {ch.id}", json=True)
    labels = [parse_labels(a, len(b)) for a, b in zip(answers, batches)]
    retried = _relabel(client, requests, batches, labels)
    records = []
    for b, ls in zip(batches, labels):
        for (ln, _), label in zip(b, ls or [None] * len(b)):
            rec = {"work": ln.work, "unit": ln.unit, "index": ln.index, "text": ln.text, "emotion": label or "Other",
                   "source": ln.source}
            if label is None:
                rec["fallback"] = True
            records.append(rec)
    stats = {"lines": len(records), "batches": len(batches), "retried_batches": retried,
             "fallback_labels": sum(1 for r in records if r.get("fallback")), "distribution": distribution(records)}
    return records, stats


def distribution(records: list[dict]) -> dict[str, int]:
    """Lines per label, all ten labels in RoleCraft's order."""
    counts = Counter(r["emotion"] for r in records)
    return {label: counts.get(label, 0) for label in LABELS}


def write_emotions(path: Path, records: list[dict]) -> None:
    with atomic_open(path) as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def read_distribution(path: Path) -> dict[str, int] | None:
    """The label counts of an emotions file (for the package manifest), or None when there is none."""
    path = Path(path)
    if not path.is_file():
        return None
    records = []
    for row, d in iter_json_rows(path):
        missing = [k for k in KEYS if k not in d]
        if missing:
            raise InputError(f"missing field(s) {', '.join(missing)}", path, row)
        if d["emotion"] not in LABELS:
            raise InputError(f"emotion {d['emotion']!r} is not one of {', '.join(LABELS)}", path, row)
        records.append(d)
    return distribution(records)

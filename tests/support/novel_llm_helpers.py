"""Helpers for the Kor/LLM attribution tests: a real Pride and Prejudice passage with PDNC gold,
a fake chat model and the fake OpenAI-compatible HTTP server on localhost (tests/fake_llm_server.py), both
answering in Kor's format, deriving the answer from the chunk they are sent.
"""

from __future__ import annotations

import ast
import csv
import json
import re
from pathlib import Path

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from extractors.characters import Character, slug
from extractors.records import Line
from fake_llm_server import FakeLLMServer


def load_characters(book_dir: Path) -> list[Character]:
    chars = []
    with open(book_dir / "character_info.csv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            aliases = sorted(ast.literal_eval(row["Aliases"]))
            g = {"M": "male", "F": "female"}.get(row["Gender"])
            chars.append(Character(id=slug(row["Main Name"]), name=row["Main Name"], series="PDNC", aliases=aliases, gender=g))
    return chars


def load_gold(book_dir: Path, end: int) -> list[dict]:
    """Gold quotations whose spans end before `end`: text, speaker (main name), spans, type."""
    out = []
    with open(book_dir / "quotation_info.csv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            spans = ast.literal_eval(row["quoteByteSpans"])
            if spans[-1][1] > end:
                continue
            parts = ast.literal_eval(row["subQuotationList"])
            out.append(
                {
                    "id": row["quoteID"],
                    "text": " ".join(p.strip() for p in parts),
                    "parts": parts,
                    "speaker": row["speaker"],
                    "type": row["quoteType"],
                    "start": spans[0][0] - 1,  # include the opening quotation mark
                    "end": spans[-1][1] + 1,
                }
            )
    out.sort(key=lambda q: q["start"])
    return out


def build_lines(text: str, gold: list[dict], known_every: int = 3) -> list[Line]:
    """Narration and dialogue lines with offsets; every `known_every`-th quotation keeps its gold speaker
    (as if the rules had found it), the others are unresolved."""
    lines: list[Line] = []
    pos = 0

    def add(kind, s, e, **kw):
        body = " ".join(text[s:e].split())
        if body:
            lines.append(Line(work="pp", source="novel_text.txt", unit="CHAPTER I", index=len(lines), kind=kind,
                              text=body, extra={"start": s, "end": e}, **kw))

    for n, q in enumerate(gold):
        add("narration", pos, q["start"])
        known = n % known_every == 0
        lines.append(
            Line(work="pp", source="novel_text.txt", unit="CHAPTER I", index=len(lines), kind="dialogue",
                 text=" ".join(q["text"].split()), speaker=slug(q["speaker"]) if known else None,
                 name=q["speaker"] if known else None, confidence=0.95 if known else None,
                 evidence="explicit-verb" if known else None, extra={"start": q["start"], "end": q["end"], "gold": q["id"]})
        )
        pos = q["end"]
    add("narration", pos, len(text))
    return lines


def squash(s: str) -> str:
    return " ".join(s.split())


def chunk_of(last_user_message: str) -> str:
    """The passage inside Kor's triple quotes."""
    m = re.search(r'"""\n(.*)\n"""', last_user_message, re.S)
    return m.group(1) if m else last_user_message


def kor_answer(chunk_text: str, gold: list[dict], rename: dict | None = None, style: str = "full") -> str:
    """A Kor JSON answer naming the gold speaker of every quotation found in the chunk, in text order,
    with a narrator row first. `rename` maps a quote id to another role. `style='halves'` answers
    quotations broken by a speech tag with their parts as separate rows (as models often do)."""
    flat = squash(chunk_text)
    rows = [{"role": "narrator", "action": "the scene is set", "dialogue": "-"}]
    for q in gold:
        if squash(q["parts"][0]) not in flat:
            continue
        role = (rename or {}).get(q["id"], q["speaker"])
        if style == "halves" and len(q["parts"]) > 1:
            for p in q["parts"]:
                rows.append({"role": role, "action": "-", "dialogue": squash(p)})
        else:
            rows.append({"role": role, "action": "said", "dialogue": squash(q["text"])})
    return "<json>" + json.dumps({"script": rows}, ensure_ascii=False) + "</json>"


class GoldFakeChatModel(BaseChatModel):
    """A fake chat model (plumbing only) that answers each chunk with the PDNC gold speakers."""

    gold: list
    rename: dict = {}
    style: str = "full"
    calls: int = 0
    model_name: str = "gold-fake"

    @property
    def _llm_type(self) -> str:
        return "gold-fake"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        self.calls += 1
        answer = kor_answer(chunk_of(messages[-1].content), self.gold, self.rename, self.style)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


def gold_llm_server(gold: list[dict]) -> FakeLLMServer:
    """The tests' fake OpenAI-compatible server (tests/fake_llm_server.py) answering each chunk in Kor's
    format from the gold table."""
    def answer(messages: list[dict]) -> str:
        user = [m for m in messages if m.get("role") == "user"]
        return kor_answer(chunk_of(user[-1]["content"] if user else ""), gold)

    return FakeLLMServer(answer)

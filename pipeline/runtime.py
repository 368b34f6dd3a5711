"""The chat runtime: ChatHaruhi-style prompt assembly over a character package.

Messages: the system prompt; then the retrieved stories (most similar first, stopping at the
first that would overflow `story_tokens`); then the history, newest first within
`history_tokens` (sent oldest first); then the query `role:「text」`. With an LLM (any
OpenAI-compatible endpoint through LangChain) it answers; without one it still retrieves and
returns the character's original line that best answers the query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from extractors.characters import normalize_name
from extractors.errors import InputError
from extractors.llm import redact_secrets

from .retrieval import StoryIndex
from .rolefile import read_role_file
from .tokens import count_tokens

STORY_HEADER = "Classic scenes for the role are as follows:"
_LINE = re.compile(r"^(?P<who>[^:：\n]+)[:：]「(?P<text>.*)」$")


@dataclass
class Turn:
    role: str
    text: str
    reply: str


@dataclass
class Answer:
    messages: list[dict]          # [{"role": "system"|"user"|"assistant", "content": ...}]
    stories: list[tuple[float, str]]
    best_line: tuple[str, str, float] | None  # (prompt line, character's reply, score)
    reply: str | None = None      # the LLM's answer, when one is configured


@dataclass
class CharacterBot:
    package_dir: Path
    embedder: object
    llm: object | None = None
    story_tokens: int = 1500
    history_tokens: int = 1200
    history: list[Turn] = field(default_factory=list)

    def __post_init__(self):
        self.package_dir = Path(self.package_dir)
        cid = self.package_dir.name
        role_path = self.package_dir / f"{cid}.jsonl"
        self.system_prompt, self.config, self.column, self.texts, vectors = read_role_file(role_path)
        if self.column != getattr(self.embedder, "name", self.column):
            raise InputError(
                f"package was embedded with {self.column!r} but the query embedder is {self.embedder.name!r}", role_path)
        self.index = StoryIndex(vectors)
        self.name = self.config.get("name", cid)
        self._story_tokens = [count_tokens(t) for t in self.texts]

    # -- retrieval --------------------------------------------------------------------
    def query_text(self, role: str, text: str) -> str:
        return f"{role}:「{text}」"

    def retrieve(self, query: str) -> list[tuple[float, str]]:
        qv = self.embedder.encode([query])[0]
        picked, used = [], 0
        for i, score in self.index.search(qv, k=min(len(self.index), 50)):
            t = self._story_tokens[i]
            if used + t > self.story_tokens:
                break
            picked.append((score, self.texts[i]))
            used += t
        return picked

    def best_original_line(self, text: str, stories: list[tuple[float, str]]) -> tuple[str, str, float] | None:
        """The character's reply whose prompting line is most like the question.

        Lines are compared by their words only: with the `Name:「…」` frame, every short line by
        the same speaker looks alike, and one generic exchange would answer every question.
        """
        pairs: list[tuple[str, str, str, str]] = []  # (prompt line, reply line, prompt words, reply words)
        solo: list[tuple[str, str, str, str]] = []  # lines with no one before (solo stories): (occasion, line, words, words)
        for _, story in stories:
            prev, occasion = None, ""
            for raw in story.splitlines():
                m = _LINE.match(raw.strip())
                if not m:
                    occasion = raw.strip()
                    continue
                if m["who"].strip() == self.name and prev is not None:
                    pairs.append((prev[0], raw.strip(), prev[1], m["text"]))
                elif m["who"].strip() == self.name:
                    solo.append((occasion, raw.strip(), m["text"], m["text"]))
                prev = (raw.strip(), m["text"]) if m["who"].strip() != self.name else None
        pairs = pairs or solo  # a character of solo stories only: the line most like the question
        if not pairs:
            return None
        vecs = self.embedder.encode([text] + [p[2] for p in pairs] + [p[3] for p in pairs])
        n = len(pairs)
        q = vecs[0] / max(float(np.linalg.norm(vecs[0])), 1e-12)
        scores = 0.8 * (vecs[1 : n + 1] @ q) + 0.2 * (vecs[n + 1 :] @ q)
        i = int(np.argmax(scores))
        return pairs[i][0], pairs[i][1], float(scores[i])

    # -- prompt ---------------------------------------------------------------------------
    def build_messages(self, query: str, stories: list[tuple[float, str]]) -> list[dict]:
        msgs = [{"role": "system", "content": self.system_prompt}]
        if stories:
            msgs.append({"role": "system", "content": STORY_HEADER + "\n" + "\n###\n".join(t for _, t in stories)})
        kept, used = [], 0
        for turn in reversed(self.history):
            q, a = self.query_text(turn.role, turn.text), turn.reply
            t = count_tokens(q) + count_tokens(a)
            if used + t > self.history_tokens:
                break
            kept.append((q, a))
            used += t
        for q, a in reversed(kept):
            msgs += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
        msgs.append({"role": "user", "content": query})
        return msgs

    def ask(self, role: str, text: str) -> Answer:
        if not text.strip():
            raise InputError("empty question")
        query = self.query_text(role, text)
        stories = self.retrieve(query)
        best = self.best_original_line(text, stories)
        msgs = self.build_messages(query, stories)
        reply = None
        if self.llm is not None:
            reply = self._call_llm(msgs)
            self.history.append(Turn(role, text, reply))
        elif best is not None:
            self.history.append(Turn(role, text, best[1]))
        return Answer(msgs, stories, best, reply)

    def _call_llm(self, msgs: list[dict]) -> str:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
        try:
            out = self.llm.invoke([kinds[m["role"]](content=m["content"]) for m in msgs])
        except Exception as e:  # network, auth, timeout (the chat model's own): one line, no traceback, no key
            first = str(e).splitlines()[0] if str(e) else ""
            raise InputError(f"LLM call failed: {e.__class__.__name__}: {redact_secrets(first)}") from None
        content = getattr(out, "content", out)
        if not isinstance(content, str) or not content.strip():
            raise InputError("LLM returned an empty answer")
        reply = self.clean_reply(content)
        if not reply:
            raise InputError(f"LLM returned no words, only {content.strip()[:60]!r}")
        return reply

    def clean_reply(self, content: str) -> str:
        """The LLM's words without the story frame it imitates: `Name:「words」` -> `words`.

        Models that read stories written as `Name:「…」` often answer in the same form (ChatHaruhi
        strips it too); the frame would otherwise be printed after the name and kept in the history.
        """
        reply = content.strip()
        m = re.match(r"^(?P<who>[^:：「\n]{1,40})[:：]\s*(?P<rest>.*)$", reply, re.S)
        if m and normalize_name(m["who"]) == normalize_name(self.name):
            reply = m["rest"].strip()
        if reply.startswith("「") and reply.endswith("」") and reply.count("「") == 1:
            reply = reply[1:-1].strip()
        return reply

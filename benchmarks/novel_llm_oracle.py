"""What the Kor LLM pass costs and how much of a perfect model's answer survives the plumbing.

For each PDNC novel: rules alone (extract_novel), then `llm_attribute` with an *oracle* fake chat
model that answers every chunk in Kor's format with the PDNC gold speakers (so any loss is ours:
chunking, marking, fuzzy mapping of rows to quotations, name resolution). Prints chunks sent vs
total (the paper sends everything), calls, tokens in/out (tiktoken estimates: the fake reports no
usage), accuracy before/after, and the accuracy on the quotations the LLM pass filled.

    python benchmarks/novel_llm_oracle.py [PDNC_DIR]
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
from pathlib import Path

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from extractors.novel.evaluation.evaluate import match, score  # noqa: E402
from extractors.novel.extract import extract_novel  # noqa: E402
from extractors.novel.llm.kor import llm_attribute  # noqa: E402
from extractors.novel.evaluation.pdnc import load_characters, load_quotes  # noqa: E402


def squash(s: str) -> str:
    return " ".join(s.split())


class Oracle(BaseChatModel):
    """Answers with the gold speaker of every gold quotation whose text appears in the chunk."""

    quotes: list  # (first part, full text, speaker main name)
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "oracle"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        self.calls += 1
        m = re.search(r'"""\n(.*)\n"""', messages[-1].content, re.S)
        chunk = squash(m.group(1) if m else messages[-1].content)
        rows = [{"role": "narrator", "action": "-", "dialogue": "-"}]
        for first, full, who in self.quotes:
            if first and first in chunk:
                rows.append({"role": who, "action": "-", "dialogue": full})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="<json>" + json.dumps({"script": rows}) + "</json>"))])


def run(book: Path) -> None:
    import csv

    text = (book / "novel_text.txt").read_text(encoding="utf-8")
    chars = load_characters(book)
    gold = load_quotes(book)
    with open(book / "quotation_info.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    quotes = []
    for r, g in zip(rows, gold):
        first = squash(text[g.spans[0][0] : g.spans[0][1]])
        quotes.append((first, squash(" ".join(text[s:e] for s, e in g.spans)), r["speaker"]))
    lines = extract_novel(book / "novel_text.txt", book.name, chars, text=text)
    before = score(gold, lines)["overall"]
    oracle = Oracle(quotes=quotes)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        out = llm_attribute(lines, text, chars, oracle, Path(tmp) / "cache", metrics_path=Path(tmp) / "m.json",
                            concurrency=2)
        dt = time.perf_counter() - t0
        m = json.loads((Path(tmp) / "m.json").read_text())
    after = score(gold, out)["overall"]
    filled = {id(ln) for ln in out if ln.evidence == "llm"}
    ok = n = 0
    for g, ln in zip(gold, match(gold, out)):
        if ln is not None and id(ln) in filled:
            n += 1
            ok += ln.speaker == g.speaker
    print(f"== {book.name}: {len(gold)} gold quotes, {m['quotes_unresolved']} left unresolved by the rules")
    print(f"   chunks sent {m['chunks_sent']}/{m['chunks_total']}, calls {m['calls']}, "
          f"tokens in {m['tokens_in']:,} out {m['tokens_out']:,} (estimated), {dt:.1f} s with the fake model")
    print(f"   filled {m['quotes_filled']}, no row matched {m['quotes_unanswered']}, names unmatched {m['names_unmatched']}, "
          f"no speaker {m['quotes_no_speaker']}")
    print(f"   accuracy rules {before['accuracy']:.3f} -> rules+oracle LLM {after['accuracy']:.3f}; "
          f"coverage {before['coverage']:.3f} -> {after['coverage']:.3f}; "
          f"LLM-filled quotes right {ok}/{n} ({ok / max(1, n):.3f})")


if __name__ == "__main__":
    base = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "corpora" / "pdnc" / "data"
    for book in sorted(p for p in base.iterdir() if (p / "quotation_info.csv").exists()):
        run(book)

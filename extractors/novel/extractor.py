"""The `novel` source kind behind the extractor contract: quotations attributed by rules, then optionally an LLM.

The characters are those configured for the work (their series is the work id, or their sources name the work
or the input file); when none is, the cast discovered in the text. The LLM, when asked for, is the context's
injected chat model. The quotation and attribution counts (and the LLM pass's calls, tokens and cache hits)
come back in `ctx.metrics`, which the pipeline writes to `metrics/novel_<work>.json`.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import ClassVar, Iterator, Optional

from pydantic import Field, field_validator

from extractors.characters import Character
from extractors.contract import ExtractContext, ExtractOptions
from extractors.records import Line
from .attribution import zh_model
from .attribution.attributor import DEFAULT_MIN_CONFIDENCE
from .attribution.calibration import BUDGET_FLOOR, CONFIGURED_CEILING

MIN_CONFIDENCE_HELP = (
    "The hold: a speaker guess less sure than this is left unattributed (with --llm, sent to the LLM). Default "
    f"(English): the book's own, from {CONFIGURED_CEILING} for configured characters ({DEFAULT_MIN_CONFIDENCE} for a "
    f"discovered cast) down to {BUDGET_FLOOR} while the guesses kept stay sure enough; Chinese: "
    f"{zh_model.hold() or DEFAULT_MIN_CONFIDENCE}, fitted with the Chinese turn model. A number fixes it: lower for more coverage and less precision, 0 emits every guess.")
NO_LLM_COUNTS = {"calls": 0, "cache_hits": 0, "tokens_in": 0, "tokens_out": 0, "chunks_sent": 0, "quotes_filled": 0}


class LLMKeep(str, Enum):
    agree = "agree"
    all = "all"


class LLMChoice(str, Enum):
    none = "none"
    openai = "openai"


def check_language(v: Optional[str]) -> Optional[str]:
    if v is not None and v not in ("en", "zh"):
        raise ValueError(f"--language must be en or zh, not {v!r}")
    return v


class NovelOptions(ExtractOptions):
    llm: LLMChoice = Field(LLMChoice.none, description="none: rules only; openai: send the quotes the rules left "
                           "unresolved to an OpenAI-compatible endpoint (OPENAI_BASE_URL/OPENAI_API_KEY).")
    language: Optional[str] = Field(None, description="en or zh (default: detected from the text).")
    encoding: Optional[str] = Field(None, description="Text encoding (default: detected), e.g. gb18030, big5.")
    min_confidence: Optional[float] = Field(None, ge=0.0, le=1.0, description=MIN_CONFIDENCE_HELP)
    llm_keep: LLMKeep = Field(LLMKeep.agree, description="Which of the LLM's speakers to keep (with --llm openai): "
                              "agree: only where the model names the rules' own held guess (measured with the 1.5B "
                              "local model, docs/llm.md); all: every speaker it names (a strong model).")

    @field_validator("language")
    @classmethod
    def _language(cls, v: Optional[str]) -> Optional[str]:
        return check_language(v)


def characters_for(configured: dict[str, Character], work: str, path: Path, text: str, language: str | None
                   ) -> tuple[list[Character], bool, list[Character]]:
    """Configured characters of this work, or (when none is) the cast discovered in the text; whether they
    were discovered; and the others who speak in the text and match none of the configured (`cast.others`:
    attributed too, so their words go to nobody configured). What the configuration leaves out is taken from the
    cast found in the text (`cast.others.complete_cast`: more names, the gender, the first-person narrator). A
    character configured for another work is never used: its names would match strangers."""
    from .cast.discover import discover_cast
    from .cast.others import complete_cast
    from .extract import detect_language

    mine = configured_for(configured, work, path)
    lang = language or detect_language(text)
    if mine:
        mine, others = complete_cast(mine, text, lang, work)
        return mine, False, others
    return [m.to_character(work, lang) for m in discover_cast(text, lang, by_lines=False)], True, []


def configured_for(configured: dict[str, Character], work: str, path: Path) -> list[Character]:
    """The characters configured for this work: linked to it in pipeline.yaml, or (older configs) their series is
    the work id, or their sources name it or the file."""
    return [c for c in configured.values()
            if work in c.works or c.series == work or work in c.sources
            or any(Path(s).name == path.name for s in c.sources)]


def completed_count(chars: list[Character], configured: dict[str, Character]) -> int:
    """How many of the configured characters `characters_for` completed from the text (aliases, gender, narrator)."""
    def facts(c: Character) -> tuple:
        return c.aliases, c.gender, c.narrator
    return sum(1 for c in chars if c.id in configured and facts(c) != facts(configured[c.id]))


def llm_kwargs(ctx: ExtractContext, work: str) -> dict:
    """Where the LLM pass caches answers and counts its calls, the work's few-shot examples if any, and the
    project's limits (`llm:`: the whole-request timeout, the requests in flight) when the pipeline gives them."""
    cache = Path(ctx.cache_dir or ".cache/rolecorpus")
    kw: dict = {"cache_dir": cache / "llm", "progress": ctx.progress}
    kw.update({k: v for k, v in (ctx.settings.get("llm") or {}).items() if k in ("timeout", "concurrency")})
    if ctx.metrics_dir is not None:
        kw["metrics_path"] = Path(ctx.metrics_dir) / f"llm_{work}.json"
    if ctx.configs_dir is not None and (Path(ctx.configs_dir) / "novel_examples" / f"{work}.yaml").exists():
        kw["examples_path"] = Path(ctx.configs_dir) / "novel_examples" / f"{work}.yaml"
    return kw


def novel_metrics(summary: dict, llm_metrics: Path | None) -> dict:
    """Quotation and attribution counts, and the LLM pass's counts (all zero when no LLM was used)."""
    llm = dict(NO_LLM_COUNTS)
    if llm_metrics is not None and llm_metrics.exists():
        llm.update(json.loads(llm_metrics.read_text(encoding="utf-8")))
    q = summary["quotes"]
    return {"quotes": q, "attributed": summary["attributed"],
            "coverage": round(summary["attributed"] / q, 4) if q else 0.0,
            "by_evidence": summary["by_evidence"], "least_confidence_kept": summary["least_kept"], "llm": llm}


class NovelExtractor:
    """Find every quotation of a novel, attribute its speaker (rules first, the LLM only for the rest)
    and write dialogue/narration line records. The characters are those configured for --work; when
    none is, the cast is discovered in the text (see `rolecorpus characters discover`)."""

    kind: ClassVar[str] = "novel"
    Options: ClassVar[type[NovelOptions]] = NovelOptions
    source_help: ClassVar[str] = "The novel as a plain-text file (UTF-8, GB18030/GBK, Big5 or UTF-16)."
    summary_to_stdout: ClassVar[bool] = True

    def extract(self, source: Path, work: str, ctx: ExtractContext) -> Iterator[Line]:
        from tqdm import tqdm

        from .extract import detect_language, extract_novel, read_novel, summarise

        opts: NovelOptions = ctx.options
        text = read_novel(source, opts.encoding)
        lang = opts.language or detect_language(text)  # once: the cast and the attribution both get it
        chars, discovered, others = characters_for(ctx.characters, work, source, text, lang)
        model = ctx.models.chat_model() if opts.llm is LLMChoice.openai else None
        kw = llm_kwargs(ctx, work) if model is not None else None
        bar = tqdm(desc="lines", unit="line", file=sys.stderr, disable=not (ctx.progress and sys.stderr.isatty()))
        lines = extract_novel(source, work, chars + others, language=lang, encoding=opts.encoding, llm=model,
                              llm_kwargs=kw, progress=lambda n: bar.update(n - bar.n), text=text,
                              min_confidence=opts.min_confidence, others={c.id for c in others},
                              llm_keep=opts.llm_keep.value)
        bar.close()
        ctx.metrics.update(novel_metrics(summarise(lines), (kw or {}).get("metrics_path")))
        self.cast = (len(chars), discovered, len(others), 0 if discovered else completed_count(chars, ctx.characters))
        self.configured = [c.id for c in chars]
        yield from lines

    def summary(self, lines: list[Line], output: Path, ctx: ExtractContext) -> str:
        m = ctx.metrics
        n_chars, discovered, n_others, completed = getattr(self, "cast", (0, False, 0, 0))
        ev = ", ".join(f"{k} {v}" for k, v in sorted(m["by_evidence"].items()))
        least = m.get("least_confidence_kept")
        kept = f", rule guesses kept from confidence {least:.2f}" if least is not None else ""
        return (f"{output}: {len(lines)} lines, {m['quotes']} quotations, {m['attributed']} attributed"
                f" ({ev or 'none'}{kept}); {n_chars} character(s) {'discovered in the text' if discovered else 'configured'}"
                + ("" if discovered else self._configured_note(lines, n_others, completed)))

    def _configured_note(self, lines: list[Line], n_others: int, completed: int) -> str:
        """What the summary adds about a configured cast: the others found, the characters completed from the text,
        and those that got no line (a misspelt name, most likely)."""
        note = f" (+{n_others} other speaker(s) found in the text, their lines named but not attributed)" \
            if n_others else ""
        note += f" ({completed} completed with names, gender or narrator found in the text)" if completed else ""
        silent = sorted(set(getattr(self, "configured", ())) - {ln.speaker for ln in lines})
        if silent:
            note += (f"; no line for {', '.join(silent[:5])}{' …' if len(silent) > 5 else ''}: none of their names "
                     "is found speaking (check the name and aliases)")
        return note

"""Character profiles (`rolecorpus profile ID`): facts counted from the character's own lines, prose drafted by an LLM.

Written to `configs/profiles/<id>.md` for a person to edit; the facts are counted here, never by the model. A
draft's marker holds the sha256 of its text: once a person edits it, `profile` keeps it unless `--force`.
Details: docs/training-and-eval.md."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from extractors.characters import AliasResolver, Character
from extractors.errors import InputError
from extractors.ids import check_id
from extractors.llm import parse_json
from extractors.records import Line

LANGUAGE_NAMES = {"en": "English", "zh": "Chinese (简体中文)"}
_EN_STOP = set("""a an the and or but if of to in on at by for with from as is are was were be been am do does did
have has had i me my mine you your yours thou thee thy he him his she her it its we us our they them their this that
these those so not no nor what which who whom will would shall should can could may might must than then there here
o oh ay sir""".split())
_ZH_PUNCT = re.compile(r"[\s，。！？；：、“”‘’「」『』（）《》…—,.!?;:()\"'\[\]-]+")
_EN_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
MARKER = re.compile(r"\A<!-- rolecorpus profile draft sha256=([0-9a-f]{64})[^\n]*-->\n")


@dataclass
class Facts:
    """What the corpus says about a character (all counts computed here)."""

    character: Character
    lines: int
    catchphrases: list[tuple[str, int]] = field(default_factory=list)
    interlocutors: list[tuple[str, int]] = field(default_factory=list)
    exchanges: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # name -> [(their line, reply)]
    samples: list[str] = field(default_factory=list)
    never_words: list[str] = field(default_factory=list)


def profile_path(configs: Path, cid: str) -> Path:
    return Path(configs) / "profiles" / f"{check_id(cid, 'character id')}.md"


def is_chinese(ch: Character) -> bool:
    return ch.language.startswith("zh")


# --- the character's lines and the lines they answer -----------------------------------------------------------

def replies(lines: list[Line], cid: str, max_gap: int = 3) -> list[tuple[Line, Line | None]]:
    """Each dialogue line of `cid` with the line it answers: the nearest earlier dialogue line of the same unit,
    at most `max_gap` lines back, when another attributed speaker said it; else None."""
    out: list[tuple[Line, Line | None]] = []
    for i, ln in enumerate(lines):
        if ln.kind != "dialogue" or ln.speaker != cid or not ln.text.strip():
            continue
        prompt = None
        for prev in reversed(lines[max(0, i - max_gap):i]):
            if (prev.work, prev.source, prev.unit) != (ln.work, ln.source, ln.unit):
                break
            if prev.kind == "dialogue":
                if prev.speaker and prev.speaker != cid:
                    prompt = prev
                break
        out.append((ln, prompt))
    return out


# --- catchphrases -----------------------------------------------------------------------------------------------

def _tokens(text: str, zh: bool) -> list[list[str]]:
    """Clauses of tokens: Chinese characters per clause, or the line's lowercased words."""
    if zh:
        return [list(c) for c in _ZH_PUNCT.split(text) if c]
    return [[w.lower() for w in _EN_WORD.findall(text)]]


def _candidate(gram: tuple[str, ...], zh: bool) -> bool:
    if zh:
        return len(gram) >= 3 or (len(gram) == 2 and len(set(gram)) == 2)
    content = [w for w in gram if w not in _EN_STOP]
    return bool(content) and (len(gram) >= 3 or len(content) == 2)


def count_phrase(phrase: str, texts: list[str], zh: bool) -> int:
    """How often `phrase` occurs in `texts`: as a substring (Chinese), or as a run of whole words, punctuation
    and case ignored (English). The count a profile reports."""
    if zh:
        return sum(t.count(phrase) for t in texts)
    pat = re.compile(r"(?<!\w)" + r"\W+".join(map(re.escape, phrase.split())) + r"(?!\w)", re.IGNORECASE)
    return sum(len(pat.findall(t)) for t in texts)


def catchphrases(texts: list[str], zh: bool, top: int = 12, min_count: int = 2) -> list[tuple[str, int]]:
    """The character's recurrent phrases with their counts, longest form first among those counted equally."""
    counts: Counter = Counter()
    span = range(2, 9) if zh else range(2, 7)
    for t in texts:
        for clause in _tokens(t, zh):
            for n in span:
                for i in range(len(clause) - n + 1):
                    counts[tuple(clause[i:i + n])] += 1
    ext: Counter = Counter()  # the highest count of a one-token-longer phrase holding each phrase
    for g, c in counts.items():
        if c >= min_count and len(g) > 2:
            for part in (g[1:], g[:-1]):
                ext[part] = max(ext[part], c)
    # drop a phrase a longer one holds as often (keep "i pray you", not "pray you")
    keep = [g for g, c in counts.items() if c >= min_count and _candidate(g, zh) and ext[g] < c]
    joined = {g: ("".join(g) if zh else " ".join(g)) for g in keep}
    keep.sort(key=lambda g: (-counts[g] * (len(g) ** 0.5), -len(g), joined[g]))
    chosen: list[str] = []
    for g in keep:
        if any(_contains(c, joined[g], zh) or _contains(joined[g], c, zh) for c in chosen):
            continue
        chosen.append(joined[g])
        if len(chosen) == top:
            break
    return [(p, count_phrase(p, texts, zh)) for p in chosen]


def _contains(longer: str, shorter: str, zh: bool) -> bool:
    return shorter in longer if zh else f" {shorter} " in f" {longer} "


# --- the facts --------------------------------------------------------------------------------------------------

def _display(resolver: AliasResolver, line: Line) -> str:
    name = line.name.title() if line.name and line.name.isupper() else line.name
    return resolver.display(line.speaker, fallback=name)


def _never_words(mine: list[str], others: list[str], zh: bool, top: int = 12) -> list[str]:
    """Words (Chinese: two-character runs) the other speakers use often and the character never does."""
    def grams(t: str) -> list[str]:
        if zh:
            return [c[i:i + 2] for c in _ZH_PUNCT.split(t) for i in range(len(c) - 1)]
        return [w.lower() for w in _EN_WORD.findall(t) if len(w) > 3 and w.lower() not in _EN_STOP]
    own = {g for t in mine for g in grams(t)}
    theirs = Counter(g for t in others for g in grams(t))
    return [g for g, c in theirs.most_common() if g not in own and c >= 3][:top]


def _samples(texts: list[str], phrases: list[str], zh: bool, n: int, limit: int = 300) -> list[str]:
    """The longest lines and those holding the most catchphrases, n in all, in corpus order."""
    longest = sorted(range(len(texts)), key=lambda i: (-len(texts[i]), i))[: n // 2]
    typical = sorted(range(len(texts)), key=lambda i: (-sum(count_phrase(p, [texts[i]], zh) for p in phrases), i))
    chosen = list(dict.fromkeys(longest + [i for i in typical if i not in longest]))[:n]
    return [texts[i] if len(texts[i]) <= limit else texts[i][:limit] + "…" for i in sorted(chosen)]


def compute_facts(ch: Character, lines: list[Line], resolver: AliasResolver, *, top_phrases: int = 12,
                  top_people: int = 6, samples: int = 10) -> Facts:
    """Every count a profile shows, from the lines of the character's works."""
    pairs = replies(lines, ch.id)
    if not pairs:
        raise InputError(f"character {ch.id!r} has no dialogue lines in its works' lines; nothing to profile")
    zh = is_chinese(ch)
    texts = [ln.text for ln, _ in pairs]
    people: Counter = Counter()
    examples: dict[str, list[tuple[str, str]]] = {}
    for ln, prompt in pairs:
        if prompt is not None:
            who = _display(resolver, prompt)
            people[who] += 1
            examples.setdefault(who, []).append((prompt.text[:200], ln.text[:200]))
    top = [(who, n) for who, n in people.most_common(top_people) if n >= 2]  # one answer is no relationship
    phrases = catchphrases(texts, zh, top=top_phrases)
    others = [ln.text for ln in lines if ln.kind == "dialogue" and ln.speaker and ln.speaker != ch.id]
    return Facts(character=ch, lines=len(texts), catchphrases=phrases, interlocutors=top,
                 exchanges={who: examples[who][:2] for who, _ in top},
                 samples=_samples(texts, [p for p, _ in phrases], zh, samples),
                 never_words=_never_words(texts, others, zh))


# --- prompt templates (shared with pipeline/emotions.py) --------------------------------------------------------

def load_templates(configs: Path, stage: str) -> tuple[Path, str, str]:
    """The (folder, system, user) templates `configs/prompts/<stage>.system.txt` and `<stage>.user.txt`."""
    folder = Path(configs) / "prompts"
    texts = []
    for part in ("system", "user"):
        path = folder / f"{stage}.{part}.txt"
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(f"no prompt template (the {stage} stage needs configs/prompts/{stage}.system.txt and "
                             f".user.txt; copy them from the rolecorpus repository)", path) from None
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", path) from None
    return folder, texts[0], texts[1]


def render(template: str, values: dict[str, object], path: Path | str) -> str:
    """`template` with each `{key}` of `values` filled in; JSON braces are left alone; an unknown `{key}` is an
    InputError naming the template file and the keys it may use."""
    unknown = sorted({k for k in _PLACEHOLDER.findall(template) if k not in values})
    if unknown:
        raise InputError(f"unknown placeholder {{{unknown[0]}}} (known: {', '.join(sorted(values))})", path)
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template)


def profile_messages(facts: Facts, configs: Path) -> list[dict]:
    folder, system, user = load_templates(configs, "profile")
    ch = facts.character
    q = "「{}」" if is_chinese(ch) else '"{}"'
    people = []
    for who, n in facts.interlocutors:
        people.append(f"- {who} ({n})")
        people += [f"    {who}: {q.format(a)}\n    {ch.name}: {q.format(b)}" for a, b in facts.exchanges.get(who, [])]
    values = {
        "name": ch.name, "series": ch.series or "the story", "language_name": LANGUAGE_NAMES.get(ch.language, ch.language),
        "line_count": facts.lines, "personality": ch.personality.strip() or "-",
        "catchphrases": "\n".join(f"- {q.format(p)}: {n}" for p, n in facts.catchphrases) or "-",
        "interlocutors": "\n".join(people) or "-",
        "sample_lines": "\n".join(f"- {q.format(t)}" for t in facts.samples),
        "never_words": ", ".join(facts.never_words) or "-",
    }
    return [{"role": "system", "content": render(system, values, folder / "profile.system.txt")},
            {"role": "user", "content": render(user, values, folder / "profile.user.txt")}]


def _prose(value: object, keys: bool = True) -> object:
    """A text field a small model answered as an object or a list (`"identity": {"role": ..., "situation": ...}`)
    as one line of prose: `role: ...; situation: ...`; a string as it is; anything else unchanged."""
    if isinstance(value, dict):
        parts = [f"{k}: {_prose(v)}" if keys and isinstance(k, str) else str(_prose(v)) for k, v in value.items()
                 if _prose(v)]
        return "; ".join(p.replace("_", " ") if keys else p for p in parts)
    if isinstance(value, list):
        return ", ".join(str(_prose(v)) for v in value if _prose(v))
    return value.strip() if isinstance(value, str) else value


def parse_profile(answer: str) -> dict | None:
    """The JSON object the profile prompt asks for, checked; None when the answer is not one. Near-JSON (in a
    fence, unquoted keys, trailing commas) is mended first (extractors.llm.parse_json), and prose fields answered
    as objects or lists are flattened into one line."""
    d = parse_json(answer, dict)
    if d is None:
        return None
    if len(d) == 1 and isinstance(next(iter(d.values())), dict) and "identity" not in d:
        d = next(iter(d.values()))  # the object wrapped under the character's name: {"Celia": {...}}
    d = dict(d, identity=_prose(d.get("identity")), speaking_style=_prose(d.get("speaking_style")))
    if isinstance(d.get("relationships"), dict):
        d["relationships"] = {k: _prose(v, keys=False) for k, v in d["relationships"].items()}
    ok = (isinstance(d.get("identity"), str) and d["identity"].strip() and isinstance(d.get("speaking_style"), str)
          and isinstance(d.get("relationships", {}), dict) and isinstance(d.get("never_says", []), list))
    return d if ok else None


# --- the profile file -------------------------------------------------------------------------------------------

_HEADINGS = {
    "en": ("# {name}: profile", "## Identity", "## Speaking style",
           "## Catchphrases (how often each occurs in {name}'s {n} lines)",
           "## Relationships (the people {name} answers most, and how many of their lines)",
           "## What {name} never says"),
    "zh": ("# {name}：人物小传", "## 身份", "## 说话风格", "## 口头禅（在{name}的{n}句台词中出现的次数）",
           "## 人物关系（{name}最常回应的人，及回应的台词数）", "## {name}从不说的话"),
}


def _relation(rel: dict, who: str) -> str:
    for k, v in rel.items():
        if isinstance(k, str) and k.strip().casefold() == who.casefold() and isinstance(v, str):
            return v.strip()
    return ""


def render_profile(facts: Facts, d: dict) -> str:
    """The Markdown profile: the LLM's prose around the counted facts, with the draft marker on top."""
    ch = facts.character
    zh = is_chinese(ch)
    h = [s.format(name=ch.name, n=facts.lines) for s in _HEADINGS["zh" if zh else "en"]]
    q = "「{}」" if zh else '"{}"'
    rel = d.get("relationships") or {}
    body = [h[0], "", h[1], "", d["identity"].strip(), "", h[2], "", (d.get("speaking_style") or "").strip(), "", h[3], ""]
    body += [f"- {q.format(p)}: {n}" for p, n in facts.catchphrases] or ["-"]
    body += ["", h[4], ""]
    body += [f"- **{who}** ({n}): {_relation(rel, who)}".rstrip(": ").rstrip() for who, n in facts.interlocutors] or ["-"]
    body += ["", h[5], ""]
    body += [f"- {str(x).strip()}" for x in d.get("never_says") or [] if str(x).strip()] or ["-"]
    text = "\n".join(body).rstrip() + "\n"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return (f"<!-- rolecorpus profile draft sha256={digest} (edit freely: once edited, `rolecorpus profile` keeps "
            f"this file unless --force) -->\n{text}")


def is_untouched_draft(text: str) -> bool:
    """True when `text` is a draft exactly as `profile` wrote it (marker present, text unchanged)."""
    m = MARKER.match(text)
    return bool(m) and hashlib.sha256(text[m.end():].encode("utf-8")).hexdigest() == m.group(1)


def read_profile(configs: Path, cid: str) -> str | None:
    """The profile text for the system prompt (HTML comments, the draft marker among them, removed), or None when
    `configs/profiles/<id>.md` does not exist or holds nothing."""
    path = profile_path(configs, cid)
    if not path.is_file():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", path) from None
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S).strip()
    return text or None


def draft_profile(client, facts: Facts, configs: Path) -> str:
    """Ask the LLM (any object with `complete(messages, variant=, json=)`) for the prose, in the server's JSON mode;
    a second, different sample when the first answer is not the JSON asked for even once mended; InputError after
    two."""
    messages = profile_messages(facts, configs)
    for variant in (0, 1):
        d = parse_profile(client.complete(messages, variant=variant, json=True))
        if d is not None:
            return render_profile(facts, d)
    raise InputError("the LLM answered twice without the JSON object the prompt asks for; nothing was written",
                     Path(configs) / "prompts" / "profile.user.txt")

"""Speaker cues of a stage play: which lines open a speech, in every layout `play.py` reads.

`_Cues(lines, resolver)` first reads the whole play for the layouts it uses (names alone on their line,
centred names, Folger's two spaces, abbreviations at a recurring indent, the cast list's names), then
`match(line)` returns (cue, words after it) or None. `_skip_range` finds the cast list to skip.
"""

from __future__ import annotations

import re
from collections import Counter

from ..characters import AliasResolver
from ..text import clean
from .play_structure import CAST_RE, DIRECTION_RE, _is_heading

TAB_CUE_RE = re.compile(r"^(?P<name>[^\s\t][^\t]*?)[ ]*\t+(?P<text>.*)$")
# `周朴园　（点着雪茄）鲁贵，…`: a short CJK name, an ideographic space, the speech (老舍/曹禺 layout)
ZH_SPACE_CUE_RE = re.compile(r"^(?P<name>[\u3400-\u9fff·]{1,6})\u3000+(?P<text>\S.*)$")
# a name in capitals; `MRS. ALVING`, `M. JOURDAIN`, `DR. RANK` keep their title's dot
_CAPS_NAME = (r"(?:(?:MRS?|MMES?|MME|MLLE|MESSRS|MONS|DR|ST|M)\. ?)?[A-ZÀ-ÖØ-Þ][A-ZÀ-ÖØ-Þ'’\-&]*"
              r"(?: (?:[A-ZÀ-ÖØ-Þ][A-ZÀ-ÖØ-Þ'’\-&]*|of|de|la|le|du|von|van))*")
# `HELMER. words`, `HELMER (calls out). words` (Ibsen), `MAURYA [softly]. words` (Synge),
# `NORA.--words`, `BERNARDO.` alone on its line
CAPS_DOT_RE = re.compile(
    rf"^ {{0,3}}(?P<name>{_CAPS_NAME})(?:\s*(?P<dir>\([^)]*\)|\[[^\]]*\])|,\s*(?P<qual>[a-zà-ÿ_(][^.]{{0,40}}?))?\s*\."
    r"(?:(?:\s*(?:--|—)\s*|\s+)(?P<text>\S.*)|\s*)$"
)
# Shaw: `THE DAUGHTER [in the space between the pillars, close to the one` (no dot; the bracket may wrap)
CAPS_BRACKET_RE = re.compile(rf"^ {{0,3}}(?P<name>{_CAPS_NAME}) (?P<text>\[.*)$")
# `BERNARDO` alone on its line, the speech below (MIT Shakespeare, many Moliere translations)
CAPS_ALONE_RE = re.compile(rf"^ {{0,4}}(?P<name>{_CAPS_NAME})\s*$")
# `                    HAMLET.` centred above the speech (many converted editions)
CAPS_DOT_CENTRED_RE = re.compile(rf"^ {{4,60}}(?P<name>{_CAPS_NAME})\.\s*$")
# Folger Shakespeare text: `BARNARDO  Who's there?` (two spaces, no dot), `BARNARDO ` alone with the speech
# below, no blank lines between speeches
CAPS_SPACES_RE = re.compile(rf"^(?P<name>{_CAPS_NAME}) {{2,}}(?P<text>\S.*)$")
MIXED_DOT_RE = re.compile(r"^ {0,3}(?P<name>[A-Z][a-z'’]{1,11}(?: [A-Z][a-z'’]{1,11})?)\.\s+(?P<text>\S.*)$")
# `Just (sitzet in einem Winkel, schlummert). Schurke...` (German editions): a known mixed-case name, a direction
MIXED_DIR_RE = re.compile(r"^ {0,3}(?P<name>[A-ZÀ-Þ][a-zà-ÿ'’]{1,11}(?: [A-ZÀ-Þ][a-zà-ÿ'’]{1,11})?)\s*(?P<dir>\([^)]*\)|\[[^\]]*\])\.\s+(?P<text>\S.*)$")
# `    MEDEA (_within_).` indented, a direction, alone on its line (Murray's Euripides)
CAPS_DIR_INDENTED_RE = re.compile(rf"^ {{4,12}}(?P<name>{_CAPS_NAME})\s*(?P<dir>\([^)]*\)|\[[^\]]*\])\s*\.\s*$")
# `Celia.` alone on its line, the speech below
MIXED_ALONE_RE = re.compile(r"^ {0,40}(?P<name>[A-Z][a-z'’]{1,11}(?: [A-Z][a-z'’]{1,11})?)\.\s*$")
_SCREEN_HEADING_RE = re.compile(r"^\s*(?:\d+[A-Z]?\.?\s+)?(?:INT|EXT|INT\./EXT|I/E)\.\s", re.MULTILINE)
# Words that begin sentences: never cues in their mixed-case `Word.` form.
_NOT_CUES = {
    "yes", "no", "well", "oh", "ay", "nay", "why", "what", "sir", "mr", "mrs", "dr", "st", "ms", "mme", "come",
    "good", "peace", "ha", "ah", "alas", "farewell", "here", "there", "true", "thanks", "madam", "adieu",
    "nothing", "enough", "look", "go", "now", "so", "then", "stay", "hark", "hold", "indeed", "away", "amen",
    "exit", "exeunt", "enter", "scene", "act", "finis", "end", "the", "sure", "never", "ever", "fie", "hence",
}

# Screenplay headings and title-page words are not speakers either.
_NOT_CAPS_CUES = {"SCENE", "ACT", "INT", "EXT", "EST", "INTERIOR", "EXTERIOR", "FADE IN", "FADE OUT", "THE END", "FINIS", "CONTENTS", "NOTE", "NOTES"}


def _valid_tab_name(name: str) -> bool:
    name = name.strip()
    if not name or len(name) > 40 or not name[0].isalpha():
        return False
    words = name.split()
    if len(words) > 5:
        return False
    # letters, spaces, apostrophes, dots, hyphens, ampersands, parentheses (e.g. "JAQUES (DE BOYS)")
    if re.search(r"[^\w\s'’.\-&()]", name) or re.search(r"\d", name):
        return False
    return not name.endswith((",", ";"))



_NOT_CAPS_FIRST = {"CHAPTER", "BOOK", "PART", "VOLUME", "PREFACE", "INTRODUCTION", "APPENDIX", "CONTENTS", "INDEX",
                   "FOOTNOTES", "TRANSCRIBER'S", "END", "THE END", "ACT", "SCENE", "EPILOGUE", "PROLOGUE"}


def _caps_name_ok(name: str, line: str) -> bool:
    return (sum(ch.isalpha() for ch in name) >= 2 and not _is_heading(line) and name not in _NOT_CAPS_CUES
            and name.split()[0] not in _NOT_CAPS_FIRST)



def cast_names(lines: list[str]) -> tuple[set[str], set[str]]:
    """Names listed under a DRAMATIS PERSONAE / Personen / The Names of the Actors heading: (the
    leading name of each entry, every capitalised word of the list, for abbreviations like `Fra.`)."""
    start = next((i for i, ln in enumerate(lines) if CAST_RE.match(ln)), None)
    if start is None:
        return set(), set()
    names: set[str] = set()
    words: set[str] = set()
    for ln in lines[start + 1 : start + 60]:
        s = ln.strip()
        if s and (_is_heading(ln) or s.startswith("[") or DIRECTION_RE.match(s)):
            break
        lead = re.split(r"[,.;:(\t]|--|—", s)[0].strip()
        if lead and lead[0].isupper() and len(lead.split()) <= 4:
            names.add(lead)
        words |= set(re.findall(r"\b[A-ZÀ-Þ][a-zà-ÿ'’]{2,}", s))
    return names, words


class _Cues:
    """Decide whether a line opens a speech; returns (cue, text after the cue) or None."""

    def __init__(self, lines: list[str], resolver: AliasResolver | None):
        self.resolver = resolver
        counts: Counter[str] = Counter()
        indents: Counter[str] = Counter()
        line_indents: list[tuple[str, int]] = []
        for ln in lines:
            m = MIXED_DOT_RE.match(ln) or MIXED_DIR_RE.match(ln)  # `Miller. words`, `Miller (zornig). words`
            if m and m.group("name").lower() not in _NOT_CUES:
                counts[m.group("name")] += 1
                indents[m.group("name")] = len(ln) - len(ln.lstrip(" "))
                line_indents.append((m.group("name"), indents[m.group("name")]))
        self.frequent_mixed = {n for n, c in counts.items() if c >= 3}
        self.cast, self.cast_words = cast_names(lines)
        # abbreviated-cue layout ("  Orl. words"): once known cues (recurring, or listed as
        # aliases) fill 3+ lines at one indent, rarer names at that indent are cues too
        # ("  Adam. Yonder comes..."); at indent 0 two distinct known cues are needed
        known = {n for n in counts if n in self.frequent_mixed or (resolver and resolver.resolve(n))}
        common = Counter()
        for n in known:
            common[indents[n]] += counts[n]
        self.cue_indent = None
        if common:
            indent, lines_at = common.most_common(1)[0]
            if lines_at >= 3 and (indent > 0 or sum(1 for n in known if indents[n] == indent) >= 2):
                self.cue_indent = indent
        # First Folio texts on Gutenberg indent cues by 2 or 3 spaces at random: every indent > 0
        # where known cues fill 3+ lines counts ("  Hor. Friends..." after "   Mar. ...")
        per_line = Counter(ind for n, ind in line_indents if n in known and ind > 0)
        self.cue_indents = {ind for ind, c in per_line.items() if c >= 3}
        # names alone on their line with the speech right below: `Celia.` or `BERNARDO` (no dot).
        # Accepted as a layout when such lines recur (3+), after a blank line and before words.
        mixed_alone: Counter[str] = Counter()
        caps_alone: Counter[str] = Counter()
        spaced = Counter(m.group("name") for m in (CAPS_SPACES_RE.match(ln) for ln in lines)
                         if m and _caps_name_ok(m.group("name"), ln))
        self.caps_spaces = set(spaced) if sum(spaced.values()) >= 3 and len(spaced) >= 2 else set()
        centred = Counter(m.group("name") for m in (CAPS_DOT_CENTRED_RE.match(ln) for ln in lines)
                          if m and _caps_name_ok(m.group("name"), ln))
        self.caps_centred = set(centred) if sum(centred.values()) >= 3 and len(centred) >= 2 else set()
        for i, ln in enumerate(lines):
            if not (0 < i + 1 < len(lines) and lines[i + 1].strip()
                    and (i == 0 or not lines[i - 1].strip() or self.caps_spaces)):
                continue
            m = MIXED_ALONE_RE.match(ln)
            if m and m.group("name").lower() not in _NOT_CUES:
                mixed_alone[m.group("name")] += 1
            m = CAPS_ALONE_RE.match(ln)
            if m and _caps_name_ok(m.group("name"), ln) and not CAPS_DOT_RE.match(lines[i + 1]):
                caps_alone[m.group("name")] += 1
        # `VALÈRE`, a blank line, then the speech (French editions): the same with a gap, when
        # 2+ names do it at least twice each, 4+ times in all
        caps_gap: Counter[str] = Counter()
        for i, ln in enumerate(lines[:-2]):
            if lines[i + 1].strip() or not lines[i + 2].strip() or (i > 0 and lines[i - 1].strip()):
                continue
            m = CAPS_ALONE_RE.match(ln)
            nxt = lines[i + 2].strip()
            if m and _caps_name_ok(m.group("name"), ln) and not nxt.isupper() and not _is_heading(nxt):
                caps_gap[m.group("name")] += 1
        gap_names = {n for n, c in caps_gap.items() if c >= 2}
        if len(gap_names) >= 2 and sum(caps_gap[n] for n in gap_names) >= 4:
            caps_alone.update(caps_gap)
        self.mixed_alone = set(mixed_alone) if sum(mixed_alone.values()) >= 3 else set()
        if resolver:
            self.mixed_alone |= {n for n in mixed_alone if resolver.resolve(n)}
        # a screenplay's cues are capitals alone on their line too: not read as a play's
        screenplay = len(_SCREEN_HEADING_RE.findall("\n".join(lines))) >= 1
        self.caps_alone = set(caps_alone) if sum(caps_alone.values()) >= 3 and len(caps_alone) >= 2 and not screenplay else set()
        zh = Counter(m.group("name") for m in (ZH_SPACE_CUE_RE.match(ln) for ln in lines) if m)
        self.zh_names = {n for n, c in zh.items() if c >= 2 or (resolver and resolver.resolve(n))}

    def match(self, line: str) -> tuple[str, str] | None:
        if "\t" in line:
            m = TAB_CUE_RE.match(line)
            if m and _valid_tab_name(m.group("name")):
                name = clean(m.group("name"))
                if name.endswith(".") and name[:-1].isupper() and sum(ch.isalpha() for ch in name) >= 2:
                    name = name[:-1]  # `STRANGER.<TAB>words`: the dot of `NAME.` before a TAB
                return name, m.group("text")
        if "\u3000" in line:
            m = ZH_SPACE_CUE_RE.match(line)
            if m and m.group("name") in self.zh_names:
                return m.group("name"), m.group("text")
        m = CAPS_DOT_RE.match(line)
        if m and _caps_name_ok(m.group("name"), line):
            text = m.group("text") or ""
            if m.group("dir"):  # `HELMER (calls out). Is that...`: the direction, then the words
                text = f"[{m.group('dir')[1:-1]}] {text}"
            elif m.group("qual"):  # `LA FLÈCHE, à part.--words` (French/Spanish editions)
                text = f"[{m.group('qual').strip('()')}] {text}"
            return clean(m.group("name")), text
        m = CAPS_DIR_INDENTED_RE.match(line)
        if m and _caps_name_ok(m.group("name"), line):
            return clean(m.group("name")), f"[{m.group('dir')[1:-1]}] "
        m = CAPS_BRACKET_RE.match(line)
        if m and _caps_name_ok(m.group("name"), line):
            return clean(m.group("name")), m.group("text")
        if self.caps_centred:
            m = CAPS_DOT_CENTRED_RE.match(line)
            if m and m.group("name") in self.caps_centred:
                return m.group("name"), ""
        if self.caps_spaces:
            m = CAPS_SPACES_RE.match(line)
            if m and m.group("name") in self.caps_spaces:
                return m.group("name"), m.group("text")
        if self.caps_alone:
            m = CAPS_ALONE_RE.match(line)
            if m and m.group("name") in self.caps_alone:
                return m.group("name"), ""
        if self.mixed_alone:
            m = MIXED_ALONE_RE.match(line)
            if m and m.group("name") in self.mixed_alone:
                return m.group("name"), ""
        m = MIXED_DOT_RE.match(line)
        if m and m.group("name").lower() not in _NOT_CUES:
            name = m.group("name")
            indent = len(line) - len(line.lstrip(" "))
            if (
                name in self.frequent_mixed
                or (self.cue_indent is not None and indent == self.cue_indent)
                or indent in self.cue_indents
                or (self.resolver and self.resolver.resolve(name))
                or self.in_cast(name)
            ):
                return name, m.group("text") or ""
        m = MIXED_DIR_RE.match(line)
        if m and m.group("name").lower() not in _NOT_CUES and (
                m.group("name") in self.frequent_mixed or self.in_cast(m.group("name"))
                or (self.resolver and self.resolver.resolve(m.group("name")))):
            return m.group("name"), f"[{m.group('dir')[1:-1]}] {m.group('text')}"
        return None

    def is_name_list(self, s: str) -> bool:
        """`Der Wirt. Just.` / `VALÈRE, ÉLISE.` under a scene heading: who is on stage, not a speech."""
        parts = [p.strip() for p in re.split(r"[,.;]|\s+(?:und|et|y|and|e)\s+", s.strip().strip("_")) if p.strip()]
        return len(parts) >= 2 and all(
            p in self.cast or p in self.frequent_mixed or re.fullmatch(_CAPS_NAME, p) or self.in_cast(p) for p in parts)

    def in_cast(self, name: str) -> bool:
        """`Just` listed in the Personen; `Fra`/`Hor` abbreviating a listed `Francisco`/`Horatio`."""
        if name in self.cast:
            return True
        return len(name) >= 3 and " " not in name and any(w.startswith(name) and w != name for w in self.cast_words)


def _skip_range(lines: list[str], cues: _Cues) -> tuple[int, int]:
    """The [start, end) range of a cast list to skip, or (0, 0)."""
    for i, ln in enumerate(lines):
        if CAST_RE.match(ln):
            for j in range(i + 1, len(lines)):
                if _is_heading(lines[j]):
                    return (i, j)
            for j in range(i + 1, len(lines)):
                s = lines[j].strip()
                if s.startswith("[") or (DIRECTION_RE.match(s) and not cues.match(lines[j])):
                    return (i, j)
            return (0, 0)
    return (0, 0)

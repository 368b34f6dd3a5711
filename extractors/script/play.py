"""Stage plays: `NAME<TAB>words` or `NAME. words` cues, indented continuation lines, `[...]` directions.

Layouts understood (all in one parser, line by line):

- `ROSALIND<TAB>Words...` with TAB-indented continuation lines (the brotli `asyoulik.txt`);
- `ROSALIND. Words...` at line start (up to 3 spaces of indent), continuation lines below it
  (indented or not, until a blank line); `ROSALIND.` alone on its line with the speech below
  (Project Gutenberg's current layout); mixed-case abbreviations such as `Ros. words` count
  as cues when the alias resolver knows them or when they recur at least 3 times in the file;
- a direction between name and words: `HELMER (calls out). Words` (Ibsen), `NORA [softly]. Words`
  and `NORA.--Words` (Synge), `THE DAUGHTER [in the space between the pillars,` wrapping over
  lines, no dot (Shaw); titled names keep their dot (`MRS. ALVING.`); accented capitals (VALÈRE);
- names alone on their line when the layout recurs (3+ lines): `Celia.`, `BERNARDO` (no dot, MIT
  / Molière translations), `                GOD.` centred; Folger's `BARNARDO  Words` (two spaces);
- Chinese 话剧 `周朴园　（点着雪茄）台词` (ideographic space), 第N幕/第N场 headings, ideographic-
  indented paragraphs as directions; markdown plays (`### ACT I`, `**NAME**`, `> words`);
- in layouts whose cues carry the words (`NAME. words`), a flush-left paragraph after a blank
  line without a cue is a direction (Shaw's unbracketed ones), not more of the last speech;
- `(Capitalised direction.)` inside a speech after a sentence end is cut out like `[...]`;
  Shakespeare's `(as I remember)` stays in the words; a right-aligned `Exit.` after a speech
  line is an action line; a bare `Exit` (like `Exeunt`) clears the last speaker;
- headings `ACT I`, `FIRST ACT`, `SCENE II<TAB>place` / `SCENE II. place`, a bare `SCENE`, `SCENE.--place`,
  `PROLOGUE`, `EPILOGUE` set the unit ("ACT I SCENE II"); a scene's place (on the heading, or the
  line or paragraph below it) becomes a `narration` line once the scene has lines;
- `[Enter ORLANDO and ADAM]` on its own (possibly over several lines), Gutenberg's `[_Exit._]`,
  stand-alone `(parentheticals)` and paragraphs opening with Enter/Exit/Exeunt/Flourish... are
  `action` lines; directions inside a speech (`[Aside]`) are cut out of the words and emitted as
  `action` lines at their place (the speech is split around them);
- after a direction, indented (or, in cue-alone layouts, plain) lines continue the last speaker
  in a new dialogue line; `[Exeunt]` and headings clear the last speaker;
- other languages: `ACTE PREMIER`/`SCÈNE III`, `ERSTER AUFZUG`/`Zweiter Auftritt`/`Erste Szene`,
  `JORNADA PRIMERA`/`ESCENA II`, `ATTO PRIMO`/`SCENA PRIMA`, Folio `Actus Primus. Scoena Prima.`; qualifier
  cues `LA FLÈCHE, à part.--words`; a persons-on-stage line under a heading (`Der Wirt. Just.`) is narration;
  mixed-case cues from the cast list (`Just. words`, `Fra.` for a listed Francisco) or with a direction
  (`Miller (zornig). words`); Folio cues at any recurring indent; `VALÈRE`, a blank line, the speech;
- verse line numbers at the right edge are dropped; a right-aligned `_Strophe._` is an action;
- a DRAMATIS PERSONAE (or "Persons represented", "Characters", "Cast", PERSONNAGES, Personen,
  PERSONAS, "The Names of the Actors") list is skipped up to the
  first ACT/SCENE heading, or the first stage direction when the play has no headings; the
  title (the file's first line) repeated before each act is ignored.
"""

from __future__ import annotations

import re
from collections import Counter

from ..characters import AliasResolver
from .base import Emitter, ParseResult, clean, join_lines

_NUM = r"(?:[IVXLC]+|[ivxlc]+|\d+|ONE|TWO|THREE|FOUR|FIVE|SIX|SEVEN|EIGHT|NINE|TEN|FIRST|SECOND|THIRD|FOURTH|FIFTH|One|Two|Three|Four|Five|First|Second|Third|Fourth|Fifth)"
ACT_RE = re.compile(rf"^\s*(?:ACT|Act)\s+(?P<n>{_NUM})\b\.?\s*(?:[-–—:.]+\s*)?(?P<rest>.*)$")
SCENE_RE = re.compile(rf"^\s*(?:SCENE|Scene)\s+(?P<n>{_NUM})\b\.?\s*(?:[-–—:]+\s*)?(?P<place>.*)$")
# `SCENE.--Quarter-deck of H.M.S. Pinafore` (Gilbert), `SCENE. An Island off the West of Ireland.` (Synge)
SCENE_PLACE_RE = re.compile(r"^\s*(?:THE\s+)?(?:SCENE|Scene)\s*(?:\.\s*(?:--|—)?|--|—|:)\s*(?P<place>\S.*)$")
ORD_ACT_RE = re.compile(r"^\s*(?P<n>FIRST|SECOND|THIRD|FOURTH|FIFTH|First|Second|Third|Fourth|Fifth)\s+(?:ACT|Act)\.?\s*$")
BARE_SCENE_RE = re.compile(r"^\s*(?:THE\s+)?(?:SCENE|Scene)\s*[.:]?\s*$")
PART_RE = re.compile(r"^\s*(?P<n>PROLOGUE|EPILOGUE|INDUCTION|Prologue|Epilogue|Induction)\.?\s*$")
CAST_RE = re.compile(
    r"^\s*(?:dramatis\s+person(?:ae|æ|\u00e6)|persons\s+represented|(?:the\s+)?persons\s+of\s+the\s+play|"
    r"persons\s+in\s+the\s+play|(?:list\s+of\s+)?characters(?:\s+in\s+the\s+play)?|cast(?:\s+of\s+characters)?|the\s+persons|人物表?|登场人物|"
    r"(?:the\s+)?names\s+of\s+the\s+actors|personnages|les\s+personnages|personen|die\s+personen|personas|personajes|"
    r"interlocutores|personaggi|interlocutori|dramatis\s+personæ)"
    r"\s*[.:：]?\s*$",
    re.IGNORECASE,
)
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
# markdown plays: `### ACT I`, `**BERNARDO**`, `> Who's there?`, `_Enter HORATIO_`
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_MD_QUOTE = re.compile(r"^\s{0,3}>\s?")
_MD_BOLD = re.compile(r"\*\*|__(?=\S)|(?<=\S)__")
_RULE = re.compile(r"^\s*(?:={3,}|-{3,}|\*{3,}|_{3,})\s*$")
MIXED_DOT_RE = re.compile(r"^ {0,3}(?P<name>[A-Z][a-z'’]{1,11}(?: [A-Z][a-z'’]{1,11})?)\.\s+(?P<text>\S.*)$")
# `Just (sitzet in einem Winkel, schlummert). Schurke...` (German editions): a known mixed-case name, a direction
MIXED_DIR_RE = re.compile(r"^ {0,3}(?P<name>[A-ZÀ-Þ][a-zà-ÿ'’]{1,11}(?: [A-ZÀ-Þ][a-zà-ÿ'’]{1,11})?)\s*(?P<dir>\([^)]*\)|\[[^\]]*\])\.\s+(?P<text>\S.*)$")
# verse line numbers in the right margin (Murray, Jebb): `       The axe-wound, nor the heroes in her red          5`
VERSE_NUMBER_RE = re.compile(r"(?<=\S)\s{6,}\d{1,4}\s*$")
# `    MEDEA (_within_).` indented, a direction, alone on its line (Murray's Euripides)
CAPS_DIR_INDENTED_RE = re.compile(rf"^ {{4,12}}(?P<name>{_CAPS_NAME})\s*(?P<dir>\([^)]*\)|\[[^\]]*\])\s*\.\s*$")
# `Celia.` alone on its line, the speech below
MIXED_ALONE_RE = re.compile(r"^ {0,40}(?P<name>[A-Z][a-z'’]{1,11}(?: [A-Z][a-z'’]{1,11})?)\.\s*$")
INLINE_DIR_RE = re.compile(r"\[[^\]]*\]|（[^）]*）|\([^)]*\)")
# right-aligned exits after a speech line: "Give you good night.                  Exit."
TRAILING_EXIT_RE = re.compile(
    r"^(?P<head>.*\S)\s{6,}(?P<dir>_?(?:Exit|Exeunt|Exit\s+\w+|Dies|Dying|Falls|Sleeps|Kneels|Sings|Manet|Manent|"
    r"Strophe|Antistrophe|Epode|Mesode)\b[^\[\]]{0,60})$"
)
_SCREEN_HEADING_RE = re.compile(r"^\s*(?:\d+[A-Z]?\.?\s+)?(?:INT|EXT|INT\./EXT|I/E)\.\s", re.MULTILINE)
_SENTENCE_END = tuple(".!?;:—-…。！？")
# `Exeunt ...`, or a bare `Exit.` (the speaker leaves): the next plain line is not theirs
_CLEARS_SPEAKER = re.compile(r"^\W*(?:Exeunt\b|Exit\W*$)")
DIRECTION_RE = re.compile(
    r"^\s*_?\s*(?:Enter|Re-enter|Reenter|Exit|Exeunt|Manet|Manent|Flourish|Sennet|Alarum|Alarums|Trumpets?|"
    r"Music|Thunder|Hautboys|Horns?|Noise|Dies|Dance|Retreat|Excursions|Strophe|Antistrophe|Epode|Mesode)\b"
)
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


# French / German / Spanish / Italian / Latin (First Folio) headings: `ACTE PREMIER`, `SCÈNE III`, `ERSTER AUFZUG`,
# `Zweiter Auftritt`, `JORNADA PRIMERA`, `ESCENA II`, `Actus Primus. Scoena Prima.`
_F_ORD = (r"(?:[IVXLC]+|\d+|premi[eè]re?|deuxi[eè]me|seconde?|troisi[eè]me|quatri[eè]me|cinqui[eè]me|sixi[eè]me|"
          r"septi[eè]me|huiti[eè]me|neuvi[eè]me|dixi[eè]me|derni[eè]re|unique|primer[oa]|segund[oa]|tercer[oa]|cuart[oa]|"
          r"quint[oa]|sext[oa]|[uú]ltim[oa]|[uú]nic[oa]|primo|secondo|terzo|quarto|primus|secundus|tertius|quartus|quintus|"
          r"prima|secunda|tertia|erste[rs]?|zweite[rs]?|dritte[rs]?|vierte[rs]?|f[uü]nfte[rs]?|sechste[rs]?|siebe?n?te[rs]?|"
          r"achte[rs]?|neunte[rs]?|zehnte[rs]?|elfte[rs]?|zw[oö]lfte[rs]?|\w+zehnte[rs]?|letzte[rs]?)")
_F_ACT = r"(?:acte|acto|atto|akt|aufzug|jornada|actus|handlung)"
_F_SCENE = r"(?:sc[eè]ne|escena|scena|szene|auftritt|scoena|sc[æa]ena|cuadro)"
_F_PART = rf"(?:(?P<{{k}}kw>{{kw}})\s+(?P<{{k}}n>{_F_ORD})|(?P<{{k}}n2>{_F_ORD})\s+(?P<{{k}}kw2>{{kw}}))"
FOREIGN_HEADING_RE = re.compile(
    rf"^\s*(?:{_F_PART.format(k='a', kw=_F_ACT)}\.?\s*(?:[-–—,.:]+\s*)?)?"
    rf"(?:{_F_PART.format(k='s', kw=_F_SCENE)}\.?)?(?P<rest>\s*(?:[-–—:.]+|$).*)$",
    re.IGNORECASE,
)


def foreign_heading(s: str) -> tuple[str | None, str | None, str] | None:
    """(act, scene, rest) for a non-English act/scene heading, else None."""
    m = FOREIGN_HEADING_RE.match(s)
    if not m or not (m.group("akw") or m.group("akw2") or m.group("skw") or m.group("skw2")):
        return None
    rest = clean(m.group("rest").lstrip(" -–—:."))
    if len(rest) > 80 or (rest and not (s.strip().isupper() or re.match(r"^\s*[-–—:.]", m.group("rest")))):
        return None  # `Scene prima of the comedy is ...`: a sentence
    act = clean(s[m.start("akw") if m.group("akw") else m.start("an2"):m.end("an") if m.group("akw") else m.end("akw2")]) \
        if (m.group("akw") or m.group("akw2")) else None
    scene = clean(s[m.start("skw") if m.group("skw") else m.start("sn2"):m.end("sn") if m.group("skw") else m.end("skw2")]) \
        if (m.group("skw") or m.group("skw2")) else None
    return (act.upper() if act else None, scene.upper() if scene else None, rest)


ZH_HEADING_RE = re.compile(r"^\s*(?P<n>第[一二三四五六七八九十百零〇\d]+)(?P<kind>[幕场場])\s*(?P<rest>.*)$")


def _is_heading(s: str) -> bool:
    return (bool(ACT_RE.match(s) and len(ACT_RE.match(s).group("rest")) < 80) or bool(SCENE_RE.match(s))
            or bool(PART_RE.match(s)) or bool(ORD_ACT_RE.match(s)) or bool(BARE_SCENE_RE.match(s))
            or bool("\t" not in s and SCENE_PLACE_RE.match(s))
            or bool(ZH_HEADING_RE.match(s) and len(ZH_HEADING_RE.match(s).group("rest")) < 40)
            or foreign_heading(s) is not None)


_NOT_CAPS_FIRST = {"CHAPTER", "BOOK", "PART", "VOLUME", "PREFACE", "INTRODUCTION", "APPENDIX", "CONTENTS", "INDEX",
                   "FOOTNOTES", "TRANSCRIBER'S", "END", "THE END", "ACT", "SCENE", "EPILOGUE", "PROLOGUE"}


def _caps_name_ok(name: str, line: str) -> bool:
    return (sum(ch.isalpha() for ch in name) >= 2 and not _is_heading(line) and name not in _NOT_CAPS_CUES
            and name.split()[0] not in _NOT_CAPS_FIRST)


def _unmarkdown(lines: list[str]) -> list[str]:
    """A play written in markdown (3+ heading/quote/bold lines) read as plain text: marks removed."""
    marked = sum(1 for ln in lines if _MD_HEADING.match(ln) or _MD_QUOTE.match(ln) or ln.lstrip().startswith("**"))
    if marked < 3:
        return lines
    out: list[str] = []
    for i, ln in enumerate(lines):
        if not ln.strip() and i > 0 and re.fullmatch(r"\s*\*\*[^*]+\*\*\s*", lines[i - 1]):
            continue  # `**BERNARDO**`, a blank line, then the speech: keep the cue on the speech
        out.append(_MD_BOLD.sub("", _MD_QUOTE.sub("", _MD_HEADING.sub("", ln))).rstrip())
    return out


def _paren_is_direction(speech: str, m: re.Match) -> bool:
    """Ibsen's `(Puts the bag into her pocket.)` is a direction; Shakespeare's `(as I remember)` is not:
    a direction starts with a capital and opens the speech or follows a sentence end."""
    inner = m.group(0)[1:-1].strip().strip("_")
    before = speech[: m.start()].rstrip()
    return bool(inner) and inner[0].isupper() and (not before or before.endswith(_SENTENCE_END))


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


class _PlayParser:
    def __init__(self, text: str, resolver: AliasResolver | None):
        self.lines = []
        for ln in _unmarkdown(text.split("\n")):
            if _RULE.match(ln):
                continue  # `=====` under a heading, `---` separators
            if "      " in ln:
                ln = VERSE_NUMBER_RE.sub("", ln)
            m = TRAILING_EXIT_RE.match(ln) if "      " in ln else None
            if m and m.group("head").strip() and re.match(r"_?(?:Strophe|Antistrophe|Epode|Mesode)", m.group("dir")):
                # `CHORUS.            _Strophe._`: a heading of the song, the cue keeps its verse below
                self.lines += [m.group("head"), " " * 40 + "[" + m.group("dir").strip() + "]"]
            elif m and m.group("head").strip():
                self.lines += [m.group("head"), " " * 40 + m.group("dir").strip()]
            else:
                self.lines.append(ln)
        self.cues = _Cues(self.lines, resolver)
        self.out = Emitter("play", unit="1")
        self.act: str | None = None
        self.scene: str | None = None
        self.pending_place: str | None = None
        self.speaker: str | None = None
        self.speech: list[str] = []
        self.in_speech = False  # the previous non-blank line belonged to a speech (no blank since)
        self.seen_structure = False
        # inline-cue layout (`THE MOTHER. words` on the cue's line): a flush-left paragraph after a
        # blank line that has no cue is a stage direction (Shaw: "Freddy rushes in out of the rain...")
        cue_texts = [bool(m[1].strip()) for m in (self.cues.match(ln) for ln in self.lines) if m]
        self.inline = len(cue_texts) >= 3 and sum(cue_texts) >= 0.8 * len(cue_texts)
        self.prev_blank = True
        self.awaiting_words = False
        self.manner = False  # the last line was a short `(Haut.)` direction inside someone's speech
        first = next((ln for ln in self.lines if ln.strip()), "")
        self.title = "" if (_is_heading(first) or self.cues.match(first)) else clean(first)
        self.after_heading = False  # the previous line was a heading without a place

    # -- emitting -------------------------------------------------------------------------
    def _place(self) -> None:
        if self.pending_place:
            place = self.pending_place.strip()
            if place[:1] in "([" and place[-1:] in ")]":
                place = place[1:-1]  # "(SCENE.--A room furnished comfortably...)"
            if len(place) > 2 and place[0] == "_" and place[-1] == "_":
                place = place[1:-1]  # `_Sale en lo alto de un monte ROSAURA..._` (Gutenberg italics)
            m = SCENE_PLACE_RE.match(place)
            self.out.narrate(m.group("place") if m else place)
            self.pending_place = None

    def flush(self) -> None:
        if self.speaker is None or not self.speech:
            self.speech = []
            return
        joined = join_lines(self.speech)
        self.speech = []
        pos = 0
        for m in INLINE_DIR_RE.finditer(joined):
            if m.group(0)[0] == "(" and not _paren_is_direction(joined, m):
                continue
            self._say(joined[pos : m.start()])
            self._act(m.group(0)[1:-1])
            pos = m.end()
        self._say(joined[pos:])

    def _say(self, text: str) -> None:
        if clean(text):
            self._place()
            self.out.say(self.speaker, text)

    def _act(self, text: str) -> None:
        if clean(text.replace("_", " ")):
            self._place()
            self.out.act(text)

    def set_unit(self) -> None:
        parts = [p for p in (self.act, self.scene) if p]
        self.out.unit = " ".join(parts) if parts else "1"

    # -- the walk -------------------------------------------------------------------------
    def run(self) -> ParseResult:
        skip_from, skip_to = _skip_range(self.lines, self.cues)
        i, n = 0, len(self.lines)
        while i < n:
            if skip_from <= i < skip_to:
                i = skip_to
                continue
            raw = self.lines[i]
            s = raw.strip()
            i += 1
            after_blank, self.prev_blank = self.prev_blank, not s
            if not s:
                self.in_speech = False  # a heading's place may follow after a blank line
                continue
            if self.after_heading:
                self.after_heading = False
                if self.cues.is_name_list(s):
                    self.pending_place = s  # `Der Wirt. Just.`: the persons of the scene
                    continue
                if not self.cues.match(raw) and not _is_heading(raw) and not s.startswith("[") and not DIRECTION_RE.match(s):
                    # "ACT I. SCENE I." then the place (a line or a paragraph) below it
                    buf = [s]
                    while i < n and self.lines[i].strip() and not self.cues.match(self.lines[i]) \
                            and not _is_heading(self.lines[i]) and not self.lines[i].strip().startswith("["):
                        buf.append(self.lines[i].strip())
                        i += 1
                    self.pending_place = " ".join(buf)
                    continue
            if s == self.title and self.title and self.title.upper() == self.title:
                continue  # the title repeated before each act
            # headings
            m = ACT_RE.match(raw)
            if m and len(m.group("rest")) < 80:
                self.flush()
                self.act, self.scene, self.speaker, self.pending_place = f"ACT {m.group('n').upper()}", None, None, None
                rest = m.group("rest")
                sm = SCENE_RE.match(rest) if rest else None
                if sm:
                    self.scene = f"SCENE {sm.group('n').upper()}"
                    self.pending_place = clean(sm.group("place")) or None
                self.set_unit()
                self.seen_structure, self.in_speech = True, False
                self.after_heading = self.pending_place is None
                continue
            m = SCENE_RE.match(raw)
            if m:
                self.flush()
                self.scene, self.speaker = f"SCENE {m.group('n').upper()}", None
                self.pending_place = clean(m.group("place")) or None
                self.set_unit()
                self.seen_structure, self.in_speech = True, False
                self.after_heading = self.pending_place is None
                continue
            m = ORD_ACT_RE.match(raw)
            if m:
                self.flush()
                self.act, self.scene, self.speaker, self.pending_place = f"ACT {m.group('n').upper()}", None, None, None
                self.set_unit()
                self.seen_structure, self.in_speech, self.after_heading = True, False, True
                continue
            m = SCENE_PLACE_RE.match(raw) if "\t" not in raw else None
            if m:
                self.flush()
                self.speaker, self.seen_structure, self.in_speech = None, True, False
                buf = [m.group("place")]  # the place may wrap over several lines
                while i < n and self.lines[i].strip() and not self.cues.match(self.lines[i]) \
                        and not _is_heading(self.lines[i]) and not self.lines[i].strip().startswith("["):
                    buf.append(self.lines[i].strip())
                    i += 1
                self.pending_place = clean(" ".join(buf))
                continue
            m = ZH_HEADING_RE.match(raw)
            if m and len(m.group("rest")) < 40:
                self.flush()
                if m.group("kind") == "幕":
                    self.act, self.scene = m.group("n") + "幕", None
                else:
                    self.scene = m.group("n") + m.group("kind")
                self.out.unit = " ".join(p for p in (self.act, self.scene) if p)
                self.speaker, self.pending_place = None, clean(m.group("rest")) or None
                self.seen_structure, self.in_speech = True, False
                self.after_heading = self.pending_place is None
                continue
            fh = foreign_heading(raw)
            if fh:
                self.flush()
                f_act, f_scene, rest = fh
                if f_act:
                    self.act, self.scene = f_act, None
                if f_scene:
                    self.scene = f_scene
                self.set_unit()
                self.speaker, self.pending_place = None, rest or None
                self.seen_structure, self.in_speech = True, False
                self.after_heading = self.pending_place is None
                continue
            if BARE_SCENE_RE.match(raw):
                self.flush()
                self.speaker, self.pending_place = None, None
                self.seen_structure, self.in_speech, self.after_heading = True, False, True
                continue
            m = PART_RE.match(raw)
            if m:
                self.flush()
                self.act, self.scene, self.speaker, self.pending_place = m.group("n").upper(), None, None, None
                self.set_unit()
                self.seen_structure, self.in_speech = True, False
                self.after_heading = self.pending_place is None
                continue
            # stand-alone stage directions
            if s.startswith("["):
                self.flush()
                buf = s
                while "]" not in buf and i < n and self.lines[i].strip():
                    buf += " " + self.lines[i].strip()
                    i += 1
                close = buf.find("]")
                direction, rest = (buf[1:close], buf[close + 1 :]) if close >= 0 else (buf[1:], "")
                self._act(direction)
                if _CLEARS_SPEAKER.match(direction.replace("_", "")):
                    self.speaker = None
                self.seen_structure = True
                if clean(rest) and self.speaker:
                    self.speech.append(rest)
                    self.in_speech = True
                else:
                    self.in_speech = False
                continue
            if s.startswith("(") and s.endswith(")") and not self.in_speech:
                self.flush()
                self._act(s[1:-1])
                # `(Haut.)` / `(Aparte.)` between two paragraphs of one speech: the next one is still words
                self.manner = self.speaker is not None and len(s.split()) <= 3
                continue
            cue = self.cues.match(raw)
            if cue:
                self.flush()
                self.speaker = cue[0]
                self.speech = [cue[1]] if cue[1].strip() else []
                self.awaiting_words = not self.speech  # `CHORUS.` then a blank line, then the song
                self.out.result.cue_lines += 1
                self.out.result.covered_chars += len(cue[0])
                self.in_speech = self.seen_structure = True
                continue
            if raw.startswith("\u3000") and self.cues.zh_names:
                # `　　一位先生进门。`: an indented paragraph between speeches is a direction
                self.flush()
                self._act(s)
                self.seen_structure, self.in_speech = True, False
                continue
            indent = len(raw) - len(raw.lstrip(" "))
            short_direction = DIRECTION_RE.match(s) and (indent >= 12 or (len(s.split()) <= 4 and s[-1:] in ".]_" ))
            if short_direction or (not self.in_speech and (DIRECTION_RE.match(s) or (s.startswith("_") and s.endswith("_")))):
                # a direction paragraph: Enter ..., Exit ..., possibly over several lines
                self.flush()
                buf = [s]
                while i < n and self.lines[i].strip() and not self.cues.match(self.lines[i]) and not _is_heading(self.lines[i]):
                    buf.append(self.lines[i].strip())
                    i += 1
                direction = " ".join(buf)
                self._act(direction)
                if _CLEARS_SPEAKER.match(direction.replace("_", "")):
                    self.speaker = None
                self.seen_structure, self.in_speech = True, False
                continue
            manner, self.manner = self.manner, False
            if self.inline and after_blank and raw[:1].strip() and self.speaker is not None and self.seen_structure \
                    and not self.awaiting_words and not manner:
                self.flush()
                buf = [s]
                while i < n and self.lines[i].strip() and not self.cues.match(self.lines[i]) and not _is_heading(self.lines[i]):
                    buf.append(self.lines[i].strip())
                    i += 1
                self._act(" ".join(buf))
                self.in_speech = False
                continue
            # words: a continuation of the current speech, or of the last speaker after a direction
            self.awaiting_words = False
            if self.speaker is not None:
                self.speech.append(s)
                self.in_speech = True
            elif self.seen_structure:
                # unattributed text inside the play: a direction paragraph
                buf = [s]
                while i < n and self.lines[i].strip() and not self.cues.match(self.lines[i]) \
                        and not _is_heading(self.lines[i]) and not self.lines[i].strip().startswith(("[", "(")):
                    buf.append(self.lines[i].strip())
                    i += 1
                self._act(" ".join(buf))
        self.flush()
        return self.out.result


def parse_play(text: str, resolver: AliasResolver | None = None) -> ParseResult:
    """Parse a stage play; see the module docstring for the layouts understood."""
    return _PlayParser(text, resolver).run()

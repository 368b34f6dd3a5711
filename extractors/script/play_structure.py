"""The structure of a stage play: act/scene headings (English, French, German, Spanish, Italian, Latin,
Chinese), the cast-list heading, and stage-direction openers (`Enter`, `Exit`, `Flourish`...).

`heading(raw)` names the heading kind of a line (or None); `_is_heading` says whether a line is any of them.
"""

from __future__ import annotations

import re

from ..text import clean

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
# `Exeunt ...`, or a bare `Exit.` (the speaker leaves): the next plain line is not theirs
_CLEARS_SPEAKER = re.compile(r"^\W*(?:Exeunt\b|Exit\W*$)")
DIRECTION_RE = re.compile(
    r"^\s*_?\s*(?:Enter|Re-enter|Reenter|Exit|Exeunt|Manet|Manent|Flourish|Sennet|Alarum|Alarums|Trumpets?|"
    r"Music|Thunder|Hautboys|Horns?|Noise|Dies|Dance|Retreat|Excursions|Strophe|Antistrophe|Epode|Mesode)\b"
)


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

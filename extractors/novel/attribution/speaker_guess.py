"""`Attribution`: one quotation's speaker guess (speaker, confidence, evidence, and the clues behind it),
shared by the English rules (`attribution/attributor.py`) and the Chinese ones (`attribution/zh.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Attribution:
    speaker: str | None = None
    confidence: float | None = None
    evidence: str | None = None
    rule: str | None = None
    surface: str | None = None
    want_gender: str | None = None     # tag found but with a pronoun/noun phrase of this gender
    pron_tag: bool = False
    vocatives: set = field(default_factory=set)
    address_forms: set = field(default_factory=set)  # how the quote addresses them (`lizzy`, `mr. darcy`), normalised
    verb: str | None = None            # the speech verb of a pronoun/noun-phrase tag
    addressees: set = field(default_factory=set)  # `said to Jane`: never the speaker
    held: tuple | None = None          # (speaker, confidence, evidence) of a guess below the hold
    turn_features: dict | None = None  # what backs a turn-taking guess (turns.turn_features)
    kin: tuple | None = None           # `said her mother`: (gender of the possessor or None, "mother")
    outsider: bool = False             # `said the mariner`: a description naming no cast member (turn-taking: someone else)
    nobody: bool = False               # `said I` in a cast without a narrator: surely no cast member
    hint: tuple | None = None          # (speaker, rule) of a weak clue (a narration subject): used where turn-taking agrees

"""The typed configuration of `configs/pipeline.yaml`: one pydantic model per section, defaults defined here once.

Every section forbids unknown keys, so a typo (`max_token:`) or a wrong type is an `InputError` naming the key
and the file instead of a setting that is silently dropped. `works:` maps a work id to its source kind, input
file and the kind's options, which are checked against that kind's `Options` model (extractors.registry).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator, model_validator

from extractors.errors import InputError
from extractors.ids import check_id
from extractors.yamlio import load_yaml
from extractors.registry import get_extractor, kinds
from extractors.tv import DEFAULTS as SPEAKER_DEFAULTS

from .segment import SOLO_MODES, Params


class Section(BaseModel):
    """A section of pipeline.yaml: unknown keys and wrong types are errors."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def _from_defaults(name: str, defaults: dict, doc: str, **more) -> type[Section]:
    """A Section model whose fields (types and defaults) are those of a dict of defaults kept elsewhere."""
    fields = {k: (type(v), v) for k, v in defaults.items()}
    fields.update(more)
    return create_model(name, __base__=Section, __doc__=doc, **fields)


# The segmenter's limits: defined once, as the fields of pipeline.segment.Params.
SegmentSettings = _from_defaults(
    "SegmentSettings", {f.name: f.default for f in dataclasses.fields(Params) if f.name != "solo"},
    "`segment:` the story limits of the finite-state segmenter (pipeline.segment.Params).",
    solo=(Literal[SOLO_MODES], Params.solo))


class EmbedSettings(Section):
    backend: Literal["use", "openai"] = "use"    # use (offline Universal Sentence Encoder) | openai
    model: str = "text-embedding-3-small"         # only for backend openai
    threads: int = 0                              # 0 = all cores
    batch: int = Field(64, ge=1)


class ChatSettings(Section):
    story_tokens: int = 1500
    history_tokens: int = 1200
    model: str = "gpt-4o-mini"
    temperature: float = 0.7
    timeout: float = Field(600, gt=0)  # seconds an LLM answer may take (a 1.5B model on one CPU thread reads a
    #                                    2,000-token prompt in ~2-4 min before it answers)


class LLMSettings(Section):
    """`llm:` the one client of the LLM stages (profile, synth, annotate, eval chat): extractors/llm_client.py.
    Answers are streamed: `first_token` bounds the wait while the server reads the prompt, `silence` the gap
    between tokens, `timeout` the whole request; a request past any of them is not sent again."""

    model: str = "gpt-4o-mini"                  # ROLECORPUS_LLM_MODEL overrides it
    temperature: float = Field(0.0, ge=0, le=2)  # a stage may ask for its own (synth questions)
    timeout: float = Field(1200, gt=0)           # seconds one request may take in all (its deadline)
    first_token: float = Field(300, gt=0)        # seconds until the first token (the prompt is read first)
    silence: float = Field(60, gt=0)             # seconds without a token before a request is given up
    max_tokens: int = Field(1024, ge=1)          # longest answer (a small model can loop; this bounds it)
    json_mode: bool = True                       # ask JSON stages' answers in the server's JSON mode
    max_retries: int = Field(3, ge=0)            # waits out refused connections, rate limits, server errors
    requests_per_minute: float = Field(0, ge=0)  # 0 = unlimited
    concurrency: int = Field(0, ge=0)            # requests in flight at once; 0 = 1 for a server on this machine
    #                                              (llama.cpp answers one at a time), 4 for a remote one


class EvalChatSettings(Section):
    """`eval_chat:` the held-out exchanges of `rolecorpus eval chat` (synth never trains on them)."""

    characters: list[str] = Field(default_factory=list)  # the DVC eval@ID stages' characters (retrieval bot, offline)
    n: int = Field(30, ge=1)                 # held-out exchanges per character (the paper's 30)
    seed: int = 0                            # seed of their shuffle
    min_reply_tokens: int = Field(20, ge=1)  # a "long" reply: at least this many tokens (cl100k)


class SynthSettings(Section):
    """`synth:` questions and dialogues for training (`rolecorpus synth questions|dialogues`)."""

    characters: list[str] = Field(default_factory=list)  # the DVC synth stages' characters (LLM work: none by default)
    per_story: int = Field(5, ge=1)          # new questions asked per story
    dedup: float = Field(0.9, gt=0, le=1)    # drop a question this similar (embedding cosine) to one kept or original
    temperature: float = 0.9                 # of question generation (answers use chat.temperature)


# Speaker identification by voice: defined once, in extractors.tv.speaker_id.DEFAULTS (scores are ECAPA cosines).
SpeakerSettings = _from_defaults(
    "SpeakerSettings", SPEAKER_DEFAULTS, "`speakers:` thresholds and segment settings of speaker identification.",
    threads=(int, 0))  # torch threads; 0 = all cores


class WorkSpec(Section):
    """One work built by `dvc repro`: `rolecorpus build-lines WORK` runs the `kind` extractor on `input`."""

    kind: str
    input: str
    title: Optional[str] = None      # what prompts and pages call the work ("The Sun Also Rises"); default: the id
    language: Optional[Literal["en", "zh"]] = None  # the work's language: its characters' and, where the kind
    #                                                 reads one, the extractor's (an explicit option wins)
    options: dict[str, Any] = Field(default_factory=dict)
    # A batch work (pipeline/batch.py): `input` a folder, `files` the pattern of its files ("*.mkv", "**/*.txt");
    # every file is extracted on its own into the one lines file (tv: subtitles beside each episode by name).
    files: Optional[str] = None

    @field_validator("input")
    @classmethod
    def _not_a_glob(cls, v: str) -> str:
        if any(c in v for c in "*?["):
            raise ValueError(f"{v!r} is a pattern, and a DVC dependency must be a path: give the folder as input and "
                             "the pattern as files (input: data/raw/season1, files: '*.mkv')")
        return v

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, v: str) -> str:
        if v not in kinds():
            raise ValueError(f"unknown source kind {v!r} (known: {', '.join(kinds())})")
        return v

    def typed_options(self, work: str, path: Path | str | None = None) -> BaseModel:
        """The options validated by the kind's Options model (errors name works.<work>.options.<key>)."""
        options = dict(self.options)
        model = get_extractor(self.kind).Options
        if self.language and "language" in model.model_fields and "language" not in options:
            options["language"] = self.language
        return validate_model(model, options, path, f"works.{work}.options")

    def display_title(self, work: str) -> str:
        return self.title or work


class VoiceSpec(Section):
    """A voice model built by `dvc repro` (stage voices@ID): `rolecorpus speakers train LABELS` into
    SOURCES/speakers/ID, the folder a tv work's `speakers` option names (a dep of every lines stage)."""

    labels: str   # labels CSV (character,text,start,end,media)
    media: str    # the media file (or folder) the labels refer to: a dep of the stage


class SeasonSpec(Section):
    """A season whose voices `dvc repro` discovers and names (stage season@ID): `rolecorpus speakers discover
    EPISODES --subtitles-beside` into data/voices/ID, then `speakers name --names NAMES` trains the voice model
    into SOURCES/speakers/ID (the folder the season's tv works name in their `speakers` option)."""

    episodes: str   # a glob of the episodes (each with its subtitle file beside it)
    names: str      # CSV `cluster,character`: the naming a person did once, replayed by every rebuild
    media: str      # the folder of the episodes: a dep of the stage


class CharacterSpec(Section):
    work: Union[str, list[str]]

    def works(self) -> list[str]:
        return [self.work] if isinstance(self.work, str) else list(self.work)


class ProfileSettings(Section):
    """`profile:` the LLM-drafted character profiles (rolecorpus profile ID -> configs/profiles/ID.md)."""

    characters: list[str] = Field(default_factory=list)  # the characters `dvc repro` profiles (needs an LLM)
    catchphrases: int = Field(12, ge=0)   # recurrent phrases listed, with their counts
    people: int = Field(6, ge=0)          # the people the character answers most
    samples: int = Field(10, ge=1)        # longest and most typical lines shown to the LLM


class EmotionSettings(Section):
    """`emotions:` the emotion labels of the character's lines (rolecorpus annotate emotions ID)."""

    characters: list[str] = Field(default_factory=list)  # the characters `dvc repro` annotates (needs an LLM)
    batch: int = Field(20, ge=1, le=200)  # lines per LLM request


class Settings(Section):
    sources: str = "data/samples"   # the folder of the works' input and companion files (a dep of every lines stage)
    works: dict[str, WorkSpec] = Field(default_factory=dict)
    characters: dict[str, CharacterSpec] = Field(default_factory=dict)
    voices: dict[str, VoiceSpec] = Field(default_factory=dict)
    seasons: dict[str, SeasonSpec] = Field(default_factory=dict)
    segment: SegmentSettings = Field(default_factory=SegmentSettings)
    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    chat: ChatSettings = Field(default_factory=ChatSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    speakers: SpeakerSettings = Field(default_factory=SpeakerSettings)
    eval_chat: EvalChatSettings = Field(default_factory=EvalChatSettings)
    synth: SynthSettings = Field(default_factory=SynthSettings)
    profile: ProfileSettings = Field(default_factory=ProfileSettings)
    emotions: EmotionSettings = Field(default_factory=EmotionSettings)

    @model_validator(mode="after")
    def _synth_after_eval(self):
        """A DVC synth stage reads the held-out exchanges its character's eval@ID stage writes."""
        missing = [c for c in self.synth.characters if c not in self.eval_chat.characters]
        if missing:
            raise ValueError(f"synth.characters {missing} must also be in eval_chat.characters (synth leaves out "
                             "the held-out exchanges eval@ID writes)")
        return self


def _where(loc: tuple, prefix: str | None) -> str:
    parts = [prefix] if prefix else []
    parts += [str(p) for p in loc]
    return ".".join(parts) or "(top level)"


def describe(e: ValidationError, prefix: str | None = "") -> str:
    """The first error of a ValidationError in one short line: the key's dotted path (after `prefix`) and what
    is wrong. `prefix=None`: command-line options, whose validators' messages name the flag themselves."""
    err = e.errors()[0]
    loc = _where(err["loc"], prefix)
    if err["type"] == "extra_forbidden":
        return f"unknown key {loc}"
    if err["type"] == "missing":
        return f"missing key {loc}"
    if err["type"] == "value_error":  # a validator's own message (it names the setting)
        return str(err["ctx"]["error"]) if prefix is None else f"{loc}: {err['ctx']['error']}"
    return f"{loc}: {err['msg'].lower()} (got {err.get('input')!r})"


def validate_model(model: type[BaseModel], data: Any, path: Path | str | None = None, prefix: str | None = ""):
    """`model.model_validate(data)`, with any error turned into a one-line InputError naming the file."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise InputError(describe(e, prefix), path) from None


def load_settings(path: str | Path | None) -> Settings:
    """The settings of the YAML file (every section defaulted when the file or the section is absent)."""
    if path is None or not Path(path).exists():
        return Settings()
    return settings_from_data(load_yaml(path), path)  # UTF-8, no repeated key, no alias bomb (extractors/yamlio.py)


def settings_from_data(data: Any, path: str | Path | None = None) -> Settings:
    """The settings of already-parsed YAML data, checked by every rule the loader applies (a write checks the
    document it is about to write with this, so no write can leave a project that does not load)."""
    data = data or {}
    if not isinstance(data, dict):
        raise InputError("expected a mapping of stage names to parameters", path)
    data = {k: ({} if v is None else v) for k, v in data.items()}
    settings = validate_model(Settings, data, path)
    for work, spec in settings.works.items():
        spec.typed_options(work, path)
    for cid, spec in settings.characters.items():
        check_id(cid, "character id", path)
        missing = [w for w in spec.works() if w not in settings.works]
        if missing:
            raise InputError(f"characters.{cid}.work: {missing[0]!r} is not a key of works: (known: "
                             f"{', '.join(settings.works) or 'none'})", path)
    for stage in ("profile", "emotions"):  # the LLM stages read the character's stories and lines
        unknown = [c for c in getattr(settings, stage).characters if c not in settings.characters]
        if unknown:
            raise InputError(f"{stage}.characters: {unknown[0]!r} is not a key of characters:", path)
    return settings

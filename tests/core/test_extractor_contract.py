"""The extractor contract and the registry: every built-in kind implements it; its CLI options are generated
from its Options model; a new kind is one class plus one registry line and then runs through `extract KIND`
and `build-lines` (here a toy `manga` kind reading `Name: words` panel captions from a text file)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import ClassVar, Iterator

import pytest
import typer
import yaml
from pydantic import Field
from typer.testing import CliRunner

from cli_asserts import one_line_error
from extractors.contract import ExtractContext, ExtractOptions, Extractor
from extractors.errors import InputError
from extractors.records import Line, read_lines
from extractors.registry import BUILTIN, _REGISTRY, get_extractor, kinds, register


def test_every_builtin_kind_implements_the_contract():
    assert kinds()[:4] == ["script", "wiki", "novel", "tv"]
    for kind in BUILTIN:
        cls = get_extractor(kind)
        assert cls.kind == kind and isinstance(cls(), Extractor)
        assert issubclass(cls.Options, ExtractOptions) and cls.source_help
        cls.Options()  # every option has a default
        with pytest.raises(Exception):
            cls.Options(no_such_option=1)  # extra="forbid"
    with pytest.raises(InputError, match="unknown source kind 'manga'"):
        get_extractor("manga")


def test_extract_commands_are_generated_from_the_options_models():
    import pipeline.cli  # noqa: F401  (registers the commands)
    from pipeline.cli_app import extract_app

    commands = {c.name: c for c in extract_app.registered_commands}
    for kind in BUILTIN:
        params = list(inspect.signature(commands[kind].callback).parameters)
        assert params == ["source", "work", "output", "engine", "address", "workers", "partial",  # batches (i12)
                          *get_extractor(kind).Options.model_fields]


class MangaOptions(ExtractOptions):
    reading: str = Field("rtl", description="Panel order: rtl (Japanese) or ltr.")


class MangaExtractor:
    """Read the speech balloons of a manga (here: the OCR output, one `Name: words` per balloon)."""

    Options: ClassVar[type[MangaOptions]] = MangaOptions
    source_help: ClassVar[str] = "OCR text of the pages."

    def extract(self, source: Path, work: str, ctx: ExtractContext) -> Iterator[Line]:
        for i, row in enumerate(source.read_text(encoding="utf-8").splitlines()):
            name, _, words = row.partition(":")
            if not words:
                raise InputError("not a `Name: words` balloon", source, i + 1)
            yield Line(work=work, source=source.name, unit="page 1", index=i, kind="dialogue", text=words.strip(),
                       speaker=ctx.resolver.speaker_id(name), name=name, evidence="script", confidence=1.0,
                       extra={"reading": ctx.options.reading})
        ctx.metrics["balloons"] = i + 1

    def summary(self, lines: list[Line], output: Path, ctx: ExtractContext) -> str:
        return f"wrote {len(lines)} balloons to {output}"


@pytest.fixture
def manga(tmp_path, monkeypatch):
    """A project with the manga kind registered (one line) and a work of that kind in pipeline.yaml."""
    from pipeline.commands.extract import make_command
    from pipeline.cli_app import extract_app

    register("manga")(MangaExtractor)  # the one registry line
    extract_app.command("manga")(make_command("manga"))
    (tmp_path / "configs" / "characters").mkdir(parents=True)
    (tmp_path / "configs" / "characters" / "luffy.yaml").write_text("name: Luffy\nseries: One Piece\naliases: [LUFFY]\n")
    (tmp_path / "pages.txt").write_text("LUFFY: I'm gonna be King of the Pirates!\nZoro: Idiot.\n", encoding="utf-8")
    (tmp_path / "configs" / "pipeline.yaml").write_text(yaml.safe_dump(
        {"works": {"op": {"kind": "manga", "input": "pages.txt", "options": {"reading": "ltr"}}}}))
    monkeypatch.setenv("ROLECORPUS_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    _REGISTRY.pop("manga", None)
    extract_app.registered_commands[:] = [c for c in extract_app.registered_commands if c.name != "manga"]


def test_a_new_kind_is_one_class_and_one_registry_line(manga):
    from pipeline.cli_app import app

    r = CliRunner().invoke(app, ["extract", "manga", "pages.txt", "--work", "op", "-o", "out.jsonl", "--reading", "ltr"])
    assert r.exit_code == 0, (r.output, r.exception)
    lines = read_lines(manga / "out.jsonl")
    assert [(ln.speaker, ln.text) for ln in lines] == [("luffy", "I'm gonna be King of the Pirates!"), ("zoro", "Idiot.")]
    assert lines[0].extra == {"reading": "ltr"} and "wrote 2 balloons" in r.stderr
    assert json.loads((manga / "metrics" / "manga_op.json").read_text()) == {"balloons": 2}

    r = CliRunner().invoke(app, ["build-lines", "op"])  # the DVC lines stage: the registry, no argv
    assert r.exit_code == 0, (r.output, r.exception)
    assert read_lines(manga / "data" / "lines" / "op.jsonl") == lines


def test_a_new_kind_gets_the_same_one_line_errors(manga):
    from pipeline.cli_app import app

    (manga / "bad.txt").write_text("LUFFY: fine\nno colon here\n")
    one_line_error(CliRunner().invoke(app, ["extract", "manga", "bad.txt", "--work", "op", "-o", "o.jsonl"]),
                   "bad.txt, row 2", "balloon")
    assert not (manga / "o.jsonl").exists()
    (manga / "configs" / "pipeline.yaml").write_text(yaml.safe_dump(
        {"works": {"op": {"kind": "manga", "input": "pages.txt", "options": {"readnig": "ltr"}}}}))
    one_line_error(CliRunner().invoke(app, ["build-lines", "op"]), "unknown key works.op.options.readnig")


def test_models_are_handed_in_not_built_by_the_extractor(tmp_path):
    """The novel kind asks the context for its chat model; without one handed in it says so (no model is built)."""
    from extractors.novel.extractor import NovelExtractor, NovelOptions

    src = Path(__file__).resolve().parents[2] / "data" / "samples" / "alice29.txt"
    ctx = ExtractContext(options=NovelOptions(llm="openai", language="en"))
    with pytest.raises(InputError, match="needs an LLM"):
        list(NovelExtractor().extract(src, "alice29", ctx))

    class Fake:
        def __init__(self):
            self.asked = 0

        def speaker_encoder(self, threads=0):
            raise AssertionError("not needed")

        def chat_model(self):
            self.asked += 1
            raise InputError("fake: no endpoint")

    fake = Fake()
    with pytest.raises(InputError, match="fake: no endpoint"):
        list(NovelExtractor().extract(src, "alice29", ExtractContext(options=NovelOptions(llm="openai"), models=fake)))
    assert fake.asked == 1
    lines = list(NovelExtractor().extract(src, "alice29", ctx := ExtractContext(options=NovelOptions(), models=fake)))
    assert lines and ctx.metrics["quotes"] > 600 and ctx.metrics["llm"]["calls"] == 0


def test_tv_asks_the_context_for_whisper():
    """With no subtitles and no cached transcript the tv kind asks the context for Whisper; it never loads its own."""
    from extractors.tv.extractor import TvExtractor, TvOptions

    src = Path(__file__).resolve().parents[2] / "data" / "samples" / "sample.wav"
    with pytest.raises(InputError, match="needs Whisper"):
        list(TvExtractor().extract(src, "telephone", ExtractContext(options=TvOptions(), progress=False)))

"""`rolecorpus export chatharuhi`: the role file loads in the real ChatHaruhi runtime (`chatharuhi==1.0.9`
from PyPI, installed by the dev extra) with its own `embedding=` choice, and its own retrieval finds the stories.

No network. `luotuo_openai` runs against a fake OpenAI-compatible embeddings server on localhost;
`bge_en` against a tiny random BERT of bge-small-en's width (384) saved in a temp folder. ChatHaruhi
1.0.9 needs three things handed to it to run offline, each set on its own `utils` module: tiktoken's
cl100k_base (it would download it; it gets the offline copy rolecorpus counts with), `client` (the
OpenAI client is commented out in the released code) and `is_chinese_or_english` (it answers "chinese"
for every text, which makes its English OpenAI path unreachable); for bge, the model it would fetch
from the hub is the tiny one.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import pipeline.cli  # noqa: F401  (registers the commands)
from pipeline.cli_app import app
from pipeline.package import build_package
from pipeline.segment import Params, Segmenter
from pipeline.tokens import encoding

from cli_asserts import one_line_error
from fake_embeddings import EmbeddingServer, bag_of_words, tiny_bert
from helpers_play import CHARACTERS, play_lines, resolver

SCENES = "Classic scenes for the role are as follows:\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project holding Rosalind's package (real stories; the package's own vectors are not used)."""
    root = tmp_path_factory.mktemp("export")
    stories = Segmenter("rosalind", resolver(), Params()).run(list(play_lines()))[:12]
    vecs = np.random.default_rng(0).standard_normal((len(stories), 512)).astype(np.float32)
    build_package(root / "data" / "characters" / "rosalind", CHARACTERS[0], stories, vecs,
                  {"model": "use_multilingual_v3", "normalized": False}, {"segment": {}}, ["asyoulik"])
    return root, stories


def export(root, *args, **env):
    env = {"ROLECORPUS_ROOT": str(root), "ROLECORPUS_CACHE": str(root / ".cache"), **env}
    return CliRunner().invoke(app, ["export", "chatharuhi", "rosalind", *args], env=env)


@pytest.fixture(scope="module")
def chatharuhi():
    from extractors.tv.ecapa import make_speechbrain_importable

    make_speechbrain_importable()  # chatharuhi imports transformers, which imports torchaudio
    import chatharuhi
    import chatharuhi.utils

    return chatharuhi


@pytest.fixture(scope="module")
def tiny_bge(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("bge") / "bge-small-en", 384)


def _retrieved(messages: list[str]) -> list[str]:
    block = next(m for m in messages if SCENES in m)
    return [s for s in block.split(SCENES, 1)[1].split("\n###\n") if s]


def test_luotuo_openai_export_loads_in_chatharuhi_and_retrieves_with_fake_localhost_openai_server(
        project, chatharuhi, monkeypatch):
    root, stories = project
    out = root / "rosalind_luotuo.jsonl"
    with EmbeddingServer(dim=1536) as server:
        r = export(root, "-o", str(out), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-fake")
        assert r.exit_code == 0, (r.output, r.stderr)
        assert server.models == {"text-embedding-ada-002"} and server.requests >= 1
        assert "embedding='luotuo_openai'" in r.stdout
        again = export(root, "-o", str(out), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-fake")
        assert again.exit_code == 0 and server.requests == 1          # every vector from the cache

        bot = chatharuhi.ChatHaruhi(role_from_jsonl=str(out), llm="debug", embedding="luotuo_openai")
        assert bot.system_prompt == (root / "data/characters/rosalind/system_prompt.txt").read_text(encoding="utf-8")
        assert bot.db.documents == [s.text for s in stories]
        assert {len(v) for v in bot.db.vectors} == {1536}

        import openai

        utils = chatharuhi.utils
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
        monkeypatch.setattr(utils, "client", openai.OpenAI(base_url=server.base_url, api_key="sk-fake"), raising=False)
        monkeypatch.setattr(utils, "is_chinese_or_english", lambda text: "english")
        monkeypatch.setattr(utils, "_enc_model", encoding())
        story = stories[5]
        said = max((ln["text"] for ln in story.lines if ln["speaker"] == "rosalind"), key=len)
        found = _retrieved(bot.generate_messages(said, "Orlando"))
    query = bag_of_words(f"Orlando:「{said}」", 1536)
    best = max(stories, key=lambda s: float(np.dot(query, bag_of_words(s.text.replace("\n", " "), 1536))))
    assert found[0] == best.text and said in found[0]
    assert len(found) >= 2                       # the 1500-token budget holds more than one story


def test_bge_en_export_loads_in_chatharuhi_and_its_own_bge_code_finds_every_story(
        project, chatharuhi, tiny_bge, monkeypatch):
    root, stories = project
    r = export(root, "--embedding", "bge_en", "--weights", str(tiny_bge))
    assert r.exit_code == 0, (r.output, r.stderr)
    out = root / "data/exports/chatharuhi/rosalind.bge_en.jsonl"
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [set(row) for row in rows] == [{"text", "bge_en_s15"}] * (len(stories) + 2)
    config = json.loads(rows[1]["text"])
    assert config["embedding"]["model"] == "BAAI/bge-small-en-v1.5" and config["embedding"]["dim"] == 384

    from transformers import AutoModel, AutoTokenizer

    bot = chatharuhi.ChatHaruhi(role_from_jsonl=str(out), llm="debug", embedding="bge_en")
    monkeypatch.setattr(chatharuhi.utils, "_bge_tokenizer", AutoTokenizer.from_pretrained(str(tiny_bge)))
    monkeypatch.setattr(chatharuhi.utils, "_bge_model", AutoModel.from_pretrained(str(tiny_bge)))
    for s in stories:
        assert bot.db.search(bot.embedding(s.text), 1) == [s.text]


def test_bge_weights_of_the_wrong_width_are_refused(project, tiny_bge):
    root, _ = project
    r = export(root, "--embedding", "bge_zh", "--weights", str(tiny_bge))
    one_line_error(r, "384-d", "512-d", "BAAI/bge-small-zh-v1.5")
    assert not (root / "data/exports/chatharuhi/rosalind.bge_zh.jsonl").exists()


def test_what_it_cannot_do_is_one_error_line_and_no_file(project, tmp_path):
    root, _ = project
    before = sorted((root / "data").rglob("*"))
    one_line_error(export(root), "OPENAI_BASE_URL")
    one_line_error(export(root, "--embedding", "bge_en", HF_HOME=str(tmp_path / "hf")), "--weights", "bge-small-en")
    one_line_error(export(root, "--embedding", "bge_en", "--weights", str(tmp_path)), "no config.json")
    one_line_error(export(root, "--embedding", "foo"), "luotuo_openai, bge_en, bge_zh")
    missing = CliRunner().invoke(app, ["export", "chatharuhi", "nobody"], env={"ROLECORPUS_ROOT": str(root)})
    one_line_error(missing, "nobody.jsonl", "rolecorpus package")
    assert sorted((root / "data").rglob("*")) == before

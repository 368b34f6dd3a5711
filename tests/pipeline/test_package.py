"""The character package: layout of DESIGN.md and a role file that ChatHaruhi's loader reads."""

from __future__ import annotations

import base64
import json
import struct

import numpy as np
import pytest

from pipeline.embedders import UseEmbedder
from pipeline.package import build_package, system_prompt
from pipeline.rolefile import read_role_file
from pipeline.segment import Params, Segmenter

from helpers_play import CHARACTERS, play_lines, resolver


def chatharuhi_style_load(path, column):
    """Decoding as the ChatHaruhi 2.0 runtime does it: json rows, struct '!f' every 4 bytes, lists of floats."""
    texts, vecs, prompt = [], [], None
    with open(path, encoding="utf8") as f:
        datas = [json.loads(line) for line in f]
    for data in datas:
        if data[column] == "system_prompt":
            prompt = data["text"]
        elif data[column] == "config":
            pass
        else:
            raw = base64.b64decode(data[column])
            vecs.append([struct.unpack("!f", raw[i:i + 4])[0] for i in range(0, len(raw), 4)])
            texts.append(data["text"])
    return texts, vecs, prompt


@pytest.fixture(scope="module")
def embedder():
    return UseEmbedder(threads=1)


@pytest.fixture(scope="module")
def package(tmp_path_factory, embedder):
    ch = CHARACTERS[0]
    ch.personality = "Witty, warm and quick; disguised as the youth Ganymede in the forest."
    stories = Segmenter("rosalind", resolver(), Params()).run(list(play_lines()))[:12]
    vecs = embedder.encode([s.text for s in stories])
    out = tmp_path_factory.mktemp("pkg") / "rosalind"
    build_package(out, ch, stories, vecs, {"model": embedder.name, "normalized": True}, {"segment": {}}, ["asyoulik"])
    return out, stories, vecs


def test_package_layout(package):
    out, stories, _ = package
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "rosalind.jsonl", "stories", "system_prompt.txt"]
    files = sorted((out / "stories").iterdir())
    assert [f.name for f in files] == [f"{i:04d}.txt" for i in range(1, len(stories) + 1)]
    assert files[0].read_text(encoding="utf-8").strip() == stories[0].text
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["stories"] == len(stories)
    assert manifest["models"]["embedding"]["dim"] == 512
    assert len(manifest["hashes"]["rosalind.jsonl"]) == 64


def test_system_prompt_follows_the_paper_and_adds_personality(package):
    out, _, _ = package
    prompt = (out / "system_prompt.txt").read_text()
    assert prompt.startswith("I want you to act like Rosalind from As You Like It.")
    assert "reuse the original lines" in prompt and "tone, manner and vocabulary" in prompt
    assert prompt.rstrip().endswith("disguised as the youth Ganymede in the forest.")


def test_role_file_reads_with_a_chatharuhi_style_loader(package):
    out, stories, vecs = package
    rows = [json.loads(x) for x in (out / "rosalind.jsonl").read_text().splitlines()]
    assert rows[0]["use_multilingual_v3"] == "system_prompt"
    assert rows[1]["use_multilingual_v3"] == "config"
    config = json.loads(rows[1]["text"])
    assert config["embedding"] == {"model": "use_multilingual_v3", "dim": 512, "dtype": "float32", "byte_order": "big-endian",
                                   "struct": "!f", "encoding": "base64", "normalized": True}
    texts, loaded, prompt = chatharuhi_style_load(out / "rosalind.jsonl", "use_multilingual_v3")
    assert texts == [s.text for s in stories]
    assert prompt == (out / "system_prompt.txt").read_text()
    np.testing.assert_allclose(np.array(loaded), vecs, rtol=0, atol=0)
    _, _, column, texts2, vecs2 = read_role_file(out / "rosalind.jsonl")
    assert column == "use_multilingual_v3" and texts2 == texts
    np.testing.assert_array_equal(vecs2, vecs)


def test_zh_character_gets_the_chinese_template():
    from extractors.characters import Character

    p = system_prompt(Character("liubei", "刘备", "三国演义", language="zh", personality="仁德宽厚。"))
    assert p.startswith("我希望你像三国演义中的刘备一样回答问题。") and p.rstrip().endswith("仁德宽厚。")

"""Reading sources in any encoding: real files re-encoded, real binaries refused."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from extractors.errors import InputError
from extractors.textio import read_text

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"
# Traditional-Chinese ChatHaruhi-style lines (written for this test)
TRADITIONAL = "旁白:放學後，文藝部活動室。\n阿虛:「你又在想什麼奇怪的事情？」\n涼宮春日:「奇怪？一點都不奇怪！我要成立一個新的社團。」\n"


def _play_head() -> str:
    return (SAMPLES / "asyoulik.txt").read_text(encoding="utf-8")[:4000]


def _sanguo_head() -> str:
    return (SAMPLES / "sanguo_1-15.txt").read_text(encoding="utf-8")[:3000]


@pytest.mark.parametrize(
    "encoding,text",
    [
        ("utf-8-sig", _play_head()),
        ("utf-16", _play_head()),  # with BOM
        ("utf-16-le", _play_head()),  # no BOM
        ("utf-16-be", _play_head()),
        ("gb18030", _sanguo_head()),
        ("big5", TRADITIONAL),  # Big5 bytes also decode as GB18030, into rare characters
        ("utf-16-le", _sanguo_head()),
    ],
)
def test_reencoded_text_reads_back_exactly(tmp_path, encoding, text):
    path = tmp_path / f"src.{encoding}.txt"
    path.write_bytes(text.encode(encoding))
    assert read_text(path) == text


@pytest.mark.parametrize(
    "path",
    [SAMPLES / "sample.wav", Path(sys.executable).resolve()],
    ids=["wav", "python-executable"],
)
def test_real_binaries_are_refused(path):
    # a WAV or ELF file is full of zero bytes, which also looks like UTF-16 until decoded
    with pytest.raises(InputError, match="binary"):
        read_text(path)


def test_empty_and_blank_files_are_refused(tmp_path):
    for content in (b"", b"\n\n  \n", "\ufeff".encode("utf-8")):
        path = tmp_path / "blank.txt"
        path.write_bytes(content)
        with pytest.raises(InputError, match="empty"):
            read_text(path)

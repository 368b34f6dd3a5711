"""The one id validator, secret scrubbing, orphan temp cleanup and the Western-encoding preference (issue 9)."""

from __future__ import annotations

import os

import pytest

from extractors.atomic import atomic_write_text, clean_orphans
from extractors.errors import InputError
from extractors.ids import MAX_ID, check_id, id_problem, inside
from extractors.llm import redact_secrets
from extractors.textio import decode_bytes


@pytest.mark.parametrize("good", ["rosalind", "alice29", "PDNC", "king_of_hearts", "a-b.c", "曹操", "PrideAndPrejudice"])
def test_valid_ids(good):
    assert check_id(good) == good


@pytest.mark.parametrize("bad", ["", "evil\n", "a/b", "a\\b", "..", ".", "...", "a/../../tmp/x", "-x", "_x", ".hidden",
                                 "a..b", "x" * (MAX_ID + 1), "tab\there", "sp ace", "nul\x00", None, 3])
def test_invalid_ids_are_refused(bad):
    assert id_problem(bad) is not None
    with pytest.raises(InputError):
        check_id(bad, "work id")


def test_inside_refuses_paths_leaving_the_root(tmp_path):
    assert inside(tmp_path / "metrics" / "a.json", tmp_path)
    with pytest.raises(InputError):
        inside(tmp_path / "metrics" / ".." / ".." / "x.json", tmp_path)


def test_redact_secrets_scrubs_env_keys_authorization_and_key_shapes(monkeypatch):
    key = "sk-proj-AbCdEf0123456789xyz"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    text = (f"Error code: 401 - Incorrect API key provided: {key[:8]}****{key[-4:]}; sent {key}; "
            "headers {'Authorization': 'Bearer sk-other-1234567890abc'} api_key=hunter2hunter2 Bearer abcdefghijklmnop")
    out = redact_secrets(text)
    for secret in (key, key[-4:], "sk-other-1234567890abc", "hunter2hunter2", "abcdefghijklmnop"):
        assert secret not in out, out
    assert "Error code: 401" in out
    assert redact_secrets("row 3 of /data/lines/a.jsonl: index 4") == "row 3 of /data/lines/a.jsonl: index 4"


def test_clean_orphans_removes_only_dead_writers_temp_files(tmp_path):
    dead = tmp_path / ".out.jsonl.999999999.abc.tmp"
    live = tmp_path / f".out.jsonl.{os.getpid()}.abc.tmp"
    deep = tmp_path / "ab" / ".k.json.999999999.x1.tmp"
    for p in (dead, live, deep):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("half")
    atomic_write_text(tmp_path / "kept.json", "{}")
    assert clean_orphans(tmp_path) == 1 and not dead.exists() and live.exists() and deep.exists()
    assert clean_orphans(tmp_path, recursive=True) == 1 and not deep.exists()
    assert (tmp_path / "kept.json").read_text() == "{}"


@pytest.mark.parametrize("text, encoding", [
    ("Où est-il allé ? Je suis très fâché, dit-elle.\n", "latin-1"),
    ("Er sagte: „Wir müssen gehen, es ist spät.“ Die Straße war leer.\n", "cp1252"),
    ("Řekl mi, že příliš mnoho lidí neví, co dělat. Čeština je těžký jazyk, ale krásný.\n", "cp1250"),
])
def test_western_wins_ties_but_central_european_bytes_still_decode(text, encoding, caplog):
    assert decode_bytes(text.encode(encoding), "t.txt") == text
    assert "pass --encoding to override" in caplog.text

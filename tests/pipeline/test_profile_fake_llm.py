"""`rolecorpus profile ID` end to end against a FAKE OpenAI-compatible server on localhost (tests/support/fake_llm_server.py),
for the English (Rosalind) and Chinese (刘备) sample characters: the counts in the file are the corpus's, the prompt
asks for the character's language, a rerun asks nothing, an edited profile is kept, `package` puts the profile into
the system prompt, and a kill -9 while the answer is awaited loses nothing."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from collections import Counter

import pytest
import yaml

from cli_asserts import one_line_error
from fake_llm_server import SECRET, FakeLLMServer
from profile_emotions_helpers import cli, cli_cmd, copy_project, fake_answer, sample_project, server  # noqa: F401

from extractors.records import read_lines
from pipeline.profile import catchphrases, is_untouched_draft


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return copy_project(sample_project(tmp_path_factory), tmp_path_factory.mktemp("profile") / "p")


def own_texts(project, work, cid):
    return [ln.text for ln in read_lines(project / f"data/lines/{work}.jsonl") if ln.speaker == cid and ln.kind == "dialogue"]


def listed(text, section):
    """The `- item: N` rows of a section of the profile (the heading starts with `section`)."""
    part = text.split(section, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- (.+?) \((\d+)\)|^- [\"「](.+?)[\"」]: (\d+)$", part, re.M)


def test_fake_profile_en_counts_are_the_corpus_counts_and_a_rerun_asks_nothing(project, server):
    p = cli(project, "profile", "rosalind", env_extra=server.env())
    assert p.returncode == 0, p.stderr
    assert len(server.received) == 1
    path = project / "configs/profiles/rosalind.md"
    text = path.read_text(encoding="utf-8")
    assert is_untouched_draft(text) and "(fake) Rosalind is the person" in text
    texts = own_texts(project, "asyoulik", "rosalind")
    phrases = [(m[2], int(m[3])) for m in listed(text, "## Catchphrases")]
    assert len(phrases) >= 8 and ("i pray you", 5) in phrases
    for phrase, n in phrases:  # each count, recounted here over her lines: whole words, case and punctuation aside
        pat = re.compile(r"(?<![\w'])" + r"[\s,;:.!?-]+".join(map(re.escape, phrase.split())) + r"(?![\w'])", re.I)
        assert n == sum(len(pat.findall(t)) for t in texts) >= 2, phrase
    people = [(m[0].strip("*"), int(m[1])) for m in listed(text, "## Relationships")]
    assert [w for w, _ in people[:2]] == ["Orlando", "Celia"] and people[0][1] > 50
    prompt = server.requests[0]["messages"]
    assert "Write every value in English" in prompt[0]["content"] and '"i pray you": 5' in prompt[1]["content"]
    metrics = json.loads((project / "metrics/llm_profile_rosalind.json").read_text())
    assert metrics["calls"] == 1 and metrics["tokens_in"] > 0
    assert SECRET not in p.stdout + p.stderr

    again = cli(project, "profile", "rosalind", env_extra=server.env())
    assert again.returncode == 0, again.stderr
    assert len(server.received) == 1 and path.read_text(encoding="utf-8") == text  # zero calls, same file
    assert json.loads((project / "metrics/llm_profile_rosalind.json").read_text())["cache_hits"] == 1


def test_fake_profile_zh_is_asked_in_chinese_with_chinese_counts(project, server):
    p = cli(project, "profile", "liubei", env_extra=server.env())
    assert p.returncode == 0, p.stderr
    text = (project / "configs/profiles/liubei.md").read_text(encoding="utf-8")
    assert "# 刘备：人物小传" in text and "## 口头禅" in text
    assert "Chinese (简体中文)" in server.requests[0]["messages"][0]["content"]
    texts = own_texts(project, "sanguo", "liubei")
    phrases = [(m[2], int(m[3])) for m in listed(text, "## 口头禅")]
    assert phrases and all(n == sum(t.count(ph) for t in texts) >= 2 for ph, n in phrases)
    assert phrases == catchphrases(texts, zh=True, top=12)
    people = [m[0].strip("*") for m in listed(text, "## 人物关系")]
    assert people[0] == "张飞"


def test_fake_edited_profile_is_kept_and_force_redrafts(project, server):
    assert cli(project, "profile", "rosalind", env_extra=server.env()).returncode == 0
    path = project / "configs/profiles/rosalind.md"
    edited = path.read_text(encoding="utf-8").replace("(fake) Rosalind is the person", "Rosalind, in Arden, is")
    path.write_text(edited, encoding="utf-8")
    asked = len(server.received)
    p = cli(project, "profile", "rosalind", env_extra=server.env())
    assert p.returncode == 0 and "edited by hand, kept" in p.stderr
    assert path.read_text(encoding="utf-8") == edited and len(server.received) == asked
    p = cli(project, "profile", "rosalind")  # no endpoint needed to keep an edited profile
    assert p.returncode == 0 and path.read_text(encoding="utf-8") == edited
    p = cli(project, "profile", "rosalind", "--force", env_extra=server.env())
    assert p.returncode == 0, p.stderr
    assert is_untouched_draft(path.read_text(encoding="utf-8")) and "(fake) Rosalind is the person" in path.read_text()


def test_fake_package_puts_the_profile_into_the_system_prompt(project, server):
    assert cli(project, "profile", "rosalind", env_extra=server.env()).returncode == 0
    pkg = project / "data/characters/rosalind"
    path = project / "configs/profiles/rosalind.md"
    edited = path.read_text(encoding="utf-8") + "\nShe never forgets a rhyme.\n"
    path.write_text(edited, encoding="utf-8")
    assert cli(project, "package", "rosalind").returncode == 0
    prompt = (pkg / "system_prompt.txt").read_text(encoding="utf-8")
    assert prompt.startswith("I want you to act like Rosalind from As You Like It.")
    assert "## Catchphrases" in prompt and "She never forgets a rhyme." in prompt and "<!--" not in prompt
    manifest = json.loads((pkg / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["profile"]["file"] == "configs/profiles/rosalind.md"
    assert json.loads((pkg / "rosalind.jsonl").read_text(encoding="utf-8").splitlines()[0])["text"] == prompt
    path.unlink()
    assert cli(project, "package", "rosalind").returncode == 0
    plain = (pkg / "system_prompt.txt").read_text(encoding="utf-8")
    assert "## Catchphrases" not in plain and "profile" not in json.loads((pkg / "manifest.json").read_text())


def test_fake_no_endpoint_no_stories_and_a_bad_answer_are_one_line_errors(project, tmp_path):
    one_line_error(cli(project, "profile", "liubei", "--force"), "no LLM configured")
    one_line_error(cli(project, "profile", "orlando", "--force"), "stories")  # configured, never segmented
    one_line_error(cli(project, "profile", "nobody"), "unknown character id")
    bad = FakeLLMServer(answer=lambda messages: "Sure! Here is the profile you asked for.")
    path = tmp_path / "proj" / "configs/profiles/liubei.md"
    copy_project(project, tmp_path / "proj")
    path.unlink(missing_ok=True)
    (tmp_path / "proj/metrics/llm_profile_liubei.json").unlink(missing_ok=True)
    try:
        line = one_line_error(cli(tmp_path / "proj", "profile", "liubei", env_extra=bad.env()), "JSON")
        assert len(bad.received) == 2 and SECRET not in line  # asked again once, then gave up
        assert not path.exists() and not (tmp_path / "proj/metrics/llm_profile_liubei.json").exists()
    finally:
        bad.close()


@pytest.mark.slow
def test_fake_kill9_while_the_answer_is_awaited_then_rerun_equals_an_uninterrupted_run(project, server, tmp_path):
    assert cli(project, "profile", "liubei", "--force", env_extra=server.env()).returncode == 0
    fresh = copy_project(project, tmp_path / "k")
    for f in (fresh / "configs/profiles").glob("*.md"):
        f.unlink()
    slow = FakeLLMServer(answer=fake_answer, hold_after=0)
    try:
        cmd, env = cli_cmd(fresh, "profile", "liubei", env_extra=slow.env())
        proc = subprocess.Popen(cmd, cwd=fresh, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 120
        while time.time() < deadline and not slow.held and proc.poll() is None:
            time.sleep(0.05)
        assert slow.held and proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        assert not (fresh / "configs/profiles/liubei.md").exists()
        slow.release.set()
        r = cli(fresh, "profile", "liubei", env_extra=slow.env())
        assert r.returncode == 0, r.stderr
        assert Counter(slow.answered) == Counter(slow.received[1:])  # only the request in flight was asked again
        assert len(slow.received) == 2
        uninterrupted = (project / "configs/profiles/liubei.md").read_text(encoding="utf-8")
        assert (fresh / "configs/profiles/liubei.md").read_text(encoding="utf-8") == uninterrupted
        assert not list(fresh.rglob("*.tmp"))
    finally:
        slow.close()


def test_an_llm_stage_for_a_character_not_built_is_a_config_error(project, tmp_path):
    proj = copy_project(project, tmp_path / "cfg")
    cfg = proj / "configs/pipeline.yaml"
    data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    data["profile"]["characters"] = ["rosalind", "hamlet"]
    cfg.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    one_line_error(cli(proj, "profile", "rosalind"), "configs/pipeline.yaml", "profile.characters: 'hamlet'")


def test_templates_fill_known_placeholders_leave_json_alone_and_name_unknown_ones(tmp_path):
    from extractors.errors import InputError
    from pipeline.profile import load_templates, render

    assert render('{name} answers {"a": 1}', {"name": "Rosalind"}, "t.txt") == 'Rosalind answers {"a": 1}'
    with pytest.raises(InputError, match=r"t.txt: unknown placeholder \{nmae\} \(known: name\)"):
        render("{nmae}", {"name": "x"}, "t.txt")
    with pytest.raises(InputError, match="no prompt template"):
        load_templates(tmp_path, "profile")

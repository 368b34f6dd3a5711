"""The studio's front door through its ASGI app (Starlette's TestClient): a novel excerpt uploaded and registered
under data/raw/ with a safe name (the plain multipart form: its CSRF token a field, no script), a path on the
machine registered, refusals as one line (too large, no file, no or a wrong CSRF token); an episode's voices found
in the background, heard and named; the cast table and two picked members drafted (and only those); a character edited with the
terminal's checks; a build started in the background with its progress in the status file (one at a time, a
failure as one line); the package zip and the ChatHaruhi role file of a built character."""

from __future__ import annotations

import html
import io
import json
import re
import shutil
import threading
import time
import zipfile
from pathlib import Path

import pytest
import yaml

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from starlette.testclient import TestClient  # noqa: E402

from extractors.characters import load_characters  # noqa: E402
from extractors.records import Line, read_lines  # noqa: E402
from pipeline.batch import BatchFailed  # noqa: E402
from pipeline.paths import Project  # noqa: E402
from pipeline.review import line_keys, read_review, review_path  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402
from pipeline.studio import builds  # noqa: E402
from pipeline.studio.app import make_app  # noqa: E402
from pipeline.studio.works_pages import safe_name  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
URL = "http://127.0.0.1:8765"


def empty_project(root: Path) -> Path:
    """The repository's settings with no works and no characters."""
    (root / "configs/characters").mkdir(parents=True)
    for d in ("prompts", "profiles"):
        shutil.copytree(REPO / "configs" / d, root / "configs" / d)
    cfg = yaml.safe_load((REPO / "configs/pipeline.yaml").read_text())
    cfg["works"], cfg["characters"] = {}, {}
    cfg.pop("voices", None)
    cfg.pop("seasons", None)
    (root / "configs/pipeline.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return root


ALICE = (REPO / "data/samples/alice29.txt").read_text(encoding="utf-8")[:25000]


@pytest.fixture()
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("ROLECORPUS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    root = empty_project(tmp_path / "proj")
    c = TestClient(make_app(Project(root)), base_url=URL)
    c.root = root
    return c


def token(client) -> str:
    return re.search(r'name="csrftoken" value="([^"]+)"', client.get("/works").text).group(1)


def upload(client, name: str, data: bytes, **fields):
    """As the plain HTML form sends it: multipart, the CSRF token its first field, no script, no header."""
    return client.post("/works", data={"csrftoken": token(client)} | fields, files={"file": (name, data)},
                       follow_redirects=True)


def one_line_error(resp, status: int, *needles: str) -> str:
    assert resp.status_code == status, (resp.status_code, resp.text[-600:])
    assert "Traceback" not in resp.text
    line = re.sub(r"<[^>]+>", "", re.search(r'class="error"[^>]*>(.*?)</div>', resp.text, re.S).group(1))
    assert "\n" not in line.strip()
    for n in needles:
        assert n in line, line
    return line


def works_of(root: Path) -> dict:
    return load_settings(root / "configs/pipeline.yaml").works


def test_safe_name_keeps_one_plain_name():
    assert safe_name("../../etc/My Novel (1).txt") == "My_Novel_1_.txt"
    assert safe_name("..\\..\\x.txt") == "x.txt"
    assert safe_name(".bashrc") == "bashrc"
    assert safe_name("") == "upload.txt"


def test_upload_a_novel_then_the_same_path_and_refusals(client, tmp_path, monkeypatch):
    root = client.root
    resp = upload(client, "../Alice excerpt.txt", ALICE.encode(), id="alice_ex", title="Alice, an excerpt")
    assert resp.status_code == 200 and "registered novel work &#39;alice_ex&#39;" in resp.text
    spec = works_of(root)["alice_ex"]
    assert spec.kind == "novel" and spec.input == "data/raw/Alice_excerpt.txt" and spec.language == "en"
    assert (root / spec.input).read_text(encoding="utf-8") == ALICE
    assert "Alice, an excerpt" in client.get("/works").text and "/works/alice_ex/cast" in client.get("/works").text
    # the same id for another source: the terminal's one line, nothing changed
    one_line_error(upload(client, "other.txt", b'"Hi," said Bob.\n', id="alice_ex"), 400, "already registered")
    assert list(works_of(root)) == ["alice_ex"] and not (root / "data/raw/other.txt").exists()
    # a path on this machine is copied into data/raw/ as `works add` does
    outside = tmp_path / "play.txt"
    outside.write_text((REPO / "data/samples/asyoulik.txt").read_text(encoding="utf-8")[:20000], encoding="utf-8")
    resp = client.post("/works", data={"csrftoken": token(client), "path": str(outside), "id": "play"})
    assert resp.status_code == 200, resp.text[-400:]
    assert works_of(root)["play"].kind == "script" and (root / "data/raw/play.txt").is_file()
    one_line_error(client.post("/works", data={"csrftoken": token(client), "path": str(tmp_path / "nope.txt")}),
                   400, "no such file")
    one_line_error(client.post("/works", data={"csrftoken": token(client)}), 400, "upload a file or name a path")
    monkeypatch.setenv("ROLECORPUS_MAX_TEXT_MB", "0.001")
    one_line_error(upload(client, "big.txt", b"x" * 5000), 400, "larger than")
    assert not (root / "data/raw/big.txt").exists() and "big" not in works_of(root)
    # no CSRF token: refused, nothing registered
    resp = client.post("/works", files={"file": ("x.txt", b'"Hi," said Bob.\n')}, headers={"x-csrftoken": "forged"})
    assert resp.status_code == 403 and len(works_of(root)) == 2 and not (root / "data/raw/x.txt").exists()


def test_a_plain_upload_form_passes_with_its_token_and_only_with_it(client):
    """The form without its script: multipart, the token a field before the file, no x-csrftoken header."""
    root, good, novel = client.root, token(client), b'"Hi," said Bob.\n'
    files = {"file": ("bob.txt", novel)}
    for form, headers in (({"csrftoken": good[:-2] + "xx", "id": "bad1"}, {}),  # a wrong token
                          ({"id": "bad2"}, {}),  # none
                          ({"csrftoken": good, "id": "bad3"}, {"x-csrftoken": "forged"}),  # a forged header wins
                          ({"csrftoken": good, "id": "bad4"}, {"Origin": "http://evil.example"})):
        resp = client.post("/works", data=form, files=files, headers=headers)
        assert resp.status_code == 403 and "Traceback" not in resp.text, (form, resp.status_code)
    # a cookie-less client (another site's form cannot read the token, curl has no cookie)
    fresh = TestClient(make_app(Project(root)), base_url=URL)
    assert fresh.post("/works", data={"csrftoken": good, "id": "bad5"}, files=files).status_code == 403
    # the file before the token: the upload is not read into memory to look for it
    body = (b'--B\r\nContent-Disposition: form-data; name="file"; filename="b.txt"\r\n\r\n' + novel +
            b'\r\n--B\r\nContent-Disposition: form-data; name="csrftoken"\r\n\r\n' + good.encode() + b"\r\n--B--\r\n")
    resp = client.post("/works", content=body, headers={"content-type": "multipart/form-data; boundary=B"})
    assert resp.status_code == 403
    assert works_of(root) == {} and not (root / "data/raw").exists()
    resp = client.post("/works", data={"csrftoken": good, "id": "bob"}, files=files, follow_redirects=False)
    assert resp.status_code in (200, 303), resp.text[-400:]
    assert list(works_of(root)) == ["bob"] and (root / "data/raw/bob.txt").read_bytes() == novel
    # the header alone (a script's fetch) still passes
    resp = client.post("/works", data={"id": "bob2"}, files={"file": ("bob2.txt", novel)},
                       headers={"x-csrftoken": good})
    assert resp.status_code in (200, 303) and "bob2" in works_of(root)


def test_cast_draft_two_picked_then_edit(client):
    root = client.root
    upload(client, "alice.txt", ALICE.encode(), id="alice_ex")
    page = client.get("/works/alice_ex/cast")
    assert page.status_code == 200
    picks = re.findall(r'name="pick" value="([^"]+)"', page.text)
    assert picks[:2] == ["alice", "the_mouse"] and len(picks) >= 3
    resp = client.post("/works/alice_ex/cast", data={"csrftoken": token(client), "pick": ["alice", "the_mouse"]},
                       follow_redirects=True)
    assert "drafted 2 character(s)" in resp.text
    assert set(load_characters(root / "configs")) == {"alice", "the_mouse"}
    links = load_settings(root / "configs/pipeline.yaml").characters
    assert links["alice"].works() == ["alice_ex"] and set(links) == {"alice", "the_mouse"}
    assert 'name="pick" value="alice"' not in client.get("/works/alice_ex/cast").text  # now configured: a link
    one_line_error(client.get("/works/nowhere/cast"), 404, "unknown work")
    # edit: aliases, narrator, gender and personality written; a name another character has is refused
    form = {"csrftoken": token(client), "name": "Alice", "aliases": "Miss Alice, Alice Liddell", "gender": "female",
            "narrator": "on", "personality": "Curious.", "works": "alice_ex"}
    resp = client.post("/characters/alice/edit", data=form, follow_redirects=True)
    assert resp.status_code == 200 and "saved configs/characters/alice.yaml" in resp.text
    alice = load_characters(root / "configs")["alice"]
    assert alice.aliases == ["Miss Alice", "Alice Liddell"] and alice.narrator and alice.personality == "Curious."
    one_line_error(client.post("/characters/the_mouse/edit", data={**form, "name": "The Mouse", "aliases": "Alice"}),
                   400, "alice")
    assert load_characters(root / "configs")["the_mouse"].aliases == ["Mouse"]
    one_line_error(client.post("/characters/alice/edit", data={**form, "works": ""}), 400, "at least one work")
    one_line_error(client.post("/characters/alice/edit", data={**form, "gender": "robot"}), 400, "male or female")


def wait_for(client, state: str, seconds: float = 120) -> dict:
    end = time.time() + seconds
    while time.time() < end:
        status = client.get("/build/status.json").json()
        if status["state"] == state:
            return status
        time.sleep(0.1)
    raise AssertionError(f"no {state} build: {status}")


def upload_episode(client) -> None:
    """The sample season's first episode (three voices, nine lines) with its unnamed subtitles, as the form sends it."""
    season = REPO / "data/samples/season"
    resp = client.post("/works", data={"csrftoken": token(client), "id": "ep1", "kind": "tv"},
                       files={"file": ("ep1.wav", (season / "ep1.wav").read_bytes()),
                              "subtitles": ("ep1.srt", (season / "ep1.srt").read_bytes())}, follow_redirects=True)
    assert resp.status_code == 200 and "registered tv work &#39;ep1&#39;" in resp.text, resp.text[-400:]
    assert "/works/ep1/cast" in resp.text


def fake_discovery(project, wid, progress):
    """Two voices over the episode's subtitle lines, as `speakers discover` writes them (no model to load)."""
    import numpy as np

    from extractors.tv import decode_audio, write_discovery
    from pipeline.studio.voices import voices_dir

    media = project.root / "data/raw/ep1.wav"
    lines = [Line(wid, "ep1.wav", "ep1", i, "dialogue", f"Line {i}.", start=2.0 * i, end=2.0 * i + 1.5,
                  extra={"media": str(media), "voice_cluster": f"voice_0{1 + i % 2}"}) for i in range(6)]
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(2, 192))
    E = np.stack([centres[i % 2] + 0.05 * rng.normal(size=192) for i in range(6)])
    progress(step="embed", done=6, total=6)
    audio = decode_audio(media)
    return write_discovery(voices_dir(project, wid), lines, E, np.arange(6), np.array([i % 2 for i in range(6)]),
                           lambda _: audio, "fake")


def wait_voices(client, wid: str, seconds: float = 300) -> dict:
    end = time.time() + seconds
    while time.time() < end:
        status = client.get(f"/works/{wid}/voices/status.json").json()
        if status["state"] in ("done", "failed"):
            return status
        time.sleep(0.2)
    raise AssertionError(f"the discovery did not finish: {status}")


def test_an_episodes_voices_found_heard_and_named(client, monkeypatch):
    from pipeline.studio import voices

    root = client.root
    monkeypatch.setattr(voices, "discover_work", fake_discovery)
    upload_episode(client)
    page = client.get("/works/ep1/cast")
    assert page.status_code == 200 and "Find the voices" in page.text and "<audio" not in page.text
    resp = client.post("/works/ep1/voices/discover", data={"csrftoken": token(client)}, follow_redirects=True)
    assert "finding the voices of ep1" in resp.text
    assert wait_voices(client, "ep1")["state"] == "done"
    page = client.get("/works/ep1/cast").text
    clips = re.findall(r'<audio controls preload="none" src="([^"]+)"', page)
    assert 'id="voice-voice_01"' in page and 'id="voice-voice_02"' in page and len(clips) == 6
    wav = client.get(clips[0])
    assert wav.status_code == 200 and wav.content[:4] == b"RIFF"
    for bad in ("../voices.json", "voice_09_1.wav", "model.json"):
        assert client.get(f"/works/ep1/voices/clips/{bad}").status_code in (400, 404)
    # a new character named after the voice: drafted, linked to the work; the work gets the voice model
    resp = client.post("/works/ep1/voices/name", data={"csrftoken": token(client), "cluster": "voice_01",
                                                       "new_name": "Mira Lane"}, follow_redirects=True)
    assert resp.status_code == 200 and "voice_01 = mira_lane: 3 lines named" in resp.text, resp.text[-600:]
    assert load_characters(root / "configs")["mira_lane"].name == "Mira Lane"
    settings = load_settings(root / "configs/pipeline.yaml")
    assert settings.characters["mira_lane"].works() == ["ep1"]
    assert settings.works["ep1"].options["speakers"] == "data/voices/ep1/model"
    assert (root / "data/voices/ep1/model").is_dir()
    meta = json.loads((root / "data/voices/ep1/voices.json").read_text())
    assert [v["character"] for v in meta["voices"]] == ["mira_lane", None]
    assert "named: <a href=\"/characters/mira_lane/edit\">" in client.get("/works/ep1/cast").text
    # an unknown cluster, or nobody chosen: one line
    one_line_error(client.post("/works/ep1/voices/name", data={"csrftoken": token(client), "cluster": "voice_07",
                                                               "character": "mira_lane"}), 400, "no cluster")
    one_line_error(client.post("/works/ep1/voices/name", data={"csrftoken": token(client), "cluster": "voice_02"}),
                   400, "choose a character")


@pytest.mark.slow
def test_an_episodes_voices_found_for_real(client):
    """`speakers discover` itself on the sample episode, started from the page: its three voices."""
    upload_episode(client)
    client.post("/works/ep1/voices/discover", data={"csrftoken": token(client)})
    status = wait_voices(client, "ep1")
    assert status["state"] == "done", status
    assert status["message"] == "found 3 voices"
    assert len(re.findall(r'<tr id="voice-', client.get("/works/ep1/cast").text)) == 3


def test_build_in_the_background_then_download(client, monkeypatch):
    root = client.root
    monkeypatch.setenv("ROLECORPUS_ROOT", str(root))  # chat's runtime finds the project as `rolecorpus chat` does
    upload(client, "alice.txt", ALICE.encode(), id="alice_ex")
    client.post("/works/alice_ex/cast", data={"csrftoken": token(client), "pick": ["alice", "the_mouse"]})
    one_line_error(client.get("/characters/alice/download.zip"), 400, "no package yet")
    resp = client.post("/build", data={"csrftoken": token(client), "target": ""}, follow_redirects=True)
    assert resp.status_code == 200 and "building everything registered" in resp.text
    status = wait_for(client, "done")
    assert status["step"] == "package" and status["done"] == status["total"] == 2 and status["error"] is None
    assert json.loads((Path(builds.status_path(Project(root)))).read_text())["state"] == "done"
    page = client.get("/build").text
    assert "/characters/alice/download.zip" in page and "/characters/the_mouse/role.jsonl" in page
    zipped = zipfile.ZipFile(io.BytesIO(client.get("/characters/alice/download.zip").content))
    names = set(zipped.namelist())
    assert {"alice/manifest.json", "alice/alice.jsonl", "alice/system_prompt.txt"} <= names
    role = client.get("/characters/alice/role.jsonl")
    assert role.status_code == 200 and role.content == (root / "data/characters/alice/alice.jsonl").read_bytes()
    assert "attachment" in role.headers["content-disposition"]
    one_line_error(client.get("/characters/nobody/role.jsonl"), 404, "unknown character")
    # chat: only packaged characters are offered; the transcript travels in the form and grows by two turns a send
    (root / "configs/characters/hatter.yaml").write_text("id: hatter\nname: The Hatter\nseries: Alice excerpt\n")
    chat = client.get("/chat/alice").text
    assert re.findall(r'<option value="([^"]+)"', chat) == ["alice", "the_mouse"]
    one_line_error(client.post("/chat/hatter", data={"csrftoken": token(client), "text": "Hi"}), 400, "no package")
    transcript = "[]"
    for n, said in enumerate(("Who are you?", "What is the use of a book?"), 1):
        resp = client.post("/chat/alice", data={"csrftoken": token(client), "text": said, "transcript": transcript})
        assert resp.status_code == 200, re.findall(r'class="error"[^>]*>(.*?)</div>', resp.text, re.S)
        transcript = html.unescape(re.search(r'name="transcript" value="([^"]*)"', resp.text).group(1))
        turns = json.loads(transcript)
        assert len(turns) == 2 * n and turns[-2] == ["User", said] and turns[-1][0] == "Alice" and turns[-1][1]
    assert resp.text.count('class="turn"') == 4
    one_line_error(client.post("/build", data={"csrftoken": token(client), "target": "nobody"}), 404, "unknown work")


def test_one_build_at_a_time_and_a_failure_is_one_line(client):
    project = Project(client.root)
    release, seen = threading.Event(), []

    class Engine:
        def map(self, method, items):
            for item in items:
                yield item, True, f"{method} {item} ok"

    def slow(project, targets, wrap):
        for _ in wrap(Engine()).map("extract", ["a.txt", "b.txt"]):
            seen.append(builds.read_status(project)["done"])
        release.wait(30)
        raise BatchFailed("1 failed: character x: not built:\n work(s) y failed")

    assert builds.start_build(project, [], build=slow)
    status = wait_for(client, "running")
    for _ in range(100):
        if seen == [1, 2]:
            break
        time.sleep(0.05)
    assert not builds.start_build(project, [], build=slow)
    resp = client.post("/build", data={"csrftoken": token(client)}, follow_redirects=True)
    assert "already running" in resp.text
    status = client.get("/build/status.json").json()
    assert (status["step"], status["done"], status["total"], status["item"]) == ("extract", 2, 2, "b.txt")
    release.set()
    status = wait_for(client, "failed")
    assert status["error"] == "1 failed: character x: not built: work(s) y failed"


# ---- end to end in Debian's chromium ----------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")


def _studio(root: Path, port: int):
    import os
    import subprocess
    import sys
    import urllib.request

    from cli_asserts import interruptible

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    env.update(PYTHONPATH=str(REPO), ROLECORPUS_ROOT=str(root), ROLECORPUS_CACHE=str(root / ".cache"),
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", OMP_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "studio", "--port", str(port)], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=interruptible)
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/static/studio.css", timeout=1)
            return proc
        except OSError:
            assert proc.poll() is None, proc.stdout.read()
            time.sleep(0.1)
    raise AssertionError("the studio did not start")


def _snap(page, name: str) -> None:
    """A full-page screenshot into $ROLECORPUS_SCREENSHOTS when set (to read the pages as a user would)."""
    import os

    if os.environ.get("ROLECORPUS_SCREENSHOTS"):
        folder = Path(os.environ["ROLECORPUS_SCREENSHOTS"])
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"front_{name}.png"), full_page=True)


@pytest.mark.slow
def test_from_a_novel_file_to_a_character_in_chromium(tmp_path):
    """Upload a novel excerpt and a play (the plain form) -> their casts -> two characters each -> edit one -> build
    with progress -> fix one doubtful line of the novel by a click on a speaker's name, applied by a rebuild -> chat
    -> download the package and the role file; SIGTERM then stops the studio with one line."""
    import signal
    import socket

    assert CHROMIUM.is_file(), "Debian's chromium is not installed (`make system` installs it)"
    from playwright.sync_api import sync_playwright

    root = empty_project(tmp_path / "proj")
    novel, play = tmp_path / "Alice excerpt.txt", tmp_path / "play.txt"
    novel.write_text(ALICE, encoding="utf-8")
    play.write_text((REPO / "data/samples/asyoulik.txt").read_text(encoding="utf-8")[:20000], encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc, url = _studio(root, port), f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
            page = browser.new_page(accept_downloads=True)
            page.goto(url + "/")
            page.click("header >> text=Works")
            for source, wid in ((novel, "alice_ex"), (play, "play")):
                page.set_input_files("#file", str(source))
                page.fill("#add-work input[name=id]", wid)
                with page.expect_navigation():
                    page.click("#add-work button[type=submit]")
                assert f"registered {'novel' if wid == 'alice_ex' else 'script'} work '{wid}'" in \
                    page.locator(".flash").inner_text()
                page.click(f"#works tr:has-text('{wid}') >> text=meet the cast")
                boxes = page.locator("input[name=pick]")
                assert boxes.count() >= 3
                _snap(page, f"cast_{wid}")
                boxes.nth(0).check()
                boxes.nth(1).check()
                with page.expect_navigation():
                    page.click("#draft")
                assert "drafted 2 character(s)" in page.locator(".flash").inner_text()
                page.click("header >> text=Works")
            assert set(load_characters(root / "configs")) >= {"alice", "the_mouse"}
            assert len(load_characters(root / "configs")) == 4
            page.click("#works a[href='/characters/alice/edit']")
            page.fill("textarea[name=personality]", "Curious and polite.")
            with page.expect_navigation():
                page.click("#edit-character button[type=submit]")
            assert "saved" in page.locator(".flash").inner_text()
            _snap(page, "edit")
            assert load_characters(root / "configs")["alice"].personality == "Curious and polite."
            page.click("header >> text=Build")
            with page.expect_navigation():
                page.click("#start-build button[type=submit]")
            page.wait_for_selector("#packaged >> text=the_mouse", timeout=180_000)
            assert page.locator("#build-state").inner_text() == "done"
            assert page.locator("#packaged tr").count() == 5
            _snap(page, "build_done")
            # fix one line: the works page -> the novel's review queue -> a click on the speaker's name
            page.click("header >> text=Works")
            page.click("#works a[href='/review?work=alice_ex']")
            key = page.locator("#decide input[name=key]").get_attribute("value")
            lines_file = root / "data/lines/alice_ex.jsonl"
            before = dict(zip(line_keys(read_lines(lines_file)), read_lines(lines_file)))[key]
            assert before.speaker != "alice" and before.evidence != "manual"
            assert before.text in page.locator("#item .context p.doubtful").inner_text()
            _snap(page, "review")
            with page.expect_navigation():
                page.click("#speakers button[value=alice]")
            assert "saved: character alice" in page.locator(".flash").inner_text()
            sources = load_settings(root / "configs/pipeline.yaml").sources
            assert read_review(review_path(root, sources, "alice_ex"))[key].speaker == "alice"
            # applied on the next build: the line is Alice's, decided by hand
            page.click("header >> text=Build")
            with page.expect_navigation():
                page.click("#start-build button[type=submit]")
            page.wait_for_function("document.getElementById('build-state').textContent === 'done'", timeout=180_000)
            after = dict(zip(line_keys(read_lines(lines_file)), read_lines(lines_file)))[key]
            assert (after.speaker, after.evidence, after.confidence) == ("alice", "manual", 1.0)
            with page.expect_download() as dl:
                page.click("#packaged tr:has-text('alice') >> text=package (zip)")
            names = zipfile.ZipFile(dl.value.path()).namelist()
            assert "alice/manifest.json" in names and "alice/alice.jsonl" in names
            with page.expect_download() as dl:
                page.click("#packaged tr:has-text('alice') >> text=ChatHaruhi role file")
            assert Path(dl.value.path()).read_bytes() == (root / "data/characters/alice/alice.jsonl").read_bytes()
            page.click("#packaged a[href='/chat/alice']")
            page.fill("input[name=text]", "What is the use of a book?")
            with page.expect_navigation():
                page.keyboard.press("Enter")
            assert "Best original line" in page.locator("#reply").inner_text()
            page.fill("input[name=text]", "Who are you?")
            with page.expect_navigation():
                page.keyboard.press("Enter")
            turns = page.locator("#transcript .turn").all_inner_texts()
            assert len(turns) == 4 and turns[0] == "User: What is the use of a book?" and turns[3].startswith("Alice:")
            _snap(page, "chat")
            # the same for the play's character: its package and role file, then a chat with a transcript
            page.click("header >> text=Build")
            with page.expect_download() as dl:
                page.click("#packaged tr:has-text('rosalind') >> text=package (zip)")
            assert "rosalind/manifest.json" in zipfile.ZipFile(dl.value.path()).namelist()
            with page.expect_download() as dl:
                page.click("#packaged tr:has-text('rosalind') >> text=ChatHaruhi role file")
            assert Path(dl.value.path()).read_bytes() == (root / "data/characters/rosalind/rosalind.jsonl").read_bytes()
            page.click("#packaged a[href='/chat/rosalind']")
            page.fill("input[name=text]", "Who are you in love with?")
            with page.expect_navigation():
                page.keyboard.press("Enter")
            turns = page.locator("#transcript .turn").all_inner_texts()
            assert len(turns) == 2 and turns[1].startswith("Rosalind: ") and "Rosalind:" not in turns[1][10:]
            assert "「" not in turns[1]  # the original line without the story's `Rosalind:「…」` markup
            _snap(page, "chat_play")
            browser.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=30)[0]
    assert out.strip().splitlines()[-1] == "studio stopped" and "interrupted" not in out, out

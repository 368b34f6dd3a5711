"""`rolecorpus studio` in a real headless Chromium (Debian's /usr/bin/chromium driven by Playwright): the sample
telephone episode built in a temporary project (voice model, subtitle and Whisper works, diane and sheila packaged),
five doubtful lines reviewed by keyboard, the review file and the rebuilt lines checked, every page screenshotted
and its charts checked drawn. Set ROLECORPUS_SCREENSHOTS=DIR to keep the screenshots in DIR."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

from cli_asserts import interruptible, one_line_error
from extractors.records import read_lines
from pipeline.review import line_keys, read_review

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _env(project: Path, extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return dict(env, **(extra or {}), PYTHONPATH=str(REPO), ROLECORPUS_CACHE=str(project / ".cache"), HF_HUB_OFFLINE="1",
                TRANSFORMERS_OFFLINE="1", OMP_NUM_THREADS="1", ROLECORPUS_ROOT=str(project))


def cli(project: Path, *args, ok: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=project, env=_env(project),
                       capture_output=True, text=True, timeout=600)
    if ok:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The telephone episode built as `dvc repro` would: voice model, both tv works, diane and sheila packaged."""
    dst = tmp_path_factory.mktemp("studio")
    shutil.copytree(REPO / "configs", dst / "configs")
    (dst / "data/samples").mkdir(parents=True)
    for f in ("sample.wav", "sample_named.srt", "telephone_voices.csv"):
        shutil.copy2(REPO / "data/samples" / f, dst / "data/samples" / f)
    cfg = yaml.safe_load((dst / "configs/pipeline.yaml").read_text())
    cfg["works"] = {w: cfg["works"][w] for w in ("telephone", "telephone_asr")}
    cfg["characters"] = {"diane": {"work": ["telephone", "telephone_asr"]}, "sheila": {"work": "telephone"}}
    (dst / "configs/pipeline.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    cli(dst, "speakers", "train", "data/samples/telephone_voices.csv", "-o", "data/samples/speakers/telephone")
    for work in ("telephone", "telephone_asr"):
        cli(dst, "build-lines", work)
    for cid in ("diane", "sheila"):
        for stage in (("segment", "--character", cid), ("embed", cid), ("package", cid)):
            cli(dst, *stage)
    # an emotions file as `rolecorpus annotate emotions diane` writes it, for the emotions chart
    rows = [{"work": ln.work, "unit": ln.unit, "index": ln.index, "text": ln.text, "emotion": emo}
            for ln, emo in zip([x for x in read_lines(dst / "data/lines/telephone.jsonl") if x.speaker == "diane"],
                               ["Surprise", "Happiness", "Neutral", "Neutral", "Excitement", "Neutral", "Happiness"])]
    (dst / "data/emotions").mkdir(parents=True)
    (dst / "data/emotions/diane.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return dst


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(project: Path, port: int, env: dict | None = None) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "studio", "--port", str(port)], cwd=project,
                            env=_env(project, env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=interruptible)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/static/studio.css", timeout=1)
            return proc
        except OSError:
            assert proc.poll() is None, proc.stdout.read()
            time.sleep(0.1)
    raise AssertionError("the studio did not start")


@pytest.fixture(scope="module")
def server(project):
    port = _free_port()
    state = {"proc": _start(project, port), "url": f"http://127.0.0.1:{port}", "port": port}
    yield state
    state["proc"].send_signal(signal.SIGINT)
    state["proc"].wait(timeout=20)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    assert CHROMIUM.is_file(), "Debian's chromium is not installed (`make system` installs it)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(str(tmp_path_factory.mktemp("chromium-profile")),
                                                    executable_path=str(CHROMIUM), headless=True, args=ARGS,
                                                    viewport={"width": 1280, "height": 900})
        yield ctx
        ctx.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> list[Path]:
    folders = [tmp_path_factory.mktemp("screenshots")]
    if os.environ.get("ROLECORPUS_SCREENSHOTS"):
        folders.append(Path(os.environ["ROLECORPUS_SCREENSHOTS"]))
        folders[-1].mkdir(parents=True, exist_ok=True)
    return folders


def snap(page, shots: list[Path], name: str) -> None:
    data = page.screenshot(full_page=True)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    for folder in shots:
        (folder / f"{name}.png").write_bytes(data)


def charts_drawn(page) -> list[tuple[str, int, float]]:
    """(caption, bars drawn, widest bar in pixels) of each chart on the page."""
    return page.eval_on_selector_all("figure.chart", """figs => figs.map(f => [
        f.querySelector('figcaption').textContent,
        f.querySelectorAll('svg rect.bar').length,
        Math.max(0, ...Array.from(f.querySelectorAll('svg rect.bar')).map(r => r.getBoundingClientRect().width))])""")


def test_characters_and_the_report_page_draw_every_chart(server, browser, shots, project):
    page = browser.new_page()
    page.goto(server["url"] + "/")
    assert page.locator("h1").inner_text() == "Characters"
    row = page.locator("#characters tr", has_text="diane").first.inner_text()
    assert "packaged" in row and "use_multilingual_v3" in row and "telephone, telephone_asr" in row
    assert "linked to no work" in page.locator("#characters tr", has_text="rosalind").first.inner_text()
    snap(page, shots, "1_characters")

    page.click("text=diane")
    assert page.locator("h1").inner_text() == "Diane: corpus at a glance"
    drawn = {cap: (bars, width) for cap, bars, width in charts_drawn(page)}
    assert set(drawn) == {"Lines by source", "Lines by evidence (how the speaker was found)",
                          "Speaker confidence of the lines", "Stories by length",
                          "Who they answer most (in the stories)", "Emotions of the lines"}
    assert all(bars > 0 and width > 10 for bars, width in drawn.values()), drawn
    assert drawn["Lines by source"][0] == 2 and drawn["Emotions of the lines"][0] == 4
    assert "sheila" in page.locator("figure", has_text="Who they answer most").inner_text()
    snap(page, shots, "2_report_diane")

    out = project / "reports" / "diane.html"
    assert "wrote" in cli(project, "report", "diane", "-o", str(out)).stdout
    html = out.read_text()
    assert "<script" not in html and "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    page.goto(out.as_uri())
    assert len(charts_drawn(page)) == 6 and all(b > 0 for _, b, _ in charts_drawn(page))
    snap(page, shots, "3_report_static")
    page.close()


def _current(page) -> dict:
    form = page.locator("#decide")
    return {"key": form.locator("input[name=key]").get_attribute("value"),
            "proposal": form.get_attribute("data-proposal") or None,
            "text": page.locator(".context p.doubtful").inner_text()}


def test_review_five_lines_by_keyboard_then_rebuild(server, browser, shots, project):
    page = browser.new_page()
    page.goto(server["url"] + "/review?work=telephone_asr")
    assert page.locator("h1").inner_text() == "Review doubtful lines"
    before = page.locator("#queue tr").count() - 1
    assert before >= 5
    first = _current(page)
    clip = page.locator("audio#clip").get_attribute("src")
    page.wait_for_function("document.querySelector('audio#clip').readyState >= 1")  # the clip loaded
    assert 0 < page.evaluate("document.querySelector('audio#clip').duration") < 10
    snap(page, shots, "4_review")
    # the player plays exactly that line's stretch of the episode
    import soundfile as sf

    lines = read_lines(project / "data/lines/telephone_asr.jsonl")
    line = dict(zip(line_keys(lines), lines))[first["key"]]
    audio, rate = sf.read(io.BytesIO(page.request.get(server["url"] + clip).body()))
    assert abs(len(audio) / rate - (line.end - line.start)) < 2 / rate

    plan = [("a", "accept"), ("2", "character"), ("n", "nobody"), ("s", "skip"), ("1", "character")]
    seen = []
    for key, _ in plan:
        seen.append(_current(page))
        with page.expect_navigation():
            page.keyboard.press(key)
        assert "saved:" in page.locator(".flash").first.inner_text()
        assert page.url.endswith("work=telephone_asr") or "work=telephone_asr&" in page.url  # still this work
    assert page.locator("#queue tr").count() - 1 == before - 5

    # a crash of the studio loses nothing: every decision is on disk the moment it is made
    server["proc"].kill()
    server["proc"].wait(timeout=10)
    decisions = read_review(project / "data/samples/review/telephone_asr.jsonl")
    assert [d.key for d in decisions.values()] == [s["key"] for s in seen]
    assert [d.decision for d in decisions.values()] == [d for _, d in plan]
    assert [d.speaker for d in decisions.values()] == [seen[0]["proposal"], "sheila", None, None, "diane"]
    server["proc"] = _start(project, server["port"])

    cli(project, "build-lines", "telephone_asr")  # reruns the extractor: the decisions are applied, not lost
    rebuilt = dict(zip(line_keys(r := read_lines(project / "data/lines/telephone_asr.jsonl")), r))
    for s, d in zip(seen, decisions.values()):
        ln = rebuilt[s["key"]]
        if d.decision == "skip":
            assert ln.evidence != "manual"
        else:
            assert (ln.speaker, ln.evidence, ln.confidence) == (d.speaker, "manual", 1.0), (s, ln)
    page.goto(server["url"] + "/review?work=telephone_asr")
    assert page.locator("#queue tr").count() - 1 == before - 5
    assert page.locator("#decided tr").count() - 1 == 5
    page.close()


def test_stories_search_and_chat_without_llm(server, browser, shots):
    page = browser.new_page()
    page.goto(server["url"] + "/stories/diane?q=Chicago")
    assert page.locator("h1").inner_text() == "Stories of diane"
    assert page.locator("pre.story").count() >= 1 and "Chicago" in page.locator("pre.story").first.inner_text()
    assert set(page.locator("pre.story mark").all_inner_texts()) == {"Chicago"}
    snap(page, shots, "5_stories")
    page.goto(server["url"] + "/chat/diane")
    page.fill("input[name=text]", "Where are you from originally?")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    reply = page.locator("#reply").inner_text()
    assert "Best original line" in reply and "Chicago" in reply
    assert page.locator("pre.story").count() >= 1
    snap(page, shots, "6_chat")
    page.close()


def test_add_character_writes_what_add_character_writes(server, browser, project):
    page = browser.new_page()
    page.goto(server["url"] + "/")
    page.fill("#add-character input[name=id]", "hamlet")
    page.fill("#add-character input[name=name]", "Hamlet")
    page.select_option("#add-character select[name=work]", "telephone")
    page.fill("#add-character input[name=series]", "Hamlet, Prince of Denmark")
    page.fill("#add-character input[name=aliases]", "HAMLET, Ham.")
    with page.expect_navigation():
        page.click("#add-character button")
    assert "wrote configs/characters/hamlet.yaml, linked to telephone" in page.locator(".flash").inner_text()
    assert yaml.safe_load((project / "configs/pipeline.yaml").read_text())["characters"]["hamlet"] == {"work": "telephone"}
    assert page.locator("#characters tr", has_text="hamlet").count() == 1
    web = (project / "configs/characters/hamlet.yaml").read_text()
    (project / "configs/characters/hamlet.yaml").unlink()
    cli(project, "add-character", "hamlet", "--name", "Hamlet", "--work", "telephone", "--series",
        "Hamlet, Prince of Denmark", "--alias", "HAMLET", "--alias", "Ham.")
    assert web == (project / "configs/characters/hamlet.yaml").read_text()
    page.goto(server["url"] + "/")  # a second character of the series with the same name: refused, nothing written
    page.fill("#add-character input[name=id]", "hamlet2")
    page.fill("#add-character input[name=name]", "Hamlet")
    page.fill("#add-character input[name=series]", "Hamlet, Prince of Denmark")
    with page.expect_navigation():
        page.click("#add-character button")
    assert "a name may belong to one character only" in page.locator("#error").inner_text()
    assert not (project / "configs/characters/hamlet2.yaml").exists()
    page.goto(server["url"] + "/")
    page.fill("#add-character input[name=id]", "Bad Id!")  # refused with the CLI's message, nothing written
    page.fill("#add-character input[name=name]", "X")
    page.fill("#add-character input[name=series]", "Y")
    page.evaluate("document.querySelector('#add-character input[name=id]').removeAttribute('pattern')")
    with page.expect_navigation():
        page.click("#add-character button")
    assert "character id" in page.locator("#error").inner_text()
    page.close()


def test_bad_requests_say_what_is_wrong(server, browser, project, shots):
    page = browser.new_page()
    resp = page.goto(server["url"] + "/characters/nobody")
    assert resp.status == 404 and "unknown character id 'nobody'" in page.locator("#error").inner_text()
    snap(page, shots, "7_error")
    resp = page.goto(server["url"] + "/media?path=../../etc/passwd")
    assert resp.status == 400 and "outside the project" in page.locator("#error").inner_text()
    resp = page.goto(server["url"] + "/review?work=nowhere")
    assert resp.status == 404 and "unknown work 'nowhere'" in page.locator("#error").inner_text()
    page.close()
    one_line_error(cli(project, "report", "nobody", ok=False), "unknown character id 'nobody'")
    assert not (project / "reports/nobody.html").exists()
    busy = cli(project, "studio", "--port", str(server["port"]), ok=False)
    assert busy.returncode == 2 and busy.stdout == ""
    assert busy.stderr.strip() == (f"error: port {server['port']} on 127.0.0.1 is in use (another studio or server?); "
                                   "pick another with --port")


def test_chat_through_a_fake_llm_server(project, browser, shots):
    """With an OpenAI-compatible endpoint configured (a fake one on localhost), the studio answers with the LLM's
    reply, sends it the retrieved stories, and never shows the key."""
    from fake_llm_server import FakeLLMServer

    llm = FakeLLMServer(answer="Diane:「Chicago, originally. New Jersey now, though.」")
    port, key = _free_port(), "sk-fake-studio-key-7f3e"
    proc = _start(project, port, {"OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": key,
                                  "ROLECORPUS_LLM_MODEL": "fake-model"})
    try:
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/chat/diane")
        page.fill("input[name=text]", "Where are you from originally?")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.locator("#reply").inner_text() == "Diane: Chicago, originally. New Jersey now, though."
        sent = json.dumps(llm.requests[-1]["messages"], ensure_ascii=False)
        stories = page.locator("pre.story").all_inner_texts()
        assert stories and all(st.splitlines()[0] in sent for st in stories)
        assert "Where are you from originally?" in sent and key not in page.content()
        assert llm.auth[-1] == f"Bearer {key}"
        snap(page, shots, "8_chat_llm")
        page.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        llm.close()


def test_a_page_of_another_site_cannot_change_the_project(server, browser, project, shots):
    """A forged form (the user has the studio open, then a page of another site posts to it) and a rebound Host
    name are refused with a short page; nothing is written."""
    review = project / "data/samples/review/telephone_asr.jsonl"
    page = browser.new_page()
    page.goto(server["url"] + "/review?work=telephone_asr")  # the studio's cookie is set in this browser
    key = line_keys(read_lines(project / "data/lines/telephone_asr.jsonl"))[0]
    before = review.read_bytes() if review.exists() else b""
    evil = browser.new_page()
    evil.set_content(f"""<form method="post" action="{server['url']}/review" id="f">
        <input name="work" value="telephone_asr"><input name="key" value="{key}">
        <input name="decision" value="nobody"><input name="csrftoken" value="guessed"></form>""")
    with evil.expect_navigation() as nav:
        evil.evaluate("document.getElementById('f').submit()")
    assert nav.value.status == 403 and "another site" in evil.locator("#error").inner_text()
    snap(evil, shots, "9_forged_post_refused")
    # a script of the page itself, without the form's token
    status = page.evaluate("""async () => (await fetch('/review', {method: 'POST',
        headers: {'Content-Type': 'application/x-www-form-urlencoded'},
        body: 'work=telephone_asr&decision=skip&key=""" + key + """'})).status""")
    assert status == 403
    assert (review.read_bytes() if review.exists() else b"") == before
    req = urllib.request.Request(server["url"] + "/media?path=configs/pipeline.yaml", headers={"Host": "rebind.example"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 400 and b"works:" not in err.value.read()
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(server["url"] + "/media?path=.git/config", timeout=10)
    assert err.value.code == 400
    evil.close()
    page.close()


def test_served_beyond_the_loopback_it_warns_and_needs_its_token(project):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "studio", "--host", "0.0.0.0", "--port", str(port)],
                            cwd=project, env=_env(project), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    try:
        warning, address = proc.stderr.readline(), proc.stderr.readline()
        assert warning.startswith("warning: the studio is served on 0.0.0.0") and "token" in warning
        token = address.split("?token=")[1].split()[0]
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                urllib.request.urlopen(url + "/static/studio.css", timeout=1)
                raise AssertionError("served without its token")
            except urllib.error.HTTPError as e:
                assert e.code == 403
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read()
                time.sleep(0.1)
        with urllib.request.urlopen(f"{url}/?token={token}", timeout=10) as resp:
            assert resp.status == 200 and any("rolecorpus_studio_token=" in c for c in resp.headers.get_all("set-cookie"))
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)

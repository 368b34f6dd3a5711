"""The studio's guards (pipeline/studio/security.py) through its ASGI app: a forged cross-site POST, a POST without
the page's CSRF token, a rebound Host name, a file that is not a configured work's media, a malformed body and a
studio served beyond the loopback without its token are each refused with a short page, and nothing is written;
the studio's own pages, with their token, still change the project."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

pytest.importorskip("starlette")
pytest.importorskip("asgi_csrf")

from starlette.testclient import TestClient  # noqa: E402

from extractors.records import Line, write_lines  # noqa: E402
from pipeline.paths import Project  # noqa: E402
from pipeline.review import line_keys, read_review, review_path  # noqa: E402
from pipeline.studio.app import make_app  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
URL = "http://127.0.0.1:8765"


def small_project(root: Path, n_lines: int = 4) -> tuple[Path, list[str]]:
    """configs/ of the repository with one tv work (telephone_asr) whose lines are `n_lines` doubtful ones; returns
    the root and the lines' review keys."""
    shutil.copytree(REPO / "configs", root / "configs")
    cfg = yaml.safe_load((root / "configs/pipeline.yaml").read_text())
    cfg["works"] = {"telephone_asr": cfg["works"]["telephone_asr"]}
    cfg["characters"] = {"diane": {"work": "telephone_asr"}}
    cfg.pop("voices", None)
    cfg.pop("seasons", None)
    (root / "configs/pipeline.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    (root / "data/samples").mkdir(parents=True)
    shutil.copy2(REPO / "data/samples/sample.wav", root / "data/samples/sample.wav")
    (root / "data/samples/sample.srt").write_text("1\n00:00:01,000 --> 00:00:02,000\nHi.\n")
    (root / "data/samples/notes.txt").write_text("not named by any config\n")
    (root / ".git").mkdir()
    (root / ".git/config").write_text("[remote]\nurl = secret\n")
    lines = [Line("telephone_asr", "sample.wav", "sample", i, "dialogue", f"Line number {i}.", None, None,
                  float(i), i + 0.5, 0.3, None) for i in range(n_lines)]
    write_lines(root / "data/lines/telephone_asr.jsonl", lines)
    return root, line_keys(lines)


@pytest.fixture()
def project(tmp_path):
    return small_project(tmp_path)


def token_of(resp) -> str:
    return re.search(r'name="csrftoken" value="([^"]+)"', resp.text).group(1)


def decision(key: str, token: str | None = None) -> dict:
    form = {"work": "telephone_asr", "key": key, "decision": "character", "speaker": "diane"}
    return form | ({"csrftoken": token} if token else {})


def decided(root: Path) -> dict:
    return read_review(review_path(root, "data/samples", "telephone_asr"))


def refused(resp, status: int, *needles: str) -> None:
    assert resp.status_code == status, (resp.status_code, resp.text[-500:])
    assert "Traceback" not in resp.text and len(resp.text) < 20_000
    for n in needles:
        assert n in resp.text, resp.text[-800:]


def test_the_pages_own_token_decides_and_forgeries_are_refused(project):
    root, keys = project
    client = TestClient(make_app(Project(root)), base_url=URL)
    token = token_of(client.get("/review"))
    # a cross-site form (the browser sends its Origin, and the cookie, but cannot read the page's token)
    refused(client.post("/review", data=decision(keys[0]), headers={"Origin": "http://evil.example"}), 403,
            "another site")
    refused(client.post("/review", data=decision(keys[0], token), headers={"Sec-Fetch-Site": "cross-site"}), 403)
    refused(client.post("/review", data=decision(keys[0], token), headers={"Origin": "http://127.0.0.1:9999"}), 403)
    # no token, a wrong one, a token in a JSON body, and curl with no cookie at all
    refused(client.post("/review", data=decision(keys[0])), 403, "CSRF token")
    refused(client.post("/review", data=decision(keys[0], token[:-2] + "xx")), 403, "CSRF token")
    refused(client.post("/review", json=decision(keys[0], token)), 403)
    refused(TestClient(make_app(Project(root)), base_url=URL).post("/review", data=decision(keys[0], token)), 403)
    refused(client.post("/characters", data={"id": "mallory", "name": "M", "series": "S"}), 403)
    refused(client.post("/chat/diane", data={"text": "hi"}), 403)
    assert decided(root) == {} and not (root / "configs/characters/mallory.yaml").exists()
    # the page's own form: same origin, its token
    resp = client.post("/review", data=decision(keys[0], token), headers={"Origin": URL}, follow_redirects=False)
    assert resp.status_code == 303, resp.text[-500:]
    assert decided(root)[keys[0]].speaker == "diane"


def test_malformed_bodies_answer_400_not_a_traceback(project):
    root, _ = project
    client = TestClient(make_app(Project(root)), base_url=URL)
    client.get("/")
    refused(client.post("/review", content=b"--x\r\n", headers={"content-type": "multipart/form-data"}), 400)
    refused(client.post("/review", content=b"csrftoken=\xff\xfe",
                        headers={"content-type": "application/x-www-form-urlencoded"}), 400)


@pytest.mark.parametrize("host", ["attacker.example", "127.0.0.1.nip.io", "192.168.1.5"])
def test_a_rebound_host_name_is_refused(project, host):
    root, _ = project
    client = TestClient(make_app(Project(root)), base_url=f"http://{host}:8765")
    for path in ("/", "/media?path=.git/config", "/media?path=data/samples/sample.wav"):
        resp = client.get(path)
        assert resp.status_code == 400 and "secret" not in resp.text and "RIFF" not in resp.text


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]"])
def test_loopback_names_are_served(project, host):
    root, _ = project
    assert TestClient(make_app(Project(root)), base_url=f"http://{host}:8765").get("/").status_code == 200


def test_media_serves_only_the_configured_works_files(project):
    root, _ = project
    client = TestClient(make_app(Project(root)), base_url=URL)
    assert client.get("/media?path=data/samples/sample.wav").content[:4] == b"RIFF"
    assert client.get("/media?path=data/samples/sample.srt").text.startswith("1\n")  # companion of the input
    (root / "outside.wav").write_bytes(b"RIFF....")
    for path in (".git/config", "configs/pipeline.yaml", "configs/characters/diane.yaml", "data/samples/notes.txt",
                 "data/lines/telephone_asr.jsonl", "../outside.wav", "/etc/passwd", "data/samples/../../.git/config",
                 ".cache/rolecorpus/x.json", ""):
        resp = client.get("/media", params={"path": path})
        refused(resp, 400)
        assert "secret" not in resp.text and "diane" not in resp.text.split("error:")[0][-50:]
    # a link inside the sources folder to a file outside the project is not served either
    (root / "data/samples/link.wav").symlink_to("/etc/passwd")
    refused(client.get("/media", params={"path": "data/samples/link.wav"}), 400, "outside the project")


def test_beyond_the_loopback_every_request_needs_the_token(project):
    root, keys = project
    app = make_app(Project(root), token="s3cret-token", allowed_hosts=["*"])
    client = TestClient(app, base_url="http://studio.lan:8765")
    refused(client.get("/"), 403, "token")
    refused(client.get("/media?path=data/samples/sample.wav"), 403)
    refused(client.get("/?token=wrong"), 403)
    page = client.get("/review?token=s3cret-token")  # once in the address: then a cookie
    assert page.status_code == 200 and "rolecorpus_studio_token" in page.headers["set-cookie"]
    assert client.get("/characters/diane").status_code == 200
    resp = client.post("/review", data=decision(keys[1], token_of(page)), follow_redirects=False)
    assert resp.status_code == 303 and keys[1] in decided(root)


def test_studio_host_that_is_no_address_of_this_machine_is_one_line(project):
    import os
    import subprocess
    import sys

    from cli_asserts import one_line_error

    root, _ = project
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "studio", "--host", "203.0.113.7", "--port", "8799"],
                       cwd=root, env=dict(os.environ, PYTHONPATH=str(REPO), ROLECORPUS_ROOT=str(root)),
                       capture_output=True, text=True, timeout=60)
    one_line_error(r, "port 8799 on 203.0.113.7 cannot be used")

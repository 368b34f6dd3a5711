"""No decision lost: two studios (two apps, each answering from several threads) and two CLI-like processes decide
64 lines of one work at the same moment; the review file keeps all 64 (pipeline/review.py's file lock)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from test_safety_studio import URL, decided, decision, small_project, token_of

pytest.importorskip("starlette")
pytest.importorskip("asgi_csrf")

from starlette.testclient import TestClient  # noqa: E402

from pipeline.paths import Project  # noqa: E402
from pipeline.studio.app import make_app  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

CLI_WRITER = """
import os, sys, time
from pathlib import Path
from extractors.records import read_lines
from pipeline.review import line_keys, record, record_many, review_path
root, start, stop, go = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
lines = read_lines(root / "data/lines/telephone_asr.jsonl")
keys = line_keys(lines)
path = review_path(root, "data/samples", "telephone_asr")
while not go.exists():
    time.sleep(0.005)
for i in range(start, stop):
    if i % 2:
        record(path, keys[i], lines[i], "nobody")
    else:
        record_many(path, lines, [(i, None)])
"""


def test_two_studios_and_the_cli_keep_all_64_decisions(tmp_path):
    root, keys = small_project(tmp_path / "p", n_lines=64)
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    procs = [subprocess.Popen([sys.executable, "-c", CLI_WRITER, str(root), str(a), str(a + 16), str(go)], env=env,
                              stderr=subprocess.PIPE, text=True) for a in (32, 48)]
    studios = [make_app(Project(root)), make_app(Project(root))]
    errors: list = []

    def studio_user(app, mine: list[str]) -> None:
        try:
            client = TestClient(app, base_url=URL)
            token = token_of(client.get("/review"))
            while not go.exists():
                time.sleep(0.005)
            for key in mine:
                resp = client.post("/review", data=decision(key, token), follow_redirects=False)
                said = re.search(r'<div class="error" id="error">(.*?)</div>', resp.text, re.S)
                assert resp.status_code == 303, (resp.status_code, said.group(1) if said else resp.text[-300:],
                                                 sorted(client.cookies.keys()))
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    # studio 1 answers keys 0..15, studio 2 keys 16..31, four browser tabs (threads) each
    threads = [threading.Thread(target=studio_user, args=(studios[s], keys[16 * s + t:16 * s + 16:4]))
               for s in (0, 1) for t in range(4)]
    for th in threads:
        th.start()
    time.sleep(1.0)  # everyone waiting at the line
    go.touch()
    for th in threads:
        th.join(timeout=300)
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    assert not errors, errors
    kept = decided(root)
    assert set(kept) == set(keys) and len(kept) == 64
    assert all(kept[k].decision == "character" and kept[k].speaker == "diane" for k in keys[:32])
    assert all(kept[k].decision == "nobody" for k in keys[32:])
    # the lock file sits beside the review file, hidden; nothing else was left there
    assert sorted(p.name for p in (root / "data/samples/review").iterdir()) == [".telephone_asr.jsonl.lock",
                                                                              "telephone_asr.jsonl"]


def test_first_requests_from_several_threads_share_one_csrf_guard(tmp_path, monkeypatch):
    """Six browser tabs (threads) open a fresh studio at the same moment: one CSRF guard answers them all, so each
    gets the same cookie name and a form drawn for one is accepted by the guard that checks the next. (Starlette
    builds its middleware on the first request; built from several threads at once, each had a guard of its own.)"""
    from starlette.applications import Starlette

    build = Starlette.build_middleware_stack

    def slow_build(self):  # widens the window in which first requests would each build the guards
        time.sleep(0.05)
        return build(self)

    monkeypatch.setattr(Starlette, "build_middleware_stack", slow_build)
    root, keys = small_project(tmp_path / "p", n_lines=4)
    app = make_app(Project(root))
    names, barrier = [], threading.Barrier(6)

    def first_visit():
        client = TestClient(app, base_url=URL)
        barrier.wait()
        client.get("/review")
        names.append(tuple(sorted(k for k in client.cookies.keys() if k.startswith("rolecorpus_csrf"))))

    tabs = [threading.Thread(target=first_visit) for _ in range(6)]
    for t in tabs:
        t.start()
    for t in tabs:
        t.join(timeout=60)
    assert len(names) == 6 and len(set(names)) == 1 and names[0], names

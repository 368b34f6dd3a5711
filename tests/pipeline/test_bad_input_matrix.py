"""The bad-input matrix (issue 9): hostile or careless input through the real CLI (`python -m pipeline.cli`).

Every bad case must end in exactly one `error:` line naming the file (and row) or the argument, exit code 2,
no traceback, no secret, and no file written anywhere (the project, the folder `-o` points into, the temp
folder a path traversal aims at). The good cases in other encodings must succeed with the right characters.
The LLM cases use the fake OpenAI-compatible server on localhost (tests/support/fake_llm_server.py) answering 401 and
echoing the key (plumbing only); the text cases use the committed samples (As You Like It, Alice) and real French
text.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cli_asserts import interruptible, one_line_error
from fake_llm_server import FakeLLMServer

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "data" / "samples"
SECRET = "sk-proj-matrixSECRET0123456789abcdef"
FRENCH = ("ROSALINDE: Où êtes-vous allé ? Je suis très fâchée.\nORLANDO: Là-bas, près de la forêt, où l'été dure.\n"
          "ROSALINDE: Ça ne fait rien ; à demain, mon ami.\nORLANDO: Très bien, à demain.\n")
NOVEL_FR = ('"Où êtes-vous allé ?" demanda Rosalinde.\n\n"Là-bas, près de la forêt," répondit Orlando.\n\n'
            '"Très bien," dit Rosalinde. "À demain."\n\n"À demain, ma chère," dit Orlando.\n\n')


def run(project: Path, *args, env_extra=None, stdin=None):
    env = dict(os.environ, ROLECORPUS_ROOT=str(project), ROLECORPUS_CACHE=str(project / ".cache"),
               ROLECORPUS_LOG_DIR=str(project.parent / f"{project.name}-logs"))
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ROLECORPUS_LLM_MODEL", "OPENAI_MODEL"):
        env.pop(k, None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=project, env=env, capture_output=True,
                          input=stdin, timeout=600, text=True, errors="replace")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("matrix")
    (root / "configs").mkdir()
    (root / "configs" / "pipeline.yaml").write_text((REPO / "configs" / "pipeline.yaml").read_text())
    lines = root / "data" / "lines" / "asyoulik.jsonl"
    for step in [("add-character", "rosalind", "--name", "Rosalind", "--series", "As You Like It", "--alias", "ROSALIND"),
                 ("extract", "script", str(SAMPLES / "asyoulik.txt"), "--work", "asyoulik", "-o", str(lines)),
                 ("segment", str(lines), "--character", "rosalind"), ("embed", "rosalind"), ("package", "rosalind")]:
        p = run(root, *step)
        assert p.returncode == 0, p.stderr
    return root


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def snapshot(*roots: Path) -> dict:
    out = {}
    for root in roots:
        if root.exists():
            for p in root.rglob("*"):
                if p.is_file():
                    st = p.stat()
                    out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


# ---- the cases: (id, setup(work) -> (argv, env_extra, stdin), needles in the error line) ----

def _write(work: Path, name: str, data: bytes | str) -> Path:
    p = work / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return p


PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + bytes(64)
WAV_CORRUPT = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00" + os.urandom(400)
MKV_CORRUPT = bytes.fromhex("1a45dfa3") + os.urandom(600)
GOOD_ROW = {"work": "w", "source": "s.txt", "unit": "1", "index": 0, "kind": "dialogue", "text": "Hi", "speaker": "rosalind"}


def _lines_file(work: Path, rows: list, name: str = "bad.jsonl") -> Path:
    return _write(work, name, "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))


def _extract(kind, src, *more, work_id="w", out=None):
    return ["extract", kind, str(src), "--work", work_id, "-o", str(out or "OUT/lines.jsonl"), *more]


CASES = {
    # source files
    "script-empty": (lambda w: _extract("script", _write(w, "e.txt", "")), ["e.txt", "empty"]),
    "script-blank": (lambda w: _extract("script", _write(w, "b.txt", "\n \n\t\n")), ["b.txt", "empty"]),
    "script-binary": (lambda w: _extract("script", _write(w, "bin.txt", os.urandom(2000) + bytes(100))), ["bin.txt"]),
    "script-image": (lambda w: _extract("script", _write(w, "pic.png", PNG)), ["pic.png", "binary"]),
    "script-missing": (lambda w: _extract("script", w / "nope.txt"), ["nope.txt", "no such file"]),
    "script-directory": (lambda w: _extract("script", w), ["directory"]),
    "script-no-lines": (lambda w: _extract("script", _write(w, "prose.txt", "Just prose, nobody speaks here.\n")), ["prose.txt"]),
    "script-dev-zero": (lambda w: _extract("script", Path("/dev/zero")), ["/dev/zero", "not a regular file"]),
    "script-fifo": (lambda w: (os.mkfifo(w / "pipe.txt"), _extract("script", w / "pipe.txt"))[1], ["pipe.txt", "regular"]),
    "script-bad-encoding-name": (lambda w: _extract("script", SAMPLES / "asyoulik.txt", "--encoding", "bogus"),
                                 ["asyoulik.txt", "bogus"]),
    "wiki-empty": (lambda w: _extract("wiki", _write(w, "q.html", "")), ["q.html", "empty"]),
    "wiki-image": (lambda w: _extract("wiki", _write(w, "q.png", PNG)), ["q.png"]),
    "novel-binary": (lambda w: _extract("novel", _write(w, "n.txt", bytes(range(256)) * 20)), ["n.txt"]),
    "novel-50mb": (lambda w: _extract("novel", _write(w, "big.txt", ("She said, “Hello there.” " * 40 + "\n\n") * 52000)),
                   ["big.txt", "MB"]),
    "wiki-50mb": (lambda w: _extract("wiki", _write(w, "big.html", "<p>“Hi.” — Rosalind</p>\n" * 2_200_000)), ["big.html", "MB"]),
    "tv-corrupt-audio": (lambda w: _extract("tv", _write(w, "ep.wav", WAV_CORRUPT)), ["ep.wav"]),
    "tv-corrupt-video": (lambda w: _extract("tv", _write(w, "ep.mkv", MKV_CORRUPT)), ["ep.mkv"]),
    "tv-broken-subtitles": (lambda w: _extract("tv", SAMPLES / "sample.wav", "--subtitles",
                                               str(_write(w, "bad.srt", "1\nnot a timing\nHello\n\n2\n00:00:0x --> zz\nHi\n")),
                                               "--language", "en"), ["bad.srt"]),
    "tv-binary-subtitles": (lambda w: _extract("tv", SAMPLES / "sample.wav", "--subtitles",
                                               str(_write(w, "bin.srt", PNG)), "--language", "en"), ["bin.srt"]),
    # identifiers that become paths
    "work-traversal": (lambda w: _extract("script", SAMPLES / "asyoulik.txt", work_id="a/../../../../tmp/x"), ["--work"]),
    "work-empty": (lambda w: _extract("script", SAMPLES / "asyoulik.txt", work_id=""), ["--work", "empty"]),
    "work-newline": (lambda w: _extract("script", SAMPLES / "asyoulik.txt", work_id="evil\n"), ["--work"]),
    "work-300-chars": (lambda w: _extract("script", SAMPLES / "asyoulik.txt", work_id="w" * 300), ["--work", "longer"]),
    "work-dots": (lambda w: _extract("script", SAMPLES / "asyoulik.txt", work_id=".."), ["--work"]),
    "add-character-newline": (lambda w: ["add-character", "evil\n", "--name", "E", "--series", "S"], ["character id"]),
    "add-character-300": (lambda w: ["add-character", "x" * 300, "--name", "E", "--series", "S"], ["character id", "longer"]),
    "add-character-traversal": (lambda w: ["add-character", "../../etc/evil", "--name", "E", "--series", "S"], ["character id"]),
    "add-character-empty": (lambda w: ["add-character", "", "--name", "E", "--series", "S"], ["character id", "empty"]),
    "discover-work-traversal": (lambda w: ["characters", "discover", str(SAMPLES / "alice29.txt"), "--work", "../x",
                                           "--write"], ["--work"]),
    "package-traversal": (lambda w: ["package", "../../x"], ["character id"]),
    "embed-unknown": (lambda w: ["embed", "nobody"], ["nobody"]),
    "ask-unknown": (lambda w: ["ask", "nobody", "hello"], ["nobody"]),
    # outputs
    "output-is-directory": (lambda w: _extract("script", SAMPLES / "asyoulik.txt", out=w), ["-o", "directory"]),
    "output-under-a-file": (lambda w: _extract("script", SAMPLES / "asyoulik.txt",
                                               out=_write(w, "afile", "x") / "lines.jsonl"), ["-o"]),
    "output-is-the-source": (lambda w: _extract("script", _write(w, "play.txt", FRENCH), out=w / "play.txt"),
                             ["play.txt", "source"]),
    "segment-output-directory": (lambda w: ["segment", str(_lines_file(w, [GOOD_ROW])), "-c", "rosalind", "-o", str(w)],
                                 ["-o", "directory"]),
    # lines files
    "lines-latin1": (lambda w: ["segment", str(_write(w, "l1.jsonl", json.dumps(GOOD_ROW | {"text": "très"},
                                                                             ensure_ascii=False).encode("latin-1") + b"\n")),
                                "-c", "rosalind"], ["l1.jsonl", "row 1", "UTF-8"]),
    "lines-binary": (lambda w: ["segment", str(_write(w, "lb.jsonl", PNG)), "-c", "rosalind"], ["lb.jsonl", "row 1"]),
    "lines-extra-string": (lambda w: ["segment", str(_lines_file(w, [GOOD_ROW, GOOD_ROW | {"index": 1, "extra": "x"}])),
                                      "-c", "rosalind"], ["bad.jsonl", "row 2", "extra"]),
    "lines-work-null": (lambda w: ["segment", str(_lines_file(w, [GOOD_ROW | {"work": None}])), "-c", "rosalind"],
                        ["bad.jsonl", "row 1", "work"]),
    "lines-bad-json": (lambda w: ["segment", str(_lines_file(w, [GOOD_ROW, "{not json"])), "-c", "rosalind"],
                       ["bad.jsonl", "row 2", "JSON"]),
    "lines-index-decreasing": (lambda w: ["segment", str(_lines_file(w, [GOOD_ROW | {"index": 3}, GOOD_ROW | {"index": 1}])),
                                          "-c", "rosalind"], ["bad.jsonl", "row 2", "index"]),
    "lines-bad-kind": (lambda w: ["segment", str(_lines_file(w, [GOOD_ROW | {"kind": "song"}])), "-c", "rosalind"],
                       ["bad.jsonl", "row 1", "kind"]),
    "lines-deep-json": (lambda w: ["segment", str(_lines_file(w, ['{"a":' * 100000 + "1" + "}" * 100000])),
                                   "-c", "rosalind"], ["bad.jsonl", "row 1", "deep"]),
    "lines-empty": (lambda w: ["segment", str(_write(w, "none.jsonl", "\n")), "-c", "rosalind"], ["none.jsonl"]),
    "lines-directory": (lambda w: ["segment", str(w), "-c", "rosalind"], ["directory"]),
    # arguments
    "ask-non-utf8": (lambda w: ["ask", "rosalind", "caf\udce9 ?"], ["UTF-8"]),
    "ask-empty": (lambda w: ["ask", "rosalind", "  "], ["empty"]),
    "usage-unknown-option": (lambda w: ["speakers", "train", "x.csv", "--labels", "y.csv"], ["--labels", "--help"]),
    "usage-missing-argument": (lambda w: ["ask", "rosalind"], ["text", "--help"]),
    "usage-not-a-number": (lambda w: _extract("novel", SAMPLES / "alice29.txt", "--min-confidence", "abc"),
                           ["--min-confidence"]),
    "usage-unknown-kind": (lambda w: ["extract", "manga", "x"], ["manga"]),
    "build-lines-unknown": (lambda w: ["build-lines", "nowork"], ["nowork"]),
    "eval-gold-missing": (lambda w: ["eval", "attribution", "--gold", str(w / "none")], ["none"]),
    # configuration files (in a project of their own)
    "config-character-latin1": (lambda w: _other_project(w, "characters/bad.yaml", "name: Très\nseries: S\n".encode("latin-1"),
                                                         ["ask", "bad", "hi"]), ["bad.yaml", "UTF-8"]),
    "config-character-bad-yaml": (lambda w: _other_project(w, "characters/bad.yaml", "name: [x\n", ["ask", "bad", "hi"]),
                                  ["bad.yaml", "YAML"]),
    "config-character-wrong-type": (lambda w: _other_project(w, "characters/bad.yaml", "name: B\nseries: S\naliases: 3\n",
                                                             ["ask", "bad", "hi"]), ["bad.yaml", "aliases"]),
    "config-pipeline-bad-yaml": (lambda w: _other_project(w, "pipeline.yaml", "segment: [\n", ["build-lines", "x"]),
                                 ["pipeline.yaml", "YAML"]),
    "config-pipeline-work-traversal": (lambda w: _other_project(w, "pipeline.yaml", "works:\n  ../x:\n    kind: script\n"
                                                                "    input: a.txt\n", ["build-lines", "../x"]),
                                       ["pipeline.yaml", "work id"]),
    "config-pipeline-unknown-key": (lambda w: _other_project(w, "pipeline.yaml", "segment:\n  bogus: 1\n",
                                                             ["build-lines", "x"]), ["pipeline.yaml", "bogus"]),
    # subtitles that are not a file one can read to the end (issue 9 b)
    "tv-subtitles-fifo": (lambda w: (os.mkfifo(w / "pipe.srt"), _tv_subs(w / "pipe.srt"))[1], ["pipe.srt", "regular"]),
    "tv-subtitles-dev-zero": (lambda w: _tv_subs(Path("/dev/zero")), ["/dev/zero", "not a regular file"]),
    "tv-subtitles-directory": (lambda w: _tv_subs((w / "subs.srt").mkdir() or w / "subs.srt"), ["subs.srt", "directory"]),
    "tv-subtitles-100mb": (lambda w: _tv_subs(_sparse(w / "huge.srt", 100_000_000)), ["huge.srt", "MB", "limit 8 MB"]),
    # stories files (issue 9 c): the error names the file and the row
    "stories-latin1": (lambda w: _stories_project(w, _story_row(text="très").encode("latin-1")), ["x.jsonl", "row 1", "UTF-8"]),
    "stories-bad-json": (lambda w: _stories_project(w, _story_row() + "\n{oops\n"), ["x.jsonl", "row 2", "JSON"]),
    "stories-missing-field": (lambda w: _stories_project(w, _story_row() + "\n" + _story_row(drop="text")),
                              ["x.jsonl", "row 2", "text"]),
    "stories-wrong-type": (lambda w: _stories_project(w, _story_row(tokens="many")), ["x.jsonl", "row 1", "tokens"]),
    "stories-unknown-field": (lambda w: _stories_project(w, _story_row(vector=[1])), ["x.jsonl", "row 1", "vector"]),
    "stories-binary": (lambda w: _stories_project(w, PNG), ["x.jsonl", "row 1"]),
    # the hunt (issue 9 e): links, configs that attack the parser, names that collide
    "input-symlink-loop": (lambda w: ((w / "loop.txt").symlink_to(w / "loop.txt"), _extract("script", w / "loop.txt"))[1],
                           ["loop.txt", "symbolic links"]),
    "input-dangling-symlink": (lambda w: ((w / "gone.txt").symlink_to(w / "nowhere.txt"), _extract("script", w / "gone.txt"))[1],
                               ["gone.txt", "no such file"]),
    "output-under-dangling-symlink": (lambda w: ((w / "d").symlink_to(w / "no-such-dir"),
                                                 _extract("script", SAMPLES / "asyoulik.txt", out=w / "d" / "o.jsonl"))[1],
                                      ["-o", "not a directory"]),
    "output-symlink-to-the-source": (lambda w: ((w / "o.jsonl").symlink_to(_write(w, "p.txt", FRENCH)),
                                                _extract("script", w / "p.txt", out=w / "o.jsonl"))[1], ["o.jsonl", "source"]),
    "lines-million-one-char-rows": (lambda w: ["segment", str(_write(w, "m.jsonl", "x\n" * 1_000_000)), "-c", "rosalind"],
                                    ["m.jsonl", "row 1", "JSON"]),
    "lines-nul-in-text-binary": (lambda w: ["segment", str(_write(w, "nul.jsonl", json.dumps(GOOD_ROW).encode() + b"\x00" * 64)),
                                            "-c", "rosalind"], ["nul.jsonl", "row 1"]),
    "script-nul-bytes": (lambda w: _extract("script", _write(w, "n.txt", FRENCH.encode() + b"\x00" * 40 + FRENCH.encode())),
                         ["n.txt", "binary"]),
    "config-pipeline-alias-bomb": (lambda w: _other_project(w, "pipeline.yaml", BOMB + "segment:\n  bogus: *h\n",
                                                            ["build-lines", "x"]), ["pipeline.yaml", "alias"]),
    "config-character-alias-bomb": (lambda w: _other_project(w, "characters/bob.yaml", "name: B\nseries: S\n" +
                                                             BOMB.replace("h: &h", "aliases: &h"), ["ask", "bob", "hi"]),
                                    ["bob.yaml", "alias"]),
    "config-character-self-alias": (lambda w: _other_project(w, "characters/bob.yaml", "name: B\nseries: S\naliases: &a [x, *a]\n",
                                                             ["ask", "bob", "hi"]), ["bob.yaml", "itself"]),
    "config-character-repeated-key": (lambda w: _other_project(w, "characters/bob.yaml", "name: A\nseries: S\nname: B\n",
                                                               ["ask", "bob", "hi"]), ["bob.yaml", "'name'", "twice"]),
    "config-pipeline-repeated-key": (lambda w: _other_project(w, "pipeline.yaml", "segment:\n  max_tokens: 5\nsegment: {}\n",
                                                              ["build-lines", "x"]), ["pipeline.yaml", "'segment'", "twice"]),
    "config-character-id-not-file-name": (lambda w: _other_project(w, "characters/evil.yaml",
                                                                   "id: ../../../tmp/x\nname: E\nseries: S\n", ["ask", "evil", "hi"]),
                                          ["evil.yaml", "file name"]),
    "config-character-alias-collision": (lambda w: _two_characters(w, "name: A\nseries: S\naliases: [Duke]\n",
                                                                   "name: B\nseries: S\naliases: [DUKE.]\n"),
                                         ["b.yaml", "a.yaml", "duke"]),
    "config-pipeline-huge": (lambda w: _other_project(w, "pipeline.yaml", "# " + "x" * 2_000_000 + "\n", ["build-lines", "x"]),
                             ["pipeline.yaml", "MB"]),
    "config-pipeline-work-input-directory": (lambda w: (_other_project(w, "pipeline.yaml", "works:\n  w:\n    kind: script\n"
                                                                       "    input: adir\n", ["build-lines", "w"]),
                                                        (w / "other" / "adir").mkdir())[0], ["adir", "directory"]),
}

# nine lines of YAML that are 10^8 strings once expanded (the "billion laughs")
BOMB = "".join(f"{k}: &{k} [{', '.join([f'*{p}'] * 10) if p else ', '.join(['lol'] * 10)}]\n"
               for p, k in zip(["", "a", "b", "c", "d", "e", "f", "g"], "abcdefgh"))


def _tv_subs(srt: Path) -> list[str]:
    return _extract("tv", SAMPLES / "sample.wav", "--subtitles", str(srt), "--language", "en")


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as fh:
        fh.truncate(size)
    return path


def _story_row(drop: str | None = None, **over) -> str:
    row = {"id": "x-0001", "character": "x", "work": "w", "source": "s.txt", "unit": "1", "first_index": 0,
           "last_index": 1, "tokens": 10, "speakers": ["a", "x"], "exchanges": 1, "text": "a:「hi」\nx:「hello」",
           "lines": []} | over
    row.pop(drop, None)
    return json.dumps(row, ensure_ascii=False)


def _stories_project(work: Path, data: bytes | str) -> tuple[list[str], dict]:
    """A project with character x whose data/stories/x.jsonl holds `data`: `embed x` reads it first."""
    argv, env = _other_project(work, "characters/x.yaml", "name: X\nseries: S\n", ["embed", "x"])
    _write(work / "other" / "data" / "stories", "x.jsonl", data)
    return argv, env


def _two_characters(work: Path, a: str, b: str) -> tuple[list[str], dict]:
    _write(work / "other" / "configs" / "characters", "a.yaml", a)
    play = _write(work, "play.txt", "DUKE: Hello there.\nA: Hi.\nDUKE: Goodbye now.\nB: Bye.\n")
    return _other_project(work, "characters/b.yaml", b, _extract("script", play))


def _other_project(work: Path, config: str, data: bytes | str, argv: list[str]) -> tuple[list[str], dict]:
    """A project whose configs/<config> holds `data`: the command runs there."""
    _write(work / "other" / "configs", config, data)
    return argv, {"ROLECORPUS_ROOT": str(work / "other")}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line_error_and_writes_nothing(project, tmp_path, case):
    setup, needles = CASES[case]
    work = tmp_path / "in"
    work.mkdir()
    argv, env_extra = setup(work), None
    if isinstance(argv, tuple):
        argv, env_extra = argv
    argv = [a.replace("OUT/", str(tmp_path / "out") + "/") for a in argv]
    outside = [Path(f"/tmp/x{ext}") for ext in ("", ".json", ".jsonl", ".yaml")]
    stat = lambda: {o: o.stat().st_mtime_ns for o in outside if o.exists()}  # noqa: E731
    before, before_outside = snapshot(project, tmp_path / "out"), stat()
    p = run(project, *argv, env_extra=env_extra)
    needles = list(needles) + ([str(work)] if case == "script-directory" else [])
    line = one_line_error(p, *needles)
    assert "Traceback" not in p.stderr and "unexpected" not in line, line
    assert snapshot(project, tmp_path / "out") == before, "a file was written"
    assert stat() == before_outside, "a file was written outside the project"
    assert not (tmp_path / "out").exists()


@pytest.fixture()
def echo_server():
    s = FakeLLMServer(fail_always=401)  # refuses every call and echoes the key it was sent, as careless servers do
    yield s
    s.close()


def _llm_env(base_url: str) -> dict:
    return {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": SECRET, "ROLECORPUS_LLM_MODEL": "m"}


def test_ask_401_fake_server_echoing_the_key_never_shows_it(project, echo_server):
    p = run(project, "ask", "rosalind", "Who are you?", env_extra=_llm_env(echo_server.base_url))
    line = one_line_error(p, "LLM")
    assert echo_server.calls >= 1
    assert SECRET not in p.stderr + p.stdout and SECRET[:12] not in line and SECRET[-6:] not in line


@pytest.mark.parametrize("endpoint", ["401-echo", "connection-refused"])
def test_embed_endpoint_failure_fake_server_is_one_line_without_the_key(project, echo_server, endpoint):
    url = echo_server.base_url if endpoint == "401-echo" else f"http://127.0.0.1:{_free_port()}/v1"
    before = snapshot(project)
    p = run(project, "embed", "rosalind", "--backend", "openai", "--model", "e",
            env_extra=_llm_env(url) | {"OPENAI_MAX_RETRIES": "0"})
    line = one_line_error(p, "embeddings endpoint")
    assert SECRET not in p.stderr + p.stdout and SECRET[-6:] not in line
    assert snapshot(project) == before


@pytest.mark.parametrize("endpoint", ["401-echo", pytest.param("connection-refused", marks=pytest.mark.slow)])
def test_novel_llm_failure_fake_server_leaves_no_metrics_no_key(project, tmp_path, echo_server, endpoint):
    url = echo_server.base_url if endpoint == "401-echo" else f"http://127.0.0.1:{_free_port()}/v1"
    novel = _write(tmp_path, "alice.txt", (SAMPLES / "alice29.txt").read_text(encoding="utf-8")[:30000])
    out = tmp_path / "out" / "alice.jsonl"
    before = snapshot(project)
    p = run(project, *_extract("novel", novel, "--llm", "openai", "--language", "en", work_id="alice", out=out),
            env_extra=_llm_env(url) | {"ROLECORPUS_CACHE": str(tmp_path / "cache")})
    line = one_line_error(p, "alice.txt", "LLM")
    assert SECRET not in p.stderr + p.stdout and SECRET[-6:] not in line
    assert snapshot(project) == before and not out.exists()
    assert not (project / "metrics" / "llm_alice.json").exists() and not (project / "metrics" / "novel_alice.json").exists()
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_unexpected_error_is_one_line_with_the_log_path(project, tmp_path):
    """Anything nobody foresaw still ends in one line that says where the traceback went; the log holds the
    traceback, scrubbed of the key. (A pipeline.yaml that is a directory was such a case; it is an input error
    now, so the fault is injected: a sitecustomize makes reading any config raise ZeroDivisionError.)"""
    proj = tmp_path / "p"
    (proj / "configs").mkdir(parents=True)
    (proj / "configs" / "pipeline.yaml").write_text("segment: {}\n")
    inject = _write(tmp_path / "inject", "sitecustomize.py",
                    "import os, extractors.yamlio as y\n"
                    "def boom(path):\n    raise ZeroDivisionError('key ' + os.environ['OPENAI_API_KEY'])\n"
                    "y.load_yaml = boom\n").parent
    env = {"OPENAI_API_KEY": SECRET, "PYTHONPATH": os.pathsep.join([str(inject), str(REPO), os.environ.get("PYTHONPATH", "")])}
    p = run(proj, "build-lines", "x", env_extra=env)
    line = one_line_error(p, "traceback in", "ZeroDivisionError")
    assert SECRET not in p.stderr
    log = Path(line.rsplit("traceback in ", 1)[1].rstrip(")"))
    text = log.read_text(encoding="utf-8")
    assert "Traceback" in text and SECRET not in text
    shutil.rmtree(log.parent, ignore_errors=True)


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_french_play_in_western_encodings_decodes_right(project, tmp_path, encoding):
    src = _write(tmp_path, "piece.txt", FRENCH.encode(encoding))
    out = tmp_path / "fr.jsonl"
    p = run(project, *_extract("script", src, work_id="piece", out=out))
    assert p.returncode == 0, p.stderr
    text = out.read_text(encoding="utf-8")
    assert "Où êtes-vous allé ? Je suis très fâchée." in text and "à demain, mon ami." in text
    assert "trčs" not in text and "Oů" not in text
    assert "read as cp1252" in p.stderr and "--encoding" in p.stderr
    (project / "metrics" / "script_piece.json").unlink()


def test_french_novel_in_latin1_decodes_right(project, tmp_path):
    src = _write(tmp_path, "roman.txt", NOVEL_FR.encode("latin-1"))
    out = tmp_path / "roman.jsonl"
    p = run(project, *_extract("novel", src, "--language", "en", work_id="roman", out=out))
    assert p.returncode == 0, p.stderr
    text = out.read_text(encoding="utf-8")
    assert "Très bien" in text and "Où êtes-vous allé" in text and "Oů" not in text
    (project / "metrics" / "novel_roman.json").unlink()


def test_french_subtitles_in_latin1_decode_right(tmp_path):
    from extractors.tv.subtitles import read_cues

    srt = _write(tmp_path, "fr.srt", "1\n00:00:01,000 --> 00:00:02,500\nOù êtes-vous ? Très bien.\n\n"
                 "2\n00:00:03,000 --> 00:00:04,000\nÀ demain, l'été.\n\n".encode("latin-1"))
    texts = " ".join(c.text for c in read_cues(srt))
    assert "Où êtes-vous ? Très bien." in texts and "À demain, l'été." in texts


@pytest.mark.parametrize("delay", [1.0, 5.0], ids=["while-starting", "mid-work"])
def test_ctrl_c_is_one_line_exit_130_and_leaves_nothing(project, tmp_path, delay):
    """Ctrl-C (SIGINT) during start-up and in the middle of a long `extract novel` (Alice repeated to 4 MB): one
    `interrupted` line, exit code 130, no traceback, no output, no metrics, no temporary file left behind."""
    import signal
    import time

    alice = (SAMPLES / "alice29.txt").read_text(encoding="utf-8")
    novel = _write(tmp_path, "big.txt", "\n\n".join([alice] * 27))
    out = tmp_path / "out" / "big.jsonl"
    before = snapshot(project)
    env = dict(os.environ, ROLECORPUS_ROOT=str(project), ROLECORPUS_CACHE=str(project / ".cache"))
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *_extract("novel", novel, "--language", "en",
                                                                             work_id="big", out=out)],
                            cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    time.sleep(delay)
    assert proc.poll() is None and not out.exists(), "the command ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, stderr)
    err = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("interrupted"), stderr
    assert "Traceback" not in stderr + stdout
    assert not out.exists() and not list(tmp_path.rglob("*.tmp")) and not list(project.rglob("*.tmp"))
    assert snapshot(project) == before, "a file was written in the project"


def test_bom_and_crlf_sources_lines_and_configs_are_read(tmp_path):
    """What Windows editors write (a UTF-8 BOM, CRLF line ends) in a play, a lines file, pipeline.yaml and a
    character file: read as the same text (a BOM on a lines file was a JSON error on row 1)."""
    proj = tmp_path / "p"
    _write(proj / "configs", "pipeline.yaml", b"\xef\xbb\xbfsegment:\r\n  max_tokens: 1000\r\n")
    _write(proj / "configs" / "characters", "rosalind.yaml",
           b"\xef\xbb\xbfname: Rosalind\r\nseries: As You Like It\r\naliases: [ROSALIND]\r\n")
    play = _write(tmp_path, "play.txt", b"\xef\xbb\xbf" + (SAMPLES / "asyoulik.txt").read_bytes().replace(b"\n", b"\r\n"))
    lines = tmp_path / "lines.jsonl"
    p = run(proj, *_extract("script", play, work_id="asyoulik", out=lines))
    assert p.returncode == 0, p.stderr
    crlf = _write(tmp_path, "bom.jsonl", b"\xef\xbb\xbf" + lines.read_bytes().replace(b"\n", b"\r\n"))
    p = run(proj, "segment", str(crlf), "-c", "rosalind", "-o", str(tmp_path / "stories.jsonl"))
    assert p.returncode == 0, p.stderr
    stories = [json.loads(r) for r in (tmp_path / "stories.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(stories) >= 20 and all(s["tokens"] <= 1000 for s in stories)
    assert any("Rosalind:「" in s["text"] for s in stories) and not any("\ufeff" in s["text"] or "\r" in s["text"] for s in stories)

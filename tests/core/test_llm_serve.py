"""`scripts/llm_serve.py` (`make llm`): the llama.cpp build options it picks for the CPU, and when it builds again.
No compiler and no model here: the options are computed from sample `/proc/cpuinfo` text."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from conftest import load_script

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def serve():
    mod = load_script(REPO / "scripts" / "llm_serve.py")
    return mod


SAPPHIRE = ("processor : 0\nflags : fpu sse sse4_2 avx f16c fma bmi2 avx2 avx512f avx512dq avx512cd avx512bw "
            "avx512vl avx512vbmi avx512_vnni avx512_bf16 avx_vnni amx_bf16 amx_tile amx_int8\n")


def test_an_x86_cpu_with_amx_gets_its_avx512_sets_and_never_amx_or_a_native_build(serve, monkeypatch):
    monkeypatch.delenv("CMAKE_ARGS", raising=False)
    args = serve.cmake_args(SAPPHIRE, "x86_64").split()
    assert "-DGGML_NATIVE=OFF" in args  # -march=native would switch AMX on: the server died on its first completion
    assert {"-DGGML_AVX512=ON", "-DGGML_AVX512_VNNI=ON", "-DGGML_AVX512_BF16=ON", "-DGGML_AVX_VNNI=ON"} <= set(args)
    assert not any("AMX" in a for a in args)


def test_an_avx2_cpu_gets_the_portable_build_and_arm_a_native_one(serve, monkeypatch):
    monkeypatch.delenv("CMAKE_ARGS", raising=False)
    args = serve.cmake_args("flags : fpu sse avx avx2 fma f16c\n", "x86_64").split()
    assert args[0] == "-DGGML_NATIVE=OFF" and not any("AVX512" in a for a in args)
    assert serve.cmake_args("Features : fp asimd\n", "aarch64").startswith("-DGGML_NATIVE=ON")
    monkeypatch.setenv("CMAKE_ARGS", "-DGGML_NATIVE=ON")
    assert serve.cmake_args(SAPPHIRE, "x86_64") == "-DGGML_NATIVE=ON"  # the user's own options win


def test_a_server_built_with_other_options_is_built_again(serve, tmp_path, monkeypatch):
    monkeypatch.setenv("CMAKE_ARGS", "-DGGML_NATIVE=OFF")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    assert not serve.server_ready(venv)  # no stamp: built by an earlier version of the script
    (venv / serve.BUILD_STAMP).write_text("-DGGML_NATIVE=ON -DLLAMA_BUILD_TESTS=OFF\n")
    assert not serve.server_ready(venv)  # built natively (AMX): build again


def test_no_server_on_the_port_is_no_completion(serve):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again before the request: nothing listens there
    assert serve.completes(port) is False

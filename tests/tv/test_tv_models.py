"""The speech recogniser and speaker encoder a user picks: device, compute type, other weights, clear messages
naming what to download where when weights are missing (nothing is downloaded: HF_HUB_OFFLINE=1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from extractors.tv.extractor import TvOptions

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "samples" / "sample.wav"


def run(args, cwd):
    env = {**os.environ, "ROLECORPUS_ROOT": str(cwd), "ROLECORPUS_CACHE": str(Path(cwd) / ".cache"),
           "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True)


def one_line_error(p, *needles):
    assert p.returncode == 2, p.stderr
    err = p.stderr.strip().splitlines()[-1]  # progress lines may come first
    assert err.startswith("error: ") and p.stderr.count("error:") == 1, p.stderr
    for n in needles:
        assert n in err, err


def test_options_and_what_they_hand_the_models():
    o = TvOptions()
    assert (o.device, o.compute_type, o.encoder) == ("cpu", "default", None)
    assert o.model_kwargs() == ({}, {})  # the defaults call Models exactly as before
    o = TvOptions(device="cuda", compute_type="float16", encoder="w")
    assert o.model_kwargs() == ({"device": "cuda", "compute_type": "float16"}, {"device": "cuda", "weights": Path("w")})
    with pytest.raises(ValueError, match="--device must be cpu or cuda"):
        TvOptions(device="tpu")


def test_a_missing_whisper_model_names_what_to_download(tmp_path):
    p = run(["extract", "tv", str(SAMPLE), "--work", "w", "-o", "l.jsonl", "--asr-backend", "faster-whisper",
             "--model", "large-v3", "--threads", "1"], tmp_path)
    one_line_error(p, "'large-v3' is not on this machine", "download_model('large-v3')", "--model base")
    assert not (tmp_path / "l.jsonl").exists()


def test_other_encoder_weights_must_be_a_speechbrain_folder(tmp_path):
    (tmp_path / "w").mkdir()
    p = run(["extract", "tv", str(SAMPLE), "--work", "w", "-o", "l.jsonl", "--subtitles",
             str(REPO / "data/samples/sample.srt"), "--speakers", str(tmp_path / "w"), "--encoder",
             str(tmp_path / "w"), "--threads", "1"], tmp_path)
    one_line_error(p, "w", "missing hyperparams.yaml, embedding_model.ckpt")
    assert not (tmp_path / "l.jsonl").exists()


def test_cuda_without_a_gpu_is_a_clear_error(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is visible")
    p = run(["extract", "tv", str(SAMPLE), "--work", "w", "-o", "l.jsonl", "--asr-backend", "faster-whisper",
             "--device", "cuda", "--threads", "1"], tmp_path)
    one_line_error(p, "--device cuda: no CUDA GPU is visible")

"""BGE sentence embeddings from weights on this machine (a folder, or the Hugging Face cache).

Computed the way ChatHaruhi 1.0.9 embeds its queries for `embedding='bge_en'`/`'bge_zh'`
(`chatharuhi.utils.get_general_embeddings`): the tokenizer pads and truncates to 512 tokens, the
vector is the last hidden state of the first ([CLS]) token, L2-normalised. Needs torch and
transformers (the `export` extra); nothing is downloaded.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Sequence

import numpy as np

from extractors.errors import InputError


def resolve_weights(repo_id: str, weights: Path | None, flag: str) -> Path:
    """The folder holding `repo_id`'s weights: `weights` when given, else the local Hugging Face cache."""
    if weights is not None:
        if not (Path(weights) / "config.json").is_file():
            raise InputError(f"not a model folder (no config.json) for {flag}", weights)
        return Path(weights)
    try:
        from huggingface_hub import snapshot_download

        found = Path(snapshot_download(repo_id, local_files_only=True))
    except Exception:  # noqa: BLE001  (not installed, not cached, offline: all mean "not here")
        found = None
    if found is None or not (found / "config.json").is_file():
        raise InputError(f"{flag} needs the {repo_id} weights on this machine: pass --weights DIR (a folder with "
                         f"config.json, the tokenizer and the weights) or put them in the Hugging Face cache")
    return found


def _fingerprint(folder: Path) -> str:
    """Names the weights in the vector cache: the folder and the size and time of each file in it."""
    h = hashlib.sha256(str(folder.resolve()).encode())
    for p in sorted(folder.iterdir()):
        if p.is_file():
            st = p.stat()
            h.update(f"{p.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


class BgeEmbedder:
    """A BERT-style encoder loaded with transformers from `folder`; CLS pooling, unit vectors."""

    normalized = True

    def __init__(self, folder: Path, batch: int = 16):
        from extractors.tv import make_speechbrain_importable

        make_speechbrain_importable()  # transformers imports torchaudio, whose PyPI build fails to load on CPU
        try:
            import torch
            from transformers import AutoModel, AutoTokenizer
            from transformers.utils import logging as hf_logging
        except ImportError:
            raise InputError("BGE embeddings need torch and transformers: pip install 'rolecorpus[export]'") from None
        hf_logging.disable_progress_bar()  # one summary line from the command, not a bar per load
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
            self._model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()
        except (OSError, ValueError) as e:
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise InputError(f"cannot load the BGE weights ({first})", folder) from None
        self._torch = torch
        self.batch = batch
        self.dim = int(self._model.config.hidden_size)
        self.name = f"bge_{_fingerprint(Path(folder))}"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = []
        for i in range(0, len(texts), self.batch):
            enc = self._tokenizer(texts[i:i + self.batch], padding=True, truncation=True, return_tensors="pt",
                                  max_length=512)
            with self._torch.no_grad():
                cls = self._model(**enc)[0][:, 0]
            out.append(self._torch.nn.functional.normalize(cls, p=2, dim=1).cpu().numpy())
        if not out:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate(out).astype(np.float32)

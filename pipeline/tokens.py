"""Token counting for pipeline/: re-exports extractors/tokens.py (tiktoken's cl100k_base, offline), the one counter."""

from __future__ import annotations

from extractors.tokens import count_many, count_tokens, encoding

__all__ = ["count_many", "count_tokens", "encoding"]

"""The local engine: every job in this process, one after another, on one `Worker` (models loaded once)."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from .worker import Worker


class LocalEngine:
    name = "local"
    workers = 1

    def __init__(self):
        self.worker = Worker()

    def map(self, method: str, items: Iterable[Any]) -> Iterator[tuple[Any, bool, Any]]:
        for item in items:
            ok, payload = self.worker.run(method, item)
            yield item, ok, payload

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

"""The Ray engine: jobs on a pool of Ray actors, each a `Worker` that loads its models once and keeps them.

Without an address (and no RAY_ADDRESS) Ray starts in this process (`ray.init(num_cpus=...)`) and stops with the
engine; with one it joins that cluster, whose nodes must see the project and cache folders at the same paths (a
shared file system) and have their own secrets (OPENAI_API_KEY) in their environment: only the non-secret
settings travel with the jobs. Results come back as jobs finish; the callers put them in a fixed order. The
actors run with this process's OMP_NUM_THREADS (Ray would set 1), so Whisper decodes as in a serial run; set
OMP_NUM_THREADS for the same transcripts on machines whose core counts differ.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Iterator

from extractors.errors import InputError

from .worker import Worker

# Non-secret settings a cluster's workers need from this environment (a secret is never sent).
CARRY = ("ROLECORPUS_ROOT", "ROLECORPUS_CACHE", "ROLECORPUS_LLM_MODEL", "OPENAI_MODEL", "OPENAI_BASE_URL",
         "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "SOURCE_DATE_EPOCH", "PYTHONPATH")


def _ray():
    try:
        import ray
    except ImportError:
        raise InputError("--engine ray needs Ray: pip install 'rolecorpus[ray]' (or use --engine local)") from None
    return ray


class RayEngine:
    name = "ray"

    def __init__(self, address: str | None = None, workers: int = 0):
        ray = self.ray = _ray()
        address = address or os.environ.get("RAY_ADDRESS") or None
        self.owned = not ray.is_initialized()
        if self.owned:
            if address:
                env = {k: os.environ[k] for k in CARRY if os.environ.get(k)}
                ray.init(address=address, runtime_env={"env_vars": env}, log_to_driver=False)
            else:
                ray.init(num_cpus=workers or os.cpu_count() or 1, include_dashboard=False, log_to_driver=False)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, min(workers or cpus, cpus))
        # Whisper's transcripts depend on its thread count, and Ray gives a worker OMP_NUM_THREADS=1 unless its
        # environment sets one: the actors get this process's, or CTranslate2's own default (4) when it is unset,
        # which is what a serial run uses.
        omp = os.environ.get("OMP_NUM_THREADS") or "4"
        self._actor = ray.remote(num_cpus=1, runtime_env={"env_vars": {"OMP_NUM_THREADS": omp}})(Worker)
        self.actors: list[Any] = []

    def _pool(self, n: int) -> list[Any]:
        while len(self.actors) < min(n, self.workers):
            self.actors.append(self._actor.remote())
        return self.actors[:max(1, min(n, self.workers))]

    def map(self, method: str, items: Iterable[Any]) -> Iterator[tuple[Any, bool, Any]]:
        """Run `method` on every item, one job per free actor at a time; (item, ok, payload) as each finishes."""
        ray, queue = self.ray, list(items)
        free, pending = list(self._pool(len(queue))), {}
        while queue or pending:
            while queue and free:
                actor, item = free.pop(0), queue.pop(0)
                pending[actor.run.remote(method, item)] = (actor, item)
            done, _ = ray.wait(list(pending), num_returns=1)
            actor, item = pending.pop(done[0])
            try:
                ok, payload = ray.get(done[0])
            except Exception as e:  # noqa: BLE001  (the actor died: report the job, start a fresh actor)
                ok, payload = False, f"{getattr(item, 'source', None) or getattr(item, 'character', '?')}: " \
                                     f"the Ray worker died ({type(e).__name__})"
                self.actors[self.actors.index(actor)] = actor = self._actor.remote()
            free.append(actor)
            yield item, ok, payload

    def close(self) -> None:
        """Release the actors; stop Ray if this engine started it."""
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []
        if self.owned:
            self.ray.shutdown()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

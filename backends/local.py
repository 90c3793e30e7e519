"""The ``local`` backend: chunks in this process, or in a pool of ``spawn`` worker processes of this machine."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from backends.base import Backend, Job, check_workers


class LocalBackend(Backend):
    """This process (``workers=1``) or a pool of ``spawn`` worker processes, optionally warmed up when they
    start (``warm_up``: a module-level function run once in each). The pool starts at the first ``run``
    that needs it and serves every later ``run`` until the backend closes."""

    name = "local"

    def __init__(self, workers: int = 1, warm_up: Callable[[], None] | None = None) -> None:
        check_workers(workers)
        self.workers = workers
        self._warm_up = warm_up
        self._pool: Any = None

    def run(self, job: Job, shared: Any, chunks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        if self.workers == 1 or len(chunks) <= 1:
            if self._warm_up is not None:
                self._warm_up()
                self._warm_up = None
            for index, chunk in enumerate(chunks):
                yield index, job(shared, chunk)
            return
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            processes = min(self.workers, len(chunks))
            self._pool = context.Pool(processes, _start_local_worker, (self._warm_up,))
        calls = [(job, shared, index, chunk) for index, chunk in enumerate(chunks)]
        yield from self._pool.imap_unordered(_call, calls)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


def _start_local_worker(warm_up: Callable[[], None] | None) -> None:
    """Pool initializer: torch kept to one thread so that workers do not compete, then the warm-up."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if warm_up is not None:
        warm_up()


def _call(call: tuple[Job, Any, int, Any]) -> tuple[int, Any]:
    job, shared, index, chunk = call
    return index, job(shared, chunk)

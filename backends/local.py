"""The ``local`` backend: chunks in this process, or in a pool of ``spawn`` worker processes of this machine.

The pool starts from any caller (a script with or without ``if __name__ == "__main__":``, ``python -c``,
standard input, a notebook) or refuses at once in one line: see :mod:`backends.main_module`.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from backends.base import Backend, Job, check_workers
from backends.main_module import main_hidden, main_references, start_problem


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
        self._pool_has_main = False

    def run(self, job: Job, shared: Any, chunks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        if self.workers == 1 or len(chunks) <= 1:
            if self._warm_up is not None:
                self._warm_up()
                self._warm_up = None
            for index, chunk in enumerate(chunks):
                yield index, job(shared, chunk)
            return
        needed = _main_needed((job, shared, chunks, self._warm_up))
        if self._pool is not None and needed and not self._pool_has_main:
            self.close()  # a pool started without __main__ cannot unpickle this work
        if self._pool is None:
            self._pool = self._start_pool(min(self.workers, len(chunks)), needed)
            self._pool_has_main = bool(needed)
        calls = [(job, shared, index, chunk) for index, chunk in enumerate(chunks)]
        yield from self._pool.imap_unordered(_call, calls)

    def _start_pool(self, processes: int, needed: list[str]) -> Any:
        """A pool whose workers import the caller's ``__main__`` only when the work ``needed`` something of it.

        Raises:
            ValueError: the work needs ``__main__`` and workers could not run it from here (the message says
                what to do).
        """
        context = multiprocessing.get_context("spawn")
        if not needed:
            with main_hidden():
                return context.Pool(processes, _start_local_worker, (self._warm_up,))
        problem = start_problem(needed)
        if problem is not None:
            raise ValueError(problem)
        return context.Pool(processes, _start_local_worker, (self._warm_up,))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


def _main_needed(work: Any) -> list[str]:
    """What ``work`` needs of ``__main__`` (:func:`backends.main_module.main_references`), or ValueError in one
    line when it cannot be sent to a worker at all."""
    try:
        return main_references(work)
    except Exception as error:  # pickling raises several types (PicklingError, AttributeError, TypeError)
        raise ValueError(f"the work cannot be sent to worker processes ({error}): use workers=1") from None


def _start_local_worker(warm_up: Callable[[], None] | None) -> None:
    """Pool initializer: Ctrl-C left to the parent (which stops the pool: a terminal sends it to every process of
    the job, and a worker's own KeyboardInterrupt traceback would only hide the parent's one line), torch kept to
    one thread so that workers do not compete, then the warm-up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if warm_up is not None:
        warm_up()


def _call(call: tuple[Job, Any, int, Any]) -> tuple[int, Any]:
    job, shared, index, chunk = call
    return index, job(shared, chunk)

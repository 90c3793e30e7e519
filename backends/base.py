"""The interface of a backend: run a job over chunks, each chunk's result once, as the chunks finish."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

Job = Callable[[Any, Any], Any]
"""A module-level function ``job(shared, chunk) -> result`` (see the package docstring)."""


class Backend(AbstractContextManager):
    """Runs a job over chunks; see the package docstring. Close it (or use ``with``) to free its workers."""

    name: str
    workers: int
    """Chunks that can run at once: the processes of a local pool, or the CPUs of the Ray cluster."""

    def run(self, job: Job, shared: Any, chunks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """``(index, job(shared, chunks[index]))`` for every chunk exactly once, as the chunks finish."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop the backend's workers."""

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def check_workers(workers: int) -> None:
    """ValueError unless ``workers`` is a whole number of at least 1."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers!r}")

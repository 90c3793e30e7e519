"""The solver's kernels that link no exact count, compiled ahead in a second process on a cold cache.

On a fresh install the solver's first game compiles the game engine, then the exact count (``count_board``,
about a third of its compile), then the certain moves and, at its first guess, the guess. The certain moves
(``local_safe``) and the guess's leaves (the endgame search, the forced 50/50s, the candidate ranking, the
tie-break) link no count, so this job compiles them on the second core while the first process compiles the
count (:mod:`mine_env.engine.compile_ahead`; :mod:`agents.solver` arms it on the count's first compile),
and the first process loads them from the cache when it reaches them.

Each kernel is compiled for the numba types of sample arguments: the types the solver's calls give it (from
Python for ``local_safe``, from ``choose_guess`` for the others). A test plays a guessing game after this job
on an empty cache and checks that none of :data:`KERNELS` compiled again, so a change of argument types shows.

Run ``python -m agents.solver.guess_ahead``: it prints each kernel's dotted name once it is in the cache.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from agents.solver.endgame import best_endgame_guess
from agents.solver.guess import _candidates, _kept
from agents.solver.outlook import forced_fifty_fifty
from mine_env.analysis.deduction import local_safe
from mine_env.engine.compile_ahead import compile_ahead, run_job
from mine_env.engine.constants import HIDDEN


def steps() -> Iterator[tuple[Any, tuple[Any, ...]]]:
    """(kernel, sample arguments) in the order the first guessing game reaches them."""
    rows, cols, mines = 9, 9, 10
    flat = np.full(rows * cols, HIDDEN, np.int8)
    probability = np.full(rows * cols, mines / (rows * cols))
    yield local_safe, (flat, rows, cols)
    yield best_endgame_guess, (flat, rows, cols, mines, 1000, 1)
    yield forced_fifty_fifty, (flat, rows, cols, probability)
    yield _candidates, (flat, rows, cols, probability, 0.5, True, 8, np.uint64(0))
    yield _kept, (np.zeros(2, np.int64), np.zeros((2, 2)))


KERNELS: tuple[str, ...] = tuple(f"{kernel.py_func.__module__}.{kernel.py_func.__qualname__}" for kernel, _ in steps())
"""The dotted names of the kernels this job compiles, in order."""
TRIGGER = "mine_env.analysis.counting.count_board"
"""The kernel whose first compile from Python starts the job: the solver counts first, then needs these."""


def arm() -> None:
    """Start this job when the count first compiles from Python in this process (a cold cache)."""
    compile_ahead(TRIGGER, "agents.solver.guess_ahead", KERNELS)


if __name__ == "__main__":
    run_job(steps())

"""Compile the solver's kernels before they are needed: at once, or in the background while a person plays.

On a fresh install the solver's first move waits for numba (about half a minute, docs/COLD_START.md);
afterwards its kernels load from numba's cache in a tenth of a second. :func:`warm_up` compiles (or loads)
every kernel the solver's two paths use, with the very types they call them with (tested): the env path
(:meth:`agents.solver.SolverAgent.act`: the count, the certain moves and the guess) and the compiled games
(:meth:`agents.solver.SolverAgent.play_compiled`). :func:`warm_up_in_background` does it in a daemon thread:
an app that shows a board first (hints, assist mode) has the kernels ready by the time it is asked for a
move, and a move asked for earlier waits only for the rest of the compile (numba's lock makes it wait, not
compile twice).

``python -m agents.warm_up`` does it from the command line (for an install step, say), for the battle
AIs' kernels too (:func:`battle.players.warm_up.warm_up_battle`, run by this package's ``__main__``:
single-player code never imports battle, and this install step is one of the two imports that the contracts
of pyproject.toml name as exceptions).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

import numpy as np

from agents.solver import SolverAgent
from mine_env.engine.constants import HIDDEN

PATHS = ("env", "compiled")
"""``env``: the kernels :meth:`SolverAgent.act` calls; ``compiled``: those of :meth:`SolverAgent.play_compiled`."""


def warm_up(paths: Iterable[str] = PATHS) -> float:
    """Compile (or load from the cache) the kernels of ``paths`` (some of :data:`PATHS`); returns the seconds it
    took."""
    paths = set(paths)
    if not paths <= set(PATHS):
        raise ValueError(f"unknown paths {sorted(paths - set(PATHS))}; expected some of {', '.join(PATHS)}")
    start = time.perf_counter()
    agent = SolverAgent(seed=0)
    if "compiled" in paths:
        agent.play_compiled(5, 5, 3, "opening", np.zeros(1, np.int64), [0])
    if "env" in paths:  # a 1 with eight hidden neighbours and one mine: no certain cell, so a guess
        grid = np.full((3, 3), HIDDEN, np.int8)
        grid[1, 1] = 1
        agent.plan(grid, {"mines": 1}, np.flatnonzero(grid.ravel() == HIDDEN))
    return time.perf_counter() - start


def warm_up_in_background(paths: Iterable[str] = PATHS) -> threading.Thread:
    """Start :func:`warm_up` in a daemon thread (it never keeps the program alive) and return the thread."""
    thread = threading.Thread(target=warm_up, args=(tuple(paths),), name="minesweeper-rl warm-up", daemon=True)
    thread.start()
    return thread


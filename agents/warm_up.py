"""Compile the solver's kernels before they are needed: at once, or in the background while a person plays.

On a fresh install the solver's first move waits for numba (about half a minute, docs/COLD_START.md);
afterwards its kernels load from numba's cache in a tenth of a second. :func:`warm_up` plays one tiny game
in compiled code, which compiles (or loads) every kernel the solver, its probabilities and the engine's
game API use, with the very types the env path and the compiled path call them with, so that neither
compiles anything afterwards (tested). :func:`warm_up_in_background` does it in a daemon thread: an app that
shows a board first (hints, assist mode) has the kernels ready by the time it is asked for a move, and a
move asked for earlier waits only for the rest of the compile (numba's lock makes it wait, not compile
twice).

``python -m agents.warm_up`` does it from the command line (for an install step, say).
"""

from __future__ import annotations

import threading
import time

import numpy as np

from agents.solver import SolverAgent


def warm_up() -> float:
    """Compile (or load from the cache) the solver's kernels; returns the seconds it took."""
    start = time.perf_counter()
    SolverAgent(seed=0).play_compiled(5, 5, 3, "opening", np.zeros(1, np.int64), [0])
    return time.perf_counter() - start


def warm_up_in_background() -> threading.Thread:
    """Start :func:`warm_up` in a daemon thread (it never keeps the program alive) and return the thread."""
    thread = threading.Thread(target=warm_up, name="minesweeper-rl warm-up", daemon=True)
    thread.start()
    return thread


if __name__ == "__main__":
    print(f"the solver's kernels are compiled and cached ({warm_up():.1f} s)")

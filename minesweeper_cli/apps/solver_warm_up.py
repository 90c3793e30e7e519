"""The solver's kernels compiling in the background while a person looks at the board, for the play apps.

On a fresh install the solver's first use compiles its kernels (about 40 s on the 2-core development
machine, docs/COLD_START.md). The play apps show a board first, so they start that compile in a background
thread at once (:func:`agents.warm_up.warm_up_in_background`) and never wait for it on screen: until it
ends, hints, assist moves and the solver's moves are put off with a line that says why, and the app keeps
answering keys and clicks. With a warm cache the warm-up ends in a fraction of a second and nothing shows.

The compile notices (:mod:`mine_env.engine.compilation`) come to :meth:`SolverWarmUp.status_line` instead of
stderr, where they would land in the middle of a full-screen drawing.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

from agents.warm_up import warm_up_in_background
from mine_env.engine.board import Board
from mine_env.engine.compilation import show_notices_with
from mine_env.engine.spec import BoardSpec

WAITING = "the solver is compiling, once (later runs start at once)"
"""Said instead of a hint or a solver move while the warm-up runs."""


class SolverWarmUp:
    """The play apps' background compile of the solver's kernels, and what to say while it runs.

    Args:
        clock: Seconds as a float, for the time shown while compiling.
        start_thread: Starts the compile in a thread (tests pass a stand-in).
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        start_thread: Callable[[], threading.Thread] = lambda: warm_up_in_background(["env"]),
    ) -> None:
        self._clock = clock
        self._start_thread = start_thread
        self._thread: threading.Thread | None = None
        self._started = 0.0
        self._notice = ""

    def start(self) -> None:
        """Start compiling (or loading from the cache), with the compile notices kept for the status line.

        The board's own moves compile first, here: a player's first click must not wait for numba's compile
        lock while the solver holds it (8-9 s on a cold cache).
        """
        compile_board_moves()
        show_notices_with(self._note)
        self._started = self._clock()
        self._thread = self._start_thread()

    def stop(self) -> None:
        """Send compile notices to stderr again (the thread, a daemon, never keeps the program alive)."""
        show_notices_with(None)

    def is_ready(self) -> bool:
        """True once the kernels are compiled or loaded (or when no warm-up was started)."""
        return self._thread is None or not self._thread.is_alive()

    def status_line(self) -> str:
        """While kernels compile: the latest notice and the seconds so far; else ""."""
        if self.is_ready() or not self._notice:
            return ""
        return f"{self._notice} ... {self._clock() - self._started:.0f} s so far"

    def _note(self, line: str) -> None:
        self._notice = line.removeprefix("minesweeper-rl: ")


def compile_board_moves() -> None:
    """Compile (or load) the engine's kernels behind a player's reveal, flag, chord and the action mask."""
    board = Board(BoardSpec(3, 3, 1, "safe"))
    board.new_game(1)
    board.reveal(1, 1)  # a 1: every other cell touches it, so the game goes on
    board.toggle_flag(0, 0)
    board.action_mask()
    with contextlib.suppress(ValueError):  # the chord is refused unless the flag is on the mine
        board.chord(1, 1)

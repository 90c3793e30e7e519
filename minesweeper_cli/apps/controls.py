"""What the terminal game and the window do alike with a session: the controls of a player at the board.

Both front ends are a :class:`PlayControls`: auto play at a pace that stops with the game, hints on request,
a new game in the player's hands (auto play off), and the mouse buttons on a cell. Each words its tips for
its own keys and buttons and adds its own input and drawing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from mine_env.engine.spec import BoardSpec
from minesweeper_cli.apps.moves import Move
from minesweeper_cli.apps.session import GameSession
from minesweeper_cli.apps.solver_warm_up import SolverWarmUp


class MovePacer:
    """Lets auto play move at most once every ``delay`` seconds of ``clock``."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last_move = -math.inf

    def ready(self, delay: float) -> bool:
        """True (and the time is noted) when ``delay`` seconds have passed since the last move."""
        now = self._clock()
        if now - self._last_move < delay:
            return False
        self._last_move = now
        return True


class PlayControls:
    """The state a front end keeps beside a game session, and the reactions both front ends share.

    Args:
        session: The game session to play.
        delay: Seconds between agent moves while auto play is on.
        auto: Start with auto play on.
        clock: Seconds as a float, for auto play's pace.
        warm_up: The solver's kernels compiling in the background (started by the caller): until they are
            ready, hints and solver moves are put off, and :meth:`tick` plays what assist owes once they are.
    """

    GAME_OVER_TIP = "start a new one"
    """How to go on once the game is over, said when auto play is asked for then."""
    AUTO_OFF_NOTE = "auto play off"
    """Added to the message of a new game that turned auto play off."""

    def __init__(
        self,
        session: GameSession,
        delay: float,
        auto: bool = False,
        clock: Callable[[], float] = time.monotonic,
        warm_up: SolverWarmUp | None = None,
    ) -> None:
        self.session = session
        self.warm_up = warm_up
        if warm_up is not None:
            session.solver_ready = warm_up.is_ready
        self.delay = delay
        self.auto = auto
        self.show_hints = False
        self._pacer = MovePacer(clock)

    def press(self, cell: tuple[int, int], button: int) -> None:
        """A mouse button on a board cell: 1 reveals (or chords a number), 2 chords, 3 flags; others do nothing."""
        action = {1: self.session.click, 2: self.session.chord, 3: self.session.toggle_flag}.get(button)
        if action is not None:
            action(*cell)

    def tick(self) -> None:
        """Play what assist owes once the solver is ready, and the agent's next move when auto play is on and its
        delay has passed; auto play stops at the end."""
        self.session.catch_up()
        if self.auto and self.session.is_over:
            self.auto = False
        if self.auto and self._pacer.ready(self.delay):
            self.agent_move()

    def agent_move(self) -> Move | None:
        """Let the session's agent play one move (None when it could not)."""
        return self.session.agent_move()

    def toggle_hints(self) -> None:
        self.show_hints = not self.show_hints
        self.session.message = f"hints {'on' if self.show_hints else 'off'}"

    def toggle_auto(self) -> None:
        """Turn auto play on or off; a finished game only earns a message."""
        if self.session.is_over:
            self.session.message = f"the game is over: {self.GAME_OVER_TIP}"
            return
        self.auto = not self.auto
        self.session.message = self.auto_message()

    def auto_message(self) -> str:
        """The message after auto play was turned on or off."""
        return f"auto play {'on' if self.auto else 'off'}"

    def new_game(self, spec: BoardSpec | None = None) -> None:
        """The next game (on a new board if ``spec`` is given), in the player's hands: auto play off."""
        was_auto = self.auto or self.session.mode == "auto"
        self.auto = False
        self.session.new_game(spec)
        if was_auto:
            self.session.message += f"; {self.AUTO_OFF_NOTE}"

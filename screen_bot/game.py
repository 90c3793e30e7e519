"""One game through the screen: read the board, ask the solver, click, until the program says it is over.

The solver sees the board as the env would show it (flags as covered cells, since the bot flags only
proven mines and only at the end) and answers with a cell to open. When every safe cell is open, a program
that wants every mine flagged (xdemineur) gets its flags. Win and loss are read from the board: a mine
drawn on it is a loss; a win is every safe cell open (and, where the program needs it, every mine flagged).
After the game the reader is cross-checked against the layout the program shows (:mod:`crosscheck`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agents.probability import InconsistentBoard
from agents.solver import PlannedMovesAgent
from mine_env.engine.constants import FLAG, HIDDEN, MINE
from screen_bot.cells import EXPLODED, board_text
from screen_bot.crosscheck import layout_complete, misread_cells
from screen_bot.pointer import LEFT, RIGHT
from screen_bot.reader import BoardReader, Reading, UnreadableBoard

MAX_MOVES_FACTOR = 2
"""A game makes at most this many moves per cell: more means the clicks do not land."""


@dataclass
class GameResult:
    """How one game went.

    Attributes:
        outcome: "won", "lost" or "unread" (the board could not be read; the game is left out of the rate).
        clicks: Mouse clicks on the board (openings and flags).
        seconds: Wall time from the first reading to the last.
        misread: Cells misread, from the end-of-game cross-check; None when the check could not be made.
        note: Why a game was unread, or a cross-check skipped.
    """

    outcome: str
    clicks: int = 0
    seconds: float = 0.0
    misread: list[tuple[int, int]] | None = None
    note: str = ""
    game_id: str = ""


def status(codes: np.ndarray, mines: int, needs_flags: bool) -> str:
    """ "lost", "won", "flag" (every safe cell open, mines still to flag) or "playing"."""
    if np.isin(codes, (MINE, EXPLODED)).any():
        return "lost"
    covered = int((codes == HIDDEN).sum())
    flags = int((codes == FLAG).sum())
    if covered + flags == mines:
        return "flag" if needs_flags and covered else "won"
    return "playing"


def solver_view(codes: np.ndarray) -> np.ndarray:
    """The board as the env shows it to an agent: flags count as covered cells."""
    view = codes.astype(np.int8).copy()
    view[view == FLAG] = HIDDEN
    return view


class GamePlayer:
    """Plays games on one reader with one agent; ``watch`` is called with every board read (as text)."""

    def __init__(
        self, reader: BoardReader, agent: PlannedMovesAgent, mines: int, first_click_rule: str, needs_flags: bool,
        watch: Callable[[str], None] | None = None,
    ) -> None:  # fmt: skip
        self.reader = reader
        self.agent = agent
        self.mines = mines
        self.rule = first_click_rule
        self.needs_flags = needs_flags
        self.watch = watch

    def play(self, reveal_all: Callable[[], None] | None = None) -> GameResult:
        """Play the game on screen to its end. ``reveal_all`` makes the program show every mine after a
        loss (where it does not by itself). Raises :class:`screen_bot.reader.UnreadableBoard`."""
        started = time.monotonic()
        self.agent.reset()
        result = GameResult("playing")
        reading = self._settled(None, [])
        played = reading.codes
        rows, cols = played.shape
        for _ in range(MAX_MOVES_FACTOR * rows * cols):
            state = status(reading.codes, self.mines, self.needs_flags)
            if state == "flag":
                reading = self._flag_the_rest(reading, result)
                continue
            if state in ("won", "lost"):
                result.outcome = state
                break
            played = reading.codes
            cells = self._decide(played, reading)
            for row, col in cells:
                self._click(row, col, LEFT, result)
            reading = self._settled(played, cells)
        else:
            limit = MAX_MOVES_FACTOR * rows * cols
            raise UnreadableBoard(f"no end after {limit} moves: do the clicks reach the program?", reading.image)
        result.seconds = time.monotonic() - started
        self._cross_check(result, played, reading, reveal_all)
        return result

    def _decide(self, codes: np.ndarray, reading: Reading) -> list[tuple[int, int]]:
        """The solver's next cells: its first click, or every certainly safe cell at once (clicked without
        reading in between, as the agent itself plays a plan), or its one guess."""
        view = solver_view(codes)
        mask = (view == HIDDEN).ravel().astype(np.int8)
        info = {"mines": self.mines, "action_mask": mask, "first_click": self.rule}
        try:
            if (view == HIDDEN).all():
                actions = [self.agent.act(view, info)]
            else:
                actions = self.agent.plan(view, info, np.flatnonzero(mask))
        except InconsistentBoard as error:
            message = f"the board read fits no layout of {self.mines} mines: {error}"
            raise UnreadableBoard(message, reading.image) from None
        return [divmod(int(action), view.shape[1]) for action in actions]

    def _click(self, row: int, col: int, button: int, result: GameResult) -> None:
        x, y = self.reader.click_point(row, col)
        self.reader.pointer.click(x, y, button)
        result.clicks += 1

    def _flag_the_rest(self, reading: Reading, result: GameResult) -> Reading:
        """Flag every covered cell (all mines once every safe cell is open), then read the board again."""
        covered = list(zip(*np.nonzero(reading.codes == HIDDEN), strict=True))
        for row, col in covered:
            self._click(int(row), int(col), RIGHT, result)
        return self._settled(reading.codes, [(int(r), int(c)) for r, c in covered])

    def _settled(self, previous: np.ndarray | None, changed: list[tuple[int, int]]) -> Reading:
        reading = self.reader.settled(previous, changed)
        if self.watch is not None:
            self.watch(board_text(reading.codes))
        return reading

    def _cross_check(
        self, result: GameResult, played: np.ndarray, reading: Reading, reveal_all: Callable[[], None] | None
    ) -> None:
        """Compare what the bot read while playing with the layout the program shows at the end."""
        won = result.outcome == "won"
        final = reading.codes
        if not won:  # wait for every mine to be drawn: by the program itself, or after reveal_all
            if reveal_all is not None:
                reveal_all()
            try:
                final = self.reader.settled(final, until=lambda codes: layout_complete(codes, False, self.mines)).codes
            except UnreadableBoard:
                result.note = f"cross-check skipped: the program did not show all {self.mines} mines"
                return
        if not layout_complete(final, won, self.mines):
            result.note = f"cross-check skipped: the end picture does not show exactly {self.mines} mines"
            return
        result.misread = misread_cells(played, final, won)

"""The terminal game of ``minesweeper play``: what its screen says and how it answers keys and clicks.

:class:`TerminalGame` holds what the screen adds to a :class:`~minesweeper_cli.apps.session.GameSession` (the
cursor, the hint overlay, auto play) and reacts to one key, one click or one clock tick at a time, so a
test can drive it without a terminal; :meth:`TerminalGame.lines` is the screen as text.
:func:`minesweeper_cli.apps.curses_screen.run_terminal` draws it with curses and feeds it the keyboard and mouse.
"""

from __future__ import annotations

import curses
import time
from collections.abc import Callable

import numpy as np

from mine_env.engine.constants import FLAG, HIDDEN
from mine_env.rendering import cell_char
from minesweeper_cli.apps.controls import PlayControls
from minesweeper_cli.apps.hints import SAMPLE_CHANCE, Hint, hint_kind, percent
from minesweeper_cli.apps.moves import Move
from minesweeper_cli.apps.session import GameSession
from minesweeper_cli.apps.solver_warm_up import WAITING, SolverWarmUp
from minesweeper_cli.apps.terminal_layout import HINT_WIDTH, ROOMY_SCREEN, BoardGeometry

HELP_LINES = (
    "arrows/hjkl move   space/enter reveal (or chord)   f flag   c chord   p hints",
    "a AI move   t auto play (+/- speed)   n new game   q quit   mouse: left/right",
)
MOVES = {
    curses.KEY_UP: (-1, 0), ord("k"): (-1, 0),
    curses.KEY_DOWN: (1, 0), ord("j"): (1, 0),
    curses.KEY_LEFT: (0, -1), ord("h"): (0, -1),
    curses.KEY_RIGHT: (0, 1), ord("l"): (0, 1),
}  # fmt: skip
REVEAL_KEYS = frozenset((ord(" "), ord("\n"), ord("\r"), curses.KEY_ENTER, ord("r")))
FASTEST_DELAY = 0.02
SLOWEST_DELAY = 5.0

def hint_text(chance: float, width: int = HINT_WIDTH) -> str:
    """A mine chance in ``width`` characters: ``s`` certainly safe, ``M`` certain mine, else a percentage.

    In one-character cells an uncertain chance is ``?``; the legend gives the chance at the cursor.
    """
    kind = hint_kind(chance)
    if kind is Hint.UNCERTAIN:
        return percent(chance) if width >= HINT_WIDTH else "?"
    return "s" if kind is Hint.SAFE else "M"


class TerminalGame(PlayControls):
    """The terminal front end's state and reactions, independent of curses so tests can step it.

    Args:
        session: The game session to play.
        delay: Seconds between agent moves while auto play is on.
        auto: Start with auto play on (the ``auto`` mode).
        clock: Seconds as a float, for auto play's pace.
        warm_up: The solver's background compile, if one was started (see :class:`PlayControls`).
    """

    GAME_OVER_TIP = "n starts a new one"
    AUTO_OFF_NOTE = "auto play off (t turns it on)"

    def __init__(
        self,
        session: GameSession,
        delay: float = 0.5,
        auto: bool = False,
        clock: Callable[[], float] = time.monotonic,
        warm_up: SolverWarmUp | None = None,
    ) -> None:
        super().__init__(session, min(max(delay, 0.0), SLOWEST_DELAY), auto, clock, warm_up)
        self.cursor = (0, 0)
        self.quit = False
        self.screen_width = ROOMY_SCREEN
        """The terminal's width at the last draw: it decides how wide cells are."""

    # ------------------------------------------------------------------ input
    def handle_key(self, key: int) -> None:
        """React to one key code from ``getch`` (unknown keys only earn a message)."""
        session = self.session
        row, col = self.cursor
        if key in MOVES:
            dr, dc = MOVES[key]
            self.cursor = (min(max(row + dr, 0), session.spec.rows - 1), min(max(col + dc, 0), session.spec.cols - 1))
        elif key in REVEAL_KEYS:
            session.click(row, col)
        elif key == ord("f"):
            session.toggle_flag(row, col)
        elif key == ord("c"):
            session.chord(row, col)
        elif key == ord("p"):
            self.toggle_hints()
        elif key == ord("a"):
            self.agent_move()
        elif key == ord("t"):
            self.toggle_auto()
        elif key in (ord("+"), ord("=")):
            self._set_delay(self.delay / 2)
        elif key == ord("-"):
            self._set_delay(max(self.delay, FASTEST_DELAY) * 2)
        elif key == ord("n"):
            self.new_game()
        elif key == ord("q"):
            self.quit = True
        elif key != curses.KEY_RESIZE:
            session.message = f"unknown key {_key_name(key)}: see the keys below"

    def handle_click(self, y: int, x: int, button: int) -> None:
        """A mouse press at screen (y, x): button 1 reveals or chords, 3 flags, 2 chords."""
        cell = self.geometry().cell_at(y, x)
        if cell is None:
            self.session.message = "that click was outside the board"
            return
        self.cursor = cell
        self.press(cell, button)

    def agent_move(self) -> Move | None:
        """The agent's move, with the cursor on its cell."""
        move = super().agent_move()
        if move is not None:
            self.cursor = (move.row, move.col)
        return move

    def auto_message(self) -> str:
        return f"{super().auto_message()} ({self.delay:.2f} s a move)"

    def _set_delay(self, delay: float) -> None:
        self.delay = min(max(delay, FASTEST_DELAY), SLOWEST_DELAY)
        self.session.message = f"auto play: {self.delay:.2f} s a move"

    # ------------------------------------------------------------------ drawing
    def geometry(self) -> BoardGeometry:
        """The board's place on the screen, as last drawn."""
        spec = self.session.spec
        return BoardGeometry.fitting(spec.rows, spec.cols, self.screen_width, self.show_hints)

    def lines(self) -> list[tuple[str, str]]:
        """The screen as (text, style) lines; styles: ``title``, ``won``, ``lost``, ``board``, ``legend``, ``text``.

        Everything after the message line (the hint legend, help) may be left out on a short terminal.
        """
        session, spec = self.session, self.session.spec
        geometry = self.geometry()
        auto = f"   auto: on, {self.delay:.2f} s a move" if self.auto else ""
        summary = session.agent_summary()
        out = [
            (f"Minesweeper  {spec.rows}x{spec.cols}, {spec.mines} mines, first click {spec.first_click}"
             f"   mode: {session.mode}", "title"),
            (f"Mines left: {session.mines_left}   Time: {session.elapsed:.0f} s   Game {session.games}{auto}", "text"),
            self._banner(),
        ]  # fmt: skip
        out += [(line, "text") for line in geometry.header_lines()]
        texts = self._cell_texts(geometry.cell_width)
        out += [(str(r).rjust(geometry.left - 1) + " " + " ".join(texts[r]), "board") for r in range(spec.rows)]
        out += [(f"{session.agent_name}: {summary}" if summary else "", "text"), (session.message, "text")]
        if self.warm_up is not None and self.warm_up.status_line():
            out.append((self.warm_up.status_line(), "text"))
        out += [("".join(text for text, _ in self.legend_segments()), "legend"), (self._hint_details(), "text")]
        out += [(line, "text") for line in HELP_LINES]
        return out

    @property
    def essential_lines(self) -> int:
        """Lines the screen needs at least: everything down to the message line."""
        return self.geometry().top + self.session.spec.rows + 2

    def _banner(self) -> tuple[str, str]:
        """Who won or lost, once the game is over (see :meth:`GameSession.outcome`)."""
        outcome = self.session.outcome()
        if not outcome:
            return "", "text"
        return f"*** {outcome} ***   n: new game   q: quit", self.session.status

    def _cell_texts(self, width: int) -> list[list[str]]:
        """Every cell's text, right-aligned to ``width``, hints in place of hidden frontier cells."""
        grid, layout = self.session.grid, self.session.shown_layout
        hints = self.session.frontier_hints() if self.show_hints else None
        texts = []
        for r in range(grid.shape[0]):
            row = []
            for c in range(grid.shape[1]):
                text = cell_char(int(grid[r, c]), layout is not None and bool(layout[r, c]))
                if hints is not None and not np.isnan(hints.chances[r, c]):
                    text = hint_text(float(hints.chances[r, c]), width)
                row.append(text.rjust(width))
            texts.append(row)
        return texts

    def legend_segments(self) -> list[tuple[str, Hint | None]]:
        """The hint legend as (text, hint) pieces: each sample is drawn in its kind of hint's colour (None: plain)."""
        if not self.show_hints:
            return []
        if self.session.frontier_hints() is None:
            if self.session.status == "playing" and not self.session.solver_ready():
                return [(f"hints: {WAITING}; they appear once it is done", None)]
            if self.session.status == "ready":
                return [("hints: mine chances appear once the game is under way", None)]
            if self.session.is_over:
                return [("hints: none, the game is over", None)]
            return [("hints: no mine chances for this position", None)]
        wide = self.geometry().cell_width >= HINT_WIDTH
        sample = hint_text(SAMPLE_CHANCE, HINT_WIDTH if wide else 1)
        meaning = " chance of a mine" if wide else " chance of a mine, given at the cursor"
        return [("hints: ", None), (hint_text(0.0), Hint.SAFE), (" safe   ", None), (hint_text(1.0), Hint.MINE),
                (" mine   ", None), (sample, Hint.UNCERTAIN), (meaning, None)]  # fmt: skip

    def _hint_details(self) -> str:
        """The chance off the numbers' edge and at the cursor, under the legend while hints are shown."""
        hints = self.session.frontier_hints() if self.show_hints else None
        if hints is None:
            return ""
        row, col = self.cursor
        chance = self.session.risk_of(row, col) if self.session.grid[row, col] in (HIDDEN, FLAG) else None
        parts = [] if hints.elsewhere is None else [f"every other hidden cell: {percent(hints.elsewhere)}"]
        parts += [] if chance is None else [f"at the cursor ({row}, {col}): {chance:.1%}"]
        return "   ".join(parts)


def _key_name(key: int) -> str:
    try:
        return repr(curses.keyname(key).decode("ascii", "replace"))
    except (ValueError, curses.error):
        return str(key)

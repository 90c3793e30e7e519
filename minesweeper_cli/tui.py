"""The terminal game of ``minesweeper play``: curses, keyboard and mouse, and a plain-text watcher for pipes.

:class:`TerminalGame` holds what the screen adds to a :class:`~minesweeper_cli.session.GameSession` (the
cursor, the hint overlay, auto play) and reacts to one key, one click or one clock tick at a time, so a
test can drive it without a terminal; :func:`run_terminal` is the curses loop around it and
:func:`watch_plain` prints an agent's game move by move when stdout is not a terminal.
"""

from __future__ import annotations

import contextlib
import curses
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from mine_env.engine.constants import FLAG, HIDDEN, MINE
from mine_env.rendering import cell_char, render_ansi
from minesweeper_cli.controls import PlayControls
from minesweeper_cli.hints import SAMPLE_CHANCE, Hint, hint_kind, percent
from minesweeper_cli.moves import Move
from minesweeper_cli.session import GameSession

HELP_LINES = (
    "arrows/hjkl move   space/enter reveal (or chord)   f flag   c chord   p hints",
    "a AI move   t auto play (+/- speed)   n new game   q quit   mouse: left/right",
)
HEADER_LINES = 3
"""Title, counters and the win/loss banner above the board."""
HINT_WIDTH = 3
"""Columns per cell while hints are shown, when the terminal is wide enough: room for ``99%``."""
ROOMY_SCREEN = 1000
"""The terminal width assumed when none is known (tests, before the first draw)."""
MOVES = {
    curses.KEY_UP: (-1, 0), ord("k"): (-1, 0),
    curses.KEY_DOWN: (1, 0), ord("j"): (1, 0),
    curses.KEY_LEFT: (0, -1), ord("h"): (0, -1),
    curses.KEY_RIGHT: (0, 1), ord("l"): (0, 1),
}  # fmt: skip
REVEAL_KEYS = frozenset((ord(" "), ord("\n"), ord("\r"), curses.KEY_ENTER, ord("r")))
FASTEST_DELAY = 0.02
SLOWEST_DELAY = 5.0

# Colour pairs: 1..8 are the numbers' own.
_PAIR_FLAG, _PAIR_MINE, _PAIR_SAFE, _PAIR_RISKY, _PAIR_WON, _PAIR_LOST = 9, 10, 11, 12, 13, 14
_HINT_PAIRS = {Hint.SAFE: _PAIR_SAFE, Hint.UNCERTAIN: _PAIR_RISKY, Hint.MINE: _PAIR_MINE}
_HINT_LETTERS = {Hint.SAFE: "s", Hint.MINE: "M"}


@dataclass(frozen=True)
class BoardGeometry:
    """Where the board's cells lie on the screen: ``cell_width`` characters per cell, a space between.

    Column numbers too wide for a cell are written downwards over several header lines (tens above units).
    """

    rows: int
    cols: int
    cell_width: int

    @classmethod
    def fitting(cls, rows: int, cols: int, screen_width: int, hints: bool) -> BoardGeometry:
        """The widest cells that fit the screen: room for whole column numbers (and ``99%`` hints), else 1."""
        wide = cls(rows, cols, max(len(str(cols - 1)), HINT_WIDTH if hints else 1))
        return wide if wide.width < screen_width else cls(rows, cols, 1)

    @property
    def header_rows(self) -> int:
        digits = len(str(self.cols - 1))
        return 1 if self.cell_width >= digits else digits

    @property
    def top(self) -> int:
        """Screen line of board row 0 (the column numbers are on the lines above)."""
        return HEADER_LINES + self.header_rows

    @property
    def left(self) -> int:
        """Screen column of board column 0 (the row numbers are on its left)."""
        return len(str(self.rows - 1)) + 1

    @property
    def width(self) -> int:
        return self.left + self.cols * (self.cell_width + 1) - 1

    def cell_x(self, col: int) -> int:
        return self.left + col * (self.cell_width + 1)

    def header_lines(self) -> list[str]:
        """The column numbers, one line, or one line per digit when they are wider than a cell."""
        digits = len(str(self.cols - 1))
        numbers = [str(c).rjust(digits) for c in range(self.cols)]
        if self.header_rows == 1:
            return [" " * self.left + " ".join(n.rjust(self.cell_width) for n in numbers)]
        return [" " * self.left + " ".join(n[i].rjust(self.cell_width) for n in numbers) for i in range(digits)]

    def cell_at(self, y: int, x: int) -> tuple[int, int] | None:
        """The cell drawn at screen (y, x), or None outside the board (between cells counts as outside)."""
        row, offset = y - self.top, x - self.left
        col, within = divmod(offset, self.cell_width + 1)
        if 0 <= row < self.rows and 0 <= col < self.cols and offset >= 0 and within < self.cell_width:
            return row, col
        return None


def hint_text(chance: float, width: int = HINT_WIDTH) -> str:
    """A mine chance in ``width`` characters: ``s`` certainly safe, ``M`` certain mine, else a percentage.

    In one-character cells an uncertain chance is ``?``; the legend gives the chance at the cursor.
    """
    if hint_kind(chance) is Hint.UNCERTAIN:
        return percent(chance) if width >= HINT_WIDTH else "?"
    return _HINT_LETTERS[hint_kind(chance)]


class TerminalGame(PlayControls):
    """The terminal front end's state and reactions, independent of curses so tests can step it.

    Args:
        session: The game session to play.
        delay: Seconds between agent moves while auto play is on.
        auto: Start with auto play on (the ``auto`` mode).
        clock: Seconds as a float, for auto play's pace.
    """

    GAME_OVER_TIP = "n starts a new one"
    AUTO_OFF_NOTE = "auto play off (t turns it on)"

    def __init__(
        self, session: GameSession, delay: float = 0.5, auto: bool = False, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(session, min(max(delay, 0.0), SLOWEST_DELAY), auto, clock)
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

    def legend_segments(self) -> list[tuple[str, int]]:
        """The hint legend as (text, colour pair) pieces, each sample drawn in its cells' colour (0: plain)."""
        if not self.show_hints:
            return []
        if self.session.frontier_hints() is None:
            if self.session.status == "ready":
                return [("hints: mine chances appear once the game is under way", 0)]
            if self.session.is_over:
                return [("hints: none, the game is over", 0)]
            return [("hints: no mine chances for this position", 0)]
        wide = self.geometry().cell_width >= HINT_WIDTH
        sample = hint_text(SAMPLE_CHANCE, HINT_WIDTH if wide else 1)
        meaning = " chance of a mine" if wide else " chance of a mine, given at the cursor"
        return [("hints: ", 0), ("s", _PAIR_SAFE), (" safe   ", 0), ("M", _PAIR_MINE), (" mine   ", 0),
                (sample, _PAIR_RISKY), (meaning, 0)]  # fmt: skip

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

    def draw(self, screen: Any) -> None:
        """Draw the whole screen on a curses window."""
        screen.erase()
        height, width = screen.getmaxyx()
        self.screen_width = width
        geometry = self.geometry()
        if height < self.essential_lines or width <= geometry.width:
            message = f"Enlarge the terminal to at least {geometry.width + 1}x{self.essential_lines} (q quits)"
            _put(screen, 0, 0, message, 0)
            screen.refresh()
            return
        for y, (text, style) in enumerate(self.lines()[:height]):
            if style == "board":
                self._draw_board_line(screen, y, text, geometry)
            elif style == "legend":
                self._draw_legend(screen, y, width)
            else:
                _put(screen, y, 0, text[: width - 1], _STYLE_ATTRS.get(style, 0))
        screen.refresh()

    def _draw_board_line(self, screen: Any, y: int, text: str, geometry: BoardGeometry) -> None:
        row = y - geometry.top
        _put(screen, y, 0, text[: geometry.left], 0)
        for col in range(self.session.spec.cols):
            x = geometry.cell_x(col)
            attr = self._cell_attr(row, col)
            if (row, col) == self.cursor:
                attr |= curses.A_REVERSE
            _put(screen, y, x, text[x : x + geometry.cell_width], attr)

    def _draw_legend(self, screen: Any, y: int, width: int) -> None:
        x = 0
        for text, pair in self.legend_segments():
            _put(screen, y, x, text[: max(width - 1 - x, 0)], (_colour(pair) | curses.A_BOLD) if pair else 0)
            x += len(text)

    def _cell_attr(self, row: int, col: int) -> int:
        code = int(self.session.grid[row, col])
        if code > 0:
            return _colour(code) | curses.A_BOLD
        if code == FLAG:
            return _colour(_PAIR_FLAG) | curses.A_BOLD
        if code == MINE:
            return _colour(_PAIR_MINE) | curses.A_BOLD
        if self.show_hints and code == HIDDEN:
            hints = self.session.frontier_hints()
            if hints is not None and not np.isnan(hints.chances[row, col]):
                return _colour(_HINT_PAIRS[hint_kind(float(hints.chances[row, col]))])
        return 0


_STYLE_ATTRS: dict[str, int] = {}
"""Curses attributes of the line styles, filled by :func:`_init_colours` once curses has started."""


def _colour(pair: int) -> int:
    return curses.color_pair(pair) if curses.has_colors() else 0


def _init_colours() -> None:
    _STYLE_ATTRS["title"] = curses.A_BOLD
    _STYLE_ATTRS["won"] = curses.A_BOLD
    _STYLE_ATTRS["lost"] = curses.A_BOLD
    if not curses.has_colors():
        return
    curses.start_color()
    curses.use_default_colors()
    foregrounds = {
        1: curses.COLOR_BLUE, 2: curses.COLOR_GREEN, 3: curses.COLOR_RED, 4: curses.COLOR_MAGENTA,
        5: curses.COLOR_RED, 6: curses.COLOR_CYAN, 7: curses.COLOR_WHITE, 8: curses.COLOR_WHITE,
        _PAIR_FLAG: curses.COLOR_RED, _PAIR_MINE: curses.COLOR_RED, _PAIR_SAFE: curses.COLOR_GREEN,
        _PAIR_RISKY: curses.COLOR_YELLOW, _PAIR_WON: curses.COLOR_GREEN, _PAIR_LOST: curses.COLOR_RED,
    }  # fmt: skip
    for pair, colour in foregrounds.items():
        curses.init_pair(pair, colour, -1)
    _STYLE_ATTRS["won"] |= curses.color_pair(_PAIR_WON)
    _STYLE_ATTRS["lost"] |= curses.color_pair(_PAIR_LOST)


def _put(screen: Any, y: int, x: int, text: str, attr: int) -> None:
    """addstr that ignores the error curses raises for the bottom-right corner of the screen."""
    with contextlib.suppress(curses.error):
        screen.addstr(y, x, text, attr)


def _key_name(key: int) -> str:
    try:
        return repr(curses.keyname(key).decode("ascii", "replace"))
    except (ValueError, curses.error):
        return str(key)


_BUTTONS = ((curses.BUTTON1_PRESSED | curses.BUTTON1_CLICKED, 1),
            (curses.BUTTON2_PRESSED | curses.BUTTON2_CLICKED, 2),
            (curses.BUTTON3_PRESSED | curses.BUTTON3_CLICKED, 3))  # fmt: skip


def run_terminal(game: TerminalGame) -> None:
    """Run the full-screen game until the player quits (Ctrl-C quits too)."""
    os.environ.setdefault("ESCDELAY", "25")
    with contextlib.suppress(KeyboardInterrupt):
        curses.wrapper(_loop, game)


def _loop(screen: Any, game: TerminalGame) -> None:
    _init_colours()
    with contextlib.suppress(curses.error):
        curses.curs_set(0)
    screen.keypad(True)
    curses.mousemask(curses.ALL_MOUSE_EVENTS)
    curses.mouseinterval(0)
    while not game.quit:
        screen.timeout(max(10, min(100, int(game.delay * 1000))))  # the clock and auto play keep moving
        game.tick()
        game.draw(screen)
        key = screen.getch()
        if key == curses.KEY_MOUSE:
            _handle_mouse(game)
        elif key != -1:
            game.handle_key(key)


def _handle_mouse(game: TerminalGame) -> None:
    try:
        _, x, y, _, state = curses.getmouse()
    except curses.error:
        return
    for mask, button in _BUTTONS:
        if state & mask:
            game.handle_click(y, x, button)
            return


def watch_plain(session: GameSession, delay: float, out: TextIO) -> bool:
    """Let the session's agent play one game, printing each move and the board after it; returns whether it won.

    For pipes and CI logs: plain text, no escape codes, one board per move.
    """
    out.write(f"{session.agent_name} plays {session.spec.rows}x{session.spec.cols}, {session.spec.mines} mines, "
              f"first click {session.spec.first_click}\n")  # fmt: skip
    while not session.is_over:
        move = session.agent_move()
        if move is None:
            break
        out.write(f"\nmove {len(session.moves)}: {session.message}\n")
        out.write(render_ansi(session.board.grid, session.shown_layout))
        out.flush()
        if delay > 0 and not session.is_over:
            time.sleep(delay)
    won = session.status == "won"
    if session.is_over:
        out.write(f"\n{session.agent_name} {'won' if won else 'lost'} in {len(session.moves)} moves "
                  f"({session.agent_summary()})\n")  # fmt: skip
    else:
        out.write(f"\nstopped: {session.message}\n")
    return won

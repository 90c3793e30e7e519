"""The curses side of the terminal game: its colours, a :class:`~minesweeper_cli.apps.tui.TerminalGame` drawn on
the screen, and the loop that feeds the game keys, mouse clicks and clock ticks.
"""

from __future__ import annotations

import contextlib
import curses
import os
from typing import Any

import numpy as np

from mine_env.engine.constants import FLAG, HIDDEN, MINE
from minesweeper_cli.apps.hints import Hint, hint_kind
from minesweeper_cli.apps.terminal_layout import BoardGeometry
from minesweeper_cli.apps.tui import TerminalGame

# Colour pairs: 1..8 are the numbers' own.
_PAIR_FLAG, _PAIR_MINE, _PAIR_SAFE, _PAIR_RISKY, _PAIR_WON, _PAIR_LOST = 9, 10, 11, 12, 13, 14
HINT_PAIRS = {Hint.SAFE: _PAIR_SAFE, Hint.UNCERTAIN: _PAIR_RISKY, Hint.MINE: _PAIR_MINE}
"""The colour pair of each kind of hint, on the board and in the legend."""
_STYLE_ATTRS: dict[str, int] = {}
"""Curses attributes of the line styles, filled by :func:`_init_colours` once curses has started."""
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
        draw(screen, game)
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


def draw(screen: Any, game: TerminalGame) -> None:
    """Draw the whole screen of ``game`` on a curses window, and tell the game the screen's width."""
    screen.erase()
    height, width = screen.getmaxyx()
    game.screen_width = width
    geometry = game.geometry()
    if height < game.essential_lines or width <= geometry.width:
        message = f"Enlarge the terminal to at least {geometry.width + 1}x{game.essential_lines} (q quits)"
        _put(screen, 0, 0, message, 0)
        screen.refresh()
        return
    for y, (text, style) in enumerate(game.lines()[:height]):
        if style == "board":
            _draw_board_line(screen, game, y, text, geometry)
        elif style == "legend":
            _draw_legend(screen, game, y, width)
        else:
            _put(screen, y, 0, text[: width - 1], _STYLE_ATTRS.get(style, 0))
    screen.refresh()


def _draw_board_line(screen: Any, game: TerminalGame, y: int, text: str, geometry: BoardGeometry) -> None:
    row = y - geometry.top
    _put(screen, y, 0, text[: geometry.left], 0)
    for col in range(game.session.spec.cols):
        x = geometry.cell_x(col)
        attr = _cell_attr(game, row, col)
        if (row, col) == game.cursor:
            attr |= curses.A_REVERSE
        _put(screen, y, x, text[x : x + geometry.cell_width], attr)


def _draw_legend(screen: Any, game: TerminalGame, y: int, width: int) -> None:
    x = 0
    for text, hint in game.legend_segments():
        attr = 0 if hint is None else _colour(HINT_PAIRS[hint]) | curses.A_BOLD
        _put(screen, y, x, text[: max(width - 1 - x, 0)], attr)
        x += len(text)


def _cell_attr(game: TerminalGame, row: int, col: int) -> int:
    code = int(game.session.grid[row, col])
    if code > 0:
        return _colour(code) | curses.A_BOLD
    if code == FLAG:
        return _colour(_PAIR_FLAG) | curses.A_BOLD
    if code == MINE:
        return _colour(_PAIR_MINE) | curses.A_BOLD
    if game.show_hints and code == HIDDEN:
        hints = game.session.frontier_hints()
        if hints is not None and not np.isnan(hints.chances[row, col]):
            return _colour(HINT_PAIRS[hint_kind(float(hints.chances[row, col]))])
    return 0


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

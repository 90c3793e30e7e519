"""A plain-text board format: positions for the solver and fixtures for the tests.

The format, line by line:

- ``#`` starts a comment; blank lines are ignored.
- Optional header lines ``key: value`` before the grid: ``mines: N`` (total mines on the board) and
  ``first_click: safe|opening|none``.
- Then one line per row, one character per cell (spaces between cells are allowed and ignored):

  ====  =====================================================
  char  cell
  ====  =====================================================
  ``.``   hidden
  ``F``   hidden, flagged
  ``X``   a shown mine
  ``0-8`` revealed, with that many mines around it
  ``*``   hidden mine (full boards only)
  ``+``   flagged mine (full boards only)
  ====  =====================================================

A board with any ``*`` or ``+`` is a *full* board: its layout is known (the mines are exactly the ``*``,
``+`` and ``X`` cells) and every revealed number must agree with it. Otherwise it is a *position*, what
a player sees, and the ``mines:`` header is required.

Example (a beginner position)::

    mines: 10
    . . 1 0 0 0 0 0 0
    . . 1 0 0 0 0 0 0
    ...
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mine_env.engine.constants import FIRST_CLICK_RULES, FLAG, HIDDEN, MINE
from mine_env.engine.geometry import is_revealed
from mine_env.engine.layout import neighbour_counts

_CODES: dict[str, int] = {".": HIDDEN, "F": FLAG, "X": MINE, "*": HIDDEN, "+": FLAG}
_CODES.update({str(d): d for d in range(9)})
_MINE_CHARS = frozenset("*+X")
_HEADER_KEYS = ("mines", "first_click")


@dataclass(frozen=True)
class TextBoard:
    """A parsed board file.

    Attributes:
        grid: The player's view, int8 (rows, cols) with the codes of :mod:`mine_env.engine.constants`.
        mines: Total mines on the board.
        layout: Where the mines lie (bool (rows, cols)) for a full board, else None.
        first_click: The rule named in the header, if any.
    """

    grid: np.ndarray
    mines: int
    layout: np.ndarray | None = None
    first_click: str | None = None


def parse_board(text: str) -> TextBoard:
    """Read a board from text in the format above; raises ValueError saying what is wrong and where."""
    header: dict[str, str] = {}
    rows: list[list[str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if ":" in line:
            if rows:
                raise ValueError(f"line {number}: header line {line!r} after the grid has started")
            name, value = (part.strip() for part in line.split(":", 1))
            if name not in _HEADER_KEYS:
                raise ValueError(f"line {number}: unknown header {name!r}; expected one of {', '.join(_HEADER_KEYS)}")
            header[name] = value
            continue
        cells = list(line.replace(" ", ""))
        unknown = sorted(set(cells) - set(_CODES))
        if unknown:
            raise ValueError(f"line {number}: unknown cell character(s) {''.join(unknown)!r}; expected one of .F*+X0-8")
        if rows and len(cells) != len(rows[0]):
            raise ValueError(f"line {number}: row has {len(cells)} cells, the first row has {len(rows[0])}")
        rows.append(cells)
    if not rows:
        raise ValueError("no grid found: a board needs at least one row of cells")
    chars = np.array(rows)
    grid = np.vectorize(_CODES.__getitem__, otypes=[np.int8])(chars)
    full = bool(np.isin(chars, ["*", "+"]).any())
    layout = np.isin(chars, list(_MINE_CHARS)) if full else None
    mines = _header_mines(header, layout)
    first_click = header.get("first_click")
    if first_click is not None and first_click not in FIRST_CLICK_RULES:
        raise ValueError(f"unknown first_click {first_click!r}; expected one of {', '.join(FIRST_CLICK_RULES)}")
    if layout is not None:
        _check_numbers(grid, layout)
    elif mines < int((grid == MINE).sum()) or mines > grid.size:
        raise ValueError(f"mines: {mines} does not fit a board of {grid.size} cells with {(grid == MINE).sum()} shown")
    return TextBoard(grid=grid, mines=mines, layout=layout, first_click=first_click)


def _header_mines(header: dict[str, str], layout: np.ndarray | None) -> int:
    if "mines" not in header:
        if layout is None:
            raise ValueError("a position without a known layout needs a 'mines: N' header line")
        return int(layout.sum())
    try:
        mines = int(header["mines"])
    except ValueError:
        raise ValueError(f"mines must be an integer, got {header['mines']!r}") from None
    if layout is not None and mines != int(layout.sum()):
        raise ValueError(f"header says mines: {mines} but the grid marks {int(layout.sum())} mines")
    return mines


def _check_numbers(grid: np.ndarray, layout: np.ndarray) -> None:
    counts = neighbour_counts(layout)
    wrong = np.argwhere(is_revealed(grid) & ((grid != counts) | layout))
    if len(wrong):
        r, c = wrong[0]
        raise ValueError(f"cell ({r}, {c}) shows {grid[r, c]} but the layout gives {counts[r, c]} mines around it")


def format_board(grid: np.ndarray, mines: int, layout: np.ndarray | None = None, first_click: str | None = None) -> str:
    """Write a board in the text format; with ``layout``, a full board that :func:`parse_board` reads back."""
    lines = [f"mines: {mines}"]
    if first_click is not None:
        lines.append(f"first_click: {first_click}")
    for r in range(grid.shape[0]):
        chars = (_cell_char(int(grid[r, c]), layout is not None and bool(layout[r, c])) for c in range(grid.shape[1]))
        lines.append(" ".join(chars))
    return "\n".join(lines) + "\n"


def _cell_char(code: int, is_mine: bool) -> str:
    if is_revealed(code):
        return str(code)
    if code == MINE:
        return "X"
    if code == FLAG:
        return "+" if is_mine else "F"
    return "*" if is_mine else "."


def read_board(path: str | Path) -> TextBoard:
    """Read a board file; the error names the file."""
    path = Path(path)
    try:
        return parse_board(path.read_text())
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def write_board(path: str | Path, grid: np.ndarray, mines: int, layout: np.ndarray | None = None) -> None:
    """Write a board file."""
    Path(path).write_text(format_board(grid, mines, layout))

"""The board as a language model reads it: the observation text, its parser, and the rules as a system prompt.

An observation, line by line (a 5x5 board, 3 mines, after one move)::

    Minesweeper 5x5, 3 mines, 3 left to flag, first click: opening
    Last move: reveal 2 2 opened 14 cells
       0 1 2 3 4
     0 0 0 1 . .
     1 0 0 1 . .
     2 1 1 2 1 1
     3 . . . . .
     4 . . . . .
    Status: playing, move 2

- line 1: rows x cols, the mines, the mines not yet flagged (mines minus flags), the first-click rule;
- line 2: what the last reply did (``Last move: none`` after a reset, or why nothing happened);
- the grid: a header of column numbers, then one line per row, its number first; every cell is one
  character, right-aligned under its column number: ``.`` hidden, ``F`` flagged, ``X`` the mine that
  was hit, ``0``-``8`` an open cell and the mines around it;
- the last line: ``playing``, ``won`` or ``lost``, and the number of the next move.

Rows and columns count from 0, row first, as in every move. :func:`parse_observation` reads the text back
(the baseline agents play through it, so the reference rows of an evaluation see exactly what a model sees).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from mine_env.engine.constants import FLAG, HIDDEN, MINE

_CELL_CHARS: dict[int, str] = {HIDDEN: ".", FLAG: "F", MINE: "X", **{d: str(d) for d in range(9)}}
_CHAR_CODES: dict[str, int] = {char: code for code, char in _CELL_CHARS.items()}
_HEADER = re.compile(r"^Minesweeper (\d+)x(\d+), (\d+) mines, (-?\d+) left to flag, first click: (\w+)$")


class TextObservation(NamedTuple):
    """An observation read back from its text.

    Attributes:
        grid: The player's view, int8 (rows, cols), with the env's codes (-1 hidden, -2 flag, -3 mine, 0..8).
        mines: Mines on the board.
        first_click: The first-click rule.
        status: ``"playing"``, ``"won"`` or ``"lost"``.
    """

    grid: np.ndarray
    mines: int
    first_click: str
    status: str


def render_observation(grid: np.ndarray, mines: int, first_click: str, last_move: str, status: str, move: int) -> str:
    """The observation text of a position (the format in the module docstring).

    Args:
        grid: The view, int8 (rows, cols).
        mines: Mines on the board.
        first_click: The rule's name.
        last_move: What the last reply did, one line.
        status: ``"playing"``, ``"won"`` or ``"lost"``.
        move: The number of the next move (1 before the first).
    """
    rows, cols = grid.shape
    flags = int(np.count_nonzero(grid == FLAG))
    width = len(str(cols - 1)) + 1
    label = len(str(rows - 1)) + 1
    lines = [
        f"Minesweeper {rows}x{cols}, {mines} mines, {mines - flags} left to flag, first click: {first_click}",
        f"Last move: {last_move}",
        " " * label + "".join(str(c).rjust(width) for c in range(cols)),
    ]
    for r in range(rows):
        lines.append(str(r).rjust(label) + "".join(_CELL_CHARS[int(code)].rjust(width) for code in grid[r]))
    ending = f"move {move}" if status == "playing" else f"after {move - 1} moves"
    lines.append(f"Status: {status}, {ending}")
    return "\n".join(lines)


def parse_observation(text: str) -> TextObservation:
    """Read an observation of :func:`render_observation` back; ValueError saying what is wrong otherwise.

    The board is found wherever it stands in ``text``, so a chat prompt that wraps it still parses.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _HEADER.match(line.strip())), None)
    if start is None:
        raise ValueError("no 'Minesweeper RxC, N mines, ...' line found: not an observation of the text env")
    match = _HEADER.match(lines[start].strip())
    assert match is not None
    rows, cols, mines = (int(match.group(i)) for i in (1, 2, 3))
    first = start + 3  # the header, the last move, the column numbers
    grid_lines = lines[first : first + rows]
    if len(grid_lines) != rows:
        raise ValueError(f"the board has {rows} rows but only {len(grid_lines)} row lines follow")
    grid = np.empty((rows, cols), dtype=np.int8)
    for r, line in enumerate(grid_lines):
        cells = line.split()[1:]  # the row number first
        if len(cells) != cols or any(cell not in _CHAR_CODES for cell in cells):
            raise ValueError(f"row {r} does not hold {cols} cells of .FX0-8: {line!r}")
        grid[r] = [_CHAR_CODES[cell] for cell in cells]
    status = _status(lines[first + rows] if first + rows < len(lines) else "")
    return TextObservation(grid, mines, match.group(5), status)


def _status(line: str) -> str:
    match = re.match(r"^Status: (playing|won|lost)\b", line.strip())
    return match.group(1) if match else "playing"


def system_prompt(tools: bool = False) -> str:
    """The rules and the answer format, for the system message of a chat.

    Args:
        tools: The model answers by calling the ``make_move`` tool (:func:`mine_llm.moves.tool_schema`) rather
            than in text.
    """
    answer = (
        "Answer by calling the make_move tool once, with action 'reveal' or 'flag', the row and the column."
        if tools
        else "Answer with one move on the last line of your reply: 'reveal ROW COL' or 'flag ROW COL' "
        "(for example 'reveal 3 4'), or the JSON {\"action\": \"reveal\", \"row\": 3, \"col\": 4}. "
        "The last move written in your reply is played."
    )
    return (
        "You are playing Minesweeper. The board is a grid of cells; some hide mines. Rows and columns are "
        "numbered from 0, row first. Cells: '.' hidden, 'F' flagged, 'X' the mine that was hit, a digit an open "
        "cell showing how many of its up to 8 neighbours (diagonals included) hold a mine. Revealing a mine "
        "loses; revealing every cell without a mine wins. Revealing a 0 opens its neighbours too. 'flag ROW COL' "
        "puts a flag on a hidden cell you believe is a mine, or takes it off again; flags only help you keep "
        "track. Revealing an open number whose flags around it match it opens its other neighbours (a chord). "
        "Under the first-click rule 'opening' your first reveal and its neighbours are free of mines; under "
        "'safe' only the first cell is; under 'none' nothing is. Deduce from the numbers which cells are certainly "
        "safe and reveal those; guess only when no cell is certainly safe, and then take the least likely mine. "
        + answer
    )

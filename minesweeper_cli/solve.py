"""``minesweeper solve FILE``: the exact mine chances of a position and the solver's move.

``examples/beginner-position.txt`` is a position to try it on.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from mine_env.analysis.probability import BoardAnalysis
    from mine_env.engine.textformat import TextBoard

EXAMPLE = "examples/beginner-position.txt"
"""A position shipped with the project, named in the errors as one to start from."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "solve", help="print the exact mine probabilities of a board file and the recommended move"
    )
    parser.add_argument("file", help=f"a board in the text format of mine_env.engine.textformat, e.g. {EXAMPLE}")
    parser.add_argument("--trust-flags", action="store_true", help="take flags as mines")
    parser.set_defaults(func=run)


def read_position(path: str) -> TextBoard:
    """The board in the file ``path``; a ValueError that names the file says what is wrong with it."""
    from mine_env.engine.textformat import parse_board

    file = Path(path)
    if file.is_dir():
        raise ValueError(f"{path} is a folder, not a board file; e.g. minesweeper solve {EXAMPLE}")
    if not file.is_file():
        raise ValueError(f"no board file {path}; e.g. minesweeper solve {EXAMPLE}")
    try:
        text = file.read_text()
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file: a board file is plain text, like {EXAMPLE}") from None
    try:
        return parse_board(text)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def analyse_position(board: TextBoard, path: str, trust_flags: bool) -> BoardAnalysis:
    """The exact analysis of a position; a ValueError naming the file when no layout fits it."""
    from mine_env.analysis.probability import InconsistentBoard, analyse

    try:
        return analyse(board.grid, board.mines, trust_flags=trust_flags)
    except InconsistentBoard as error:
        mines = f"{board.mines} mine" if board.mines == 1 else f"{board.mines} mines"
        raise ValueError(f"{path}: no layout of {mines} fits this position: {error}") from None


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from agents.solver import SolverAgent
    from mine_env.engine.constants import HIDDEN

    board = read_position(args.file)
    grid = board.grid
    analysis = analyse_position(board, args.file, args.trust_flags)
    print(format_probabilities(grid, analysis.probabilities))
    hidden = grid == HIDDEN
    print(f"certainly safe: {int((analysis.certain_safe & hidden).sum())}  "
          f"certain mines: {int((analysis.certain_mines & hidden).sum())}  "
          f"hidden: {int(hidden.sum())}  mines: {board.mines}")  # fmt: skip
    if not hidden.any():
        print("no hidden cell left to reveal")
        return 0
    info = {
        "mines": board.mines,
        "action_mask": hidden.ravel().astype(np.int8),
        "first_click": board.first_click or "none",
    }
    action = SolverAgent(seed=0).act(grid, info)
    row, col = divmod(action, grid.shape[1])
    risk = analysis.probabilities[row, col]
    kind = "certain" if risk == 0.0 else f"a guess, mine chance {risk:.2%}"
    print(f"recommended move: reveal ({row}, {col}), {kind}")
    return 0


def format_probabilities(grid: np.ndarray, probabilities: np.ndarray) -> str:
    """Mine chances in percent on hidden and flagged cells; revealed cells show their number, shown mines X."""
    from mine_env.engine.constants import MINE

    rows, cols = grid.shape
    lines = ["     " + " ".join(f"{c:>4}" for c in range(cols))]
    for r in range(rows):
        cells = " ".join(f"{_cell_text(int(grid[r, c]), probabilities[r, c], MINE):>4}" for c in range(cols))
        lines.append(f"{r:>4} {cells}")
    return "\n".join(lines)


def _cell_text(code: int, probability: float, mine: int) -> str:
    if code == mine:
        return "X"
    if code >= 0:
        return str(code)
    return f"{probability:.0%}"

"""``minesweeper solve FILE``: the exact mine chances of a position and the solver's move."""

from __future__ import annotations

import argparse

import numpy as np

from agents.analysis.probability import analyse
from agents.solver import SolverAgent
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.textformat import read_board


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "solve", help="print the exact mine probabilities of a board file and the recommended move"
    )
    parser.add_argument("file", help="a board in the text format of mine_env.engine.textformat")
    parser.add_argument("--trust-flags", action="store_true", help="take flags as mines")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    board = read_board(args.file)
    grid = board.grid
    analysis = analyse(grid, board.mines, trust_flags=args.trust_flags)
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
    rows, cols = grid.shape
    lines = ["     " + " ".join(f"{c:>4}" for c in range(cols))]
    for r in range(rows):
        cells = " ".join(f"{_cell_text(int(grid[r, c]), probabilities[r, c]):>4}" for c in range(cols))
        lines.append(f"{r:>4} {cells}")
    return "\n".join(lines)


def _cell_text(code: int, probability: float) -> str:
    if code == MINE:
        return "X"
    if code >= 0:
        return str(code)
    return f"{probability:.0%}"

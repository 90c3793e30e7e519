"""Under the classic rule, where to click second: rollouts from each candidate after the corner shows a number.

Under ``--first-click safe`` the solver opens a corner; about half the time that corner shows a number and the
position is the same in every such game (one revealed corner, value 1, 2 or 3): the second click is a true guess
decided once for all those games. The solver takes one of the other three corners (each the safest cell with the
most chance of a zero, tied, so a seeded draw picks). This study plays each candidate out on the same layouts,
drawn exactly from the position's posterior (:class:`agents.solver.posterior.PosteriorSampler`), the solver at a setting
playing on, and reports each candidate's win rate and its difference from the first candidate (paired over
layouts, with its standard error). The position's share of games is exact (the corner's hidden neighbours hold
``value`` of the other cells' mines, hypergeometric).

Usage::

    python studies/second_click.py --value 1 --layouts 20000
    python studies/second_click.py --value 1 --layouts 5000 --strength strong --cell 15,0 --cell 0,29 --cell 15,29
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence

import numpy as np

from agents.solver.guess import PRESETS
from agents.solver.playouts import play_outs
from agents.solver.posterior import PosteriorSampler
from mine_env.engine.constants import HIDDEN
from mine_env.engine.constants import PRESETS as BOARDS


def default_candidates(rows: int, cols: int) -> list[tuple[int, int]]:
    """The other corners first, then cells that bear on the corner's number or stand apart from it: two steps
    along each edge and on the diagonal, a knight's move, the middle of the top edge and the centre."""
    cells = [(rows - 1, 0), (0, cols - 1), (rows - 1, cols - 1), (0, 2), (2, 0), (2, 2), (1, 2), (0, cols // 2),
             (rows // 2, cols // 2)]  # fmt: skip
    return list(dict.fromkeys((r, c) for r, c in cells if 0 <= r < rows and 0 <= c < cols and (r, c) != (0, 0)))


def position_share(rows: int, cols: int, mines: int, value: int) -> float:
    """The share of games whose safe corner (0, 0) shows ``value``: its 3 hidden neighbours hold ``value`` of the
    ``mines`` spread over the other ``rows * cols - 1`` cells."""
    others = rows * cols - 1
    return math.comb(3, value) * math.comb(others - 3, mines - value) / math.comb(others, mines)


def rollouts(rows: int, cols: int, mines: int, value: int, cells: Sequence[tuple[int, int]], layouts: int,
             strength: str, seed: int) -> dict[tuple[int, int], np.ndarray]:  # fmt: skip
    """Whether each candidate's game was won, on the same ``layouts`` layouts and solver random state."""
    grid = np.full((rows, cols), HIDDEN, np.int8)
    grid[0, 0] = value
    rng = np.random.default_rng(seed)
    drawn = PosteriorSampler(grid, mines).samples(rng, layouts)
    state = np.uint64(rng.integers(2**63))
    return {cell: play_outs(grid, mines, drawn, cell[0] * cols + cell[1], PRESETS[strength], state)[0]
            for cell in cells}  # fmt: skip


def table(wins: dict[tuple[int, int], np.ndarray], share: float) -> str:
    """Each candidate's win rate and its paired difference from the first, in points of this position's games and
    of all games."""
    cells = list(wins)
    base = wins[cells[0]].astype(float)
    lines = ["| second click | won | against the first | SE | points of all games |",
             "| --- | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for cell in cells:
        difference = wins[cell].astype(float) - base
        se = difference.std(ddof=1) / math.sqrt(difference.size)
        lines.append(f"| {cell} | {100 * wins[cell].mean():.2f}% | {100 * difference.mean():+.2f} | {100 * se:.2f} "
                     f"| {100 * share * difference.mean():+.2f} |")  # fmt: skip
    return "\n".join(lines)


def parse_cell(text: str) -> tuple[int, int]:
    """``R,C`` as a cell."""
    try:
        row, col = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a cell is ROW,COL (e.g. 15,0), got {text!r}") from None
    return row, col


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="expert", choices=sorted(BOARDS), help="the board (default expert)")
    parser.add_argument("--value", type=int, default=1, choices=(1, 2, 3), help="the number the corner shows")
    parser.add_argument("--layouts", type=int, default=20_000, help="layouts per candidate, the same for each")
    parser.add_argument("--strength", default="fast", choices=sorted(PRESETS), help="who plays on (default fast)")
    parser.add_argument("--cell", type=parse_cell, action="append",
                        help="a candidate ROW,COL (repeat; the first is the reference); default: corners and more")
    parser.add_argument("--seed", type=int, default=1, help="seed of the layouts and the solver's draws")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    rows, cols, mines = BOARDS[args.preset]
    cells = args.cell or default_candidates(rows, cols)
    bad = [cell for cell in cells if not (0 <= cell[0] < rows and 0 <= cell[1] < cols) or cell == (0, 0)]
    if bad or args.layouts < 2:
        print(f"error: candidates must be hidden cells of the {rows}x{cols} board other than (0, 0) (got {bad}), "
              "and --layouts at least 2", file=sys.stderr)  # fmt: skip
        return 2
    share = position_share(rows, cols, mines, args.value)
    print(f"{args.preset}, safe corner (0, 0) showing {args.value}: {100 * share:.1f}% of games; {args.layouts:,} "
          f"layouts a candidate, solver-{args.strength} playing on\n")  # fmt: skip
    print(table(rollouts(rows, cols, mines, args.value, cells, args.layouts, args.strength, args.seed), share))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where to click first: the solver's win rate for each first-click cell, on the same layout keys.

The first click is the one move the solver does not derive from a count; ``agents.solver.first_click_cell``
fixes it per rule (a corner under ``safe``; (2, 2), or (3, 3) on expert, under ``opening``). This script
plays the solver from other cells to check that choice. Each row is one first cell; the games are those of
the suite ``minesweeper eval --preset P --first-click R --games N --seed S`` plays.

Under ``safe`` and ``opening`` the mines avoid the first click (and, under ``opening``, its neighbours), so
one layout key gives a different board for each first cell: rows share keys and agent seeds, not boards.
The paired column still applies McNemar's exact test to the games only one of the two rows won (it needs
independent pairs, not identical ones); it compares each row with the rule's default cell.

Usage (``--backend ray [--address HOST:PORT]`` plays the games as Ray tasks, the same wins game for game)::

    python studies/first_click.py --preset expert --first-click safe --games 10000 --seed 2026
"""

from __future__ import annotations

import argparse
import json

from solver_ablation import add_suite_arguments, play_setting, result_row, study_backend, suite_from

from agents.solver import DEFAULT_STRENGTH, STRENGTHS, first_click_cell
from mine_env.engine.constants import PRESETS


def candidate_cells(rows: int, cols: int) -> list[tuple[int, int]]:
    """The diagonal from the corner to (4, 4), an edge cell two steps in, and the centre, without repeats."""
    cells = [(d, d) for d in range(5)] + [(0, 2), (rows // 2, cols // 2)]
    return [cell for i, cell in enumerate(cells) if cell not in cells[:i] and cell[0] < rows and cell[1] < cols]


def parse_cell(text: str) -> tuple[int, int]:
    """A ``row,col`` argument as a pair of integers."""
    try:
        r, c = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a cell is written row,col (e.g. 3,3), got {text!r}") from None
    return r, c


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_suite_arguments(parser, first_click="safe")
    parser.add_argument("--cells", type=parse_cell, nargs="+", help="row,col cells to try (default: a set)")
    parser.add_argument("--strength", choices=STRENGTHS, default=DEFAULT_STRENGTH)
    args = parser.parse_args()
    rows, cols, _ = PRESETS[args.preset]
    default = first_click_cell(rows, cols, args.first_click)
    cells = args.cells or candidate_cells(rows, cols)
    for r, c in cells:
        if not (0 <= r < rows and 0 <= c < cols):
            parser.error(f"cell {r},{c} lies off the {rows}x{cols} board")
    cells = [default] + [cell for cell in cells if cell != default]
    suite = suite_from(args)
    print(f"{suite.name}, solver {args.strength}: {args.games:,} games per first cell, the same layout keys\n")
    print("| first cell | wins | win rate | Wilson 95% | vs the default cell (only default / only this, p) | ms/game |")
    print("|---|---:|---:|---|---|---:|")
    report, baseline = [], None
    with study_backend(args) as backend:
        for cell in cells:
            won, ms = play_setting(backend, suite, {"strength": args.strength, "first_cell": cell})
            label = f"({cell[0]}, {cell[1]})" + (", the default" if baseline is None else "")
            line, row = result_row(label, won, ms, baseline)
            print(line, flush=True)
            report.append({"first_cell": list(cell), "default": baseline is None, **row})
            if baseline is None:
                baseline = won
    if args.json:
        payload = {"suite": suite.to_dict(), "strength": args.strength, "rows": report}
        args.json.write_text(json.dumps(payload, indent=2) + "\n")


if __name__ == "__main__":
    main()

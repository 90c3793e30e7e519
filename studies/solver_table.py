"""Print the Markdown table of docs/SOLVER.md from the JSON reports of `make solver-strength`.

The ``ablation-*.json`` and ``first-click-*.json`` files of the two studies (studies/solver_ablation.py,
studies/first_click.py), kept in the same folder, are skipped.

Usage: python studies/solver_table.py [docs/results/solver]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agents.solver import first_click_cell

BOARD_ORDER = {(9, 9, 10): 0, (16, 16, 40): 1, (16, 30, 99): 2}
BOARD_NAMES = {(9, 9, 10): "beginner 9x9/10", (16, 16, 40): "intermediate 16x16/40", (16, 30, 99): "expert 16x30/99"}


def rule_label(rows: int, cols: int, rule: str) -> str:
    """The rule and the solver's first cell for it on this board, as the table names them."""
    r, c = first_click_cell(rows, cols, rule)
    return f"{rule}, corner ({r},{c})" if rule == "safe" else f"{rule}, ({r},{c})"


def rows_of(report: dict) -> list[tuple[tuple, str]]:
    """One table row per agent of one report, with a sort key."""
    suite = report["suite"]
    board = (suite["rows"], suite["cols"], suite["mines"])
    out = []
    for result in report["results"]:
        lo, hi = result["ci95"]
        line = (
            f"| {BOARD_NAMES.get(board, 'x'.join(map(str, board)))} | {rule_label(*board[:2], suite['first_click'])} "
            f"| {result['agent']} | {result['games']:,} | {result['wins']:,} | {result['win_rate']:.2%} "
            f"| {lo:.2%} - {hi:.2%} | {result['mean_safe_fraction']:.1%} | {result['time_per_game_ms']:.1f} |"
        )
        out.append(((BOARD_ORDER.get(board, 9), suite["first_click"]), line))
    return out


def main(folder: str = "docs/results/solver") -> None:
    studies = ("ablation-", "first-click-")
    reports = [path for path in sorted(Path(folder).glob("*.json")) if not path.name.startswith(studies)]
    rows = [row for path in reports for row in rows_of(json.loads(path.read_text()))]
    header = ("board", "rule, first click", "agent", "games", "wins", "win rate", "Wilson 95%", "safe revealed")
    header += ("ms/game",)
    print("| " + " | ".join(header) + " |")
    print("|---|---|---|---:|---:|---:|---|---:|---:|")
    for _, line in sorted(rows, key=lambda item: item[0]):
        print(line)


if __name__ == "__main__":
    main(*sys.argv[1:])

"""The results table of docs/BOT.md from the JSON reports of ``minesweeper bot`` (docs/results/bot/).

Usage::

    python studies/bot_table.py docs/results/bot/*.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def row(report: dict) -> str:
    """One Markdown row: the board, the games, the win rate with its interval, speed, the cross-check."""
    suite, entry = report["suite"], report["results"][0]
    low, high = entry["ci95"]
    board = f"{suite['preset']} {suite['cols']}x{suite['rows']}/{suite['mines']}"
    return (f"| {suite['program']} | {board} | {suite['seed']} | {entry['games']:,} | {entry['wins']:,} | "
            f"{entry['win_rate']:.2%} | {low:.2%} - {high:.2%} | {entry['clicks_per_game']:.0f} | "
            f"{entry['seconds_per_game']:.2f} | {entry['games_per_minute']:.1f} | {entry['unread_games']} | "
            f"{entry['crosschecked_games']:,} | {entry['misread_cells']} |")  # fmt: skip


def main(paths: list[str]) -> None:
    print("| program | board | seed | games | wins | win rate | Wilson 95% | clicks/game | s/game | games/min "
          "| unread | cross-checked | misread cells |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    reports = [json.loads(Path(path).read_text()) for path in paths]
    reports = [r for r in reports if "program" in r.get("suite", {})]  # the reference runs have another shape
    for report in sorted(reports, key=order):
        print(row(report))


def order(report: dict) -> tuple:
    """By program, then board size, the no-guess boards before the others, then seed."""
    suite = report["suite"]
    return suite["program"], suite["rows"] * suite["cols"], suite["preset"].endswith("-guess"), suite["seed"]


if __name__ == "__main__":
    main(sys.argv[1:])

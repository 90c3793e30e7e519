"""Draw the leaderboard plot of docs/RESULTS.md from its own tables, so a new row needs no other edit.

The board tables (a heading starting with ``## Beginner``, ``## Intermediate``, ``## Expert``) are read as
markdown: the first column is the agent (a link kept as its text), the second the win rate, the third its 95%
interval. Each board gets one panel of win rates with their intervals, best first.

    python studies/plot_leaderboard.py [--results docs/RESULTS.md] [--out docs/results/leaderboard.png]
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOARDS = ("Beginner", "Intermediate", "Expert")
PERCENT = re.compile(r"^(\d+(?:\.\d+)?)%$")
INTERVAL = re.compile(r"^(\d+(?:\.\d+)?)% - (\d+(?:\.\d+)?)%$")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


@dataclass(frozen=True)
class Row:
    """One agent's line of a board table: its win rate and interval, in percent."""

    agent: str
    win_rate: float
    low: float
    high: float


def read_tables(text: str) -> dict[str, list[Row]]:
    """The rows of each board table in ``text``; a line whose rate or interval is not a percentage is skipped."""
    tables: dict[str, list[Row]] = {}
    board = None
    for line in text.splitlines():
        if line.startswith("## "):
            board = next((name for name in BOARDS if line[3:].startswith(name)), None)
            continue
        if board is None or not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        rate, interval = PERCENT.match(cells[1]), INTERVAL.match(cells[2])
        if rate and interval:
            agent = LINK.sub(r"\1", cells[0]).replace("`", "")
            row = Row(agent, float(rate[1]), float(interval[1]), float(interval[2]))
            tables.setdefault(board, []).append(row)
    return tables


def plot(tables: dict[str, list[Row]], out: Path) -> None:
    """One horizontal panel per board: a point per agent at its win rate, a bar over its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    boards = [board for board in BOARDS if tables.get(board)]
    heights = [0.6 + 0.32 * len(tables[board]) for board in boards]
    fig, axes = plt.subplots(len(boards), 1, figsize=(12, sum(heights)), gridspec_kw={"height_ratios": heights})
    for ax, board in zip(axes if len(boards) > 1 else [axes], boards, strict=True):
        rows = sorted(tables[board], key=lambda row: row.win_rate)
        ys = range(len(rows))
        rates = [row.win_rate for row in rows]
        errors = [[row.win_rate - row.low for row in rows], [row.high - row.win_rate for row in rows]]
        ax.errorbar(rates, ys, xerr=errors, fmt="o", color="tab:blue", ecolor="tab:gray", capsize=3)
        ax.set_yticks(list(ys), [row.agent[:100] for row in rows], fontsize=8)
        ax.set_xlim(0, 100)
        ax.set_title(board, fontsize=10, loc="left")
        ax.grid(axis="x", alpha=0.3)
    axes_list = axes if len(boards) > 1 else [axes]
    axes_list[-1].set_xlabel("win rate, % (Wilson 95% interval)")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=ROOT / "docs" / "RESULTS.md")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "results" / "leaderboard.png")
    args = parser.parse_args(argv)
    if not args.results.is_file():
        print(f"error: {args.results} does not exist; pass --results PATH to the leaderboard", file=sys.stderr)
        return 2
    tables = read_tables(args.results.read_text())
    if not tables:
        print(f"error: no board table found in {args.results} (headings '## Beginner', ...)", file=sys.stderr)
        return 2
    plot(tables, args.out)
    print(f"{args.out}: {', '.join(f'{board} {len(rows)} rows' for board, rows in tables.items())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reports of an evaluation: a Markdown table, the contract's JSON, a CSV of every game and a PNG plot.

Tables and plots are drawn from the JSON-shaped dict of :meth:`eval.runner.EvalReport.to_dict`, so a saved
JSON report can be shown again (``json.load`` it and pass it in). matplotlib is imported only to plot.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from eval.metrics import RECORD_FIELDS, GameRecord

RESULT_COLUMNS = (
    "agent", "games", "win rate", "95% CI", "safe revealed", "guesses/game", "avoidable losses",
    "excess risk/guess", "invalid moves", "ms/game",
)  # fmt: skip
PAIRED_COLUMNS = (
    "agents (A vs B)", "both won", "only A", "only B", "neither", "McNemar p (exact)", "p (chi2)", "same boards",
)  # fmt: skip
PAIRED_NOTE = (
    "Paired on the same games (McNemar's test of equal win rates; same boards: the games both played on the same "
    "layout, which under a first-click rule are those both opened on the same cell):"
)


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _optional(value: Any, form: str) -> str:
    """A value formatted, or a dash where the oracle was off."""
    return "-" if value is None else format(value, form)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Markdown table lines, text columns left-aligned and the rest right-aligned."""
    align = ["---" if i == 0 else "---:" for i in range(len(header))]
    return ["| " + " | ".join(line) + " |" for line in (header, align, *rows)]


def suite_line(suite: dict[str, Any]) -> str:
    """One line describing a suite: name, version, board, rule, the cell played for every agent, games, seed."""
    cell = suite.get("first_cell")  # reports saved before suites could fix it lack it
    opening = "" if cell is None else f" on ({cell[0]}, {cell[1]}) for every agent"
    return (
        f"Suite {suite['name']} ({suite['version']}): {suite['rows']}x{suite['cols']} with {suite['mines']} mines, "
        f"first click {suite['first_click']}{opening}, {suite['games']} games, base seed {suite['base_seed']}"
    )


def result_row(result: dict[str, Any]) -> list[str]:
    """One agent's line of the results table."""
    low, high = result["ci95"]
    return [
        result["agent"],
        str(result["games"]),
        _percent(result["win_rate"]),
        f"{_percent(low)} - {_percent(high)}",
        _percent(result["mean_safe_fraction"]),
        _optional(result["guesses_per_game"], ".2f"),
        _optional(result["avoidable_losses"], "d"),
        _optional(result["mean_excess_risk"], ".4f"),
        str(result["invalid_moves"]),
        f"{result['time_per_game_ms']:.2f}",
    ]


def paired_row(pair: dict[str, Any]) -> list[str]:
    """One pair's line of the paired table."""
    first, second = pair["agents"]
    return [
        f"{first} vs {second}",
        str(pair["both_won"]),
        str(pair["only_first"]),
        str(pair["only_second"]),
        str(pair["neither"]),
        f"{pair['p_value_exact']:.3g}",
        f"{pair['p_value_chi2']:.3g}",
        _optional(pair.get("same_boards"), "d"),  # reports saved before it was recorded lack it
    ]


def markdown_report(report: dict[str, Any]) -> str:
    """The suite, a table of every agent's results and, for two agents or more, the paired comparisons."""
    lines = [suite_line(report["suite"]), ""]
    lines += _table(RESULT_COLUMNS, [result_row(result) for result in report["results"]])
    if report["paired"]:
        lines += ["", PAIRED_NOTE, ""]
        lines += _table(PAIRED_COLUMNS, [paired_row(pair) for pair in report["paired"]])
    return "\n".join(lines) + "\n"


def check_output_path(path: str | Path, option: str) -> Path:
    """``path`` if a file can be written there, else a ValueError that names ``option`` and says why.

    Checked before an evaluation starts, so that a typo in a folder name does not cost a whole run.
    """
    path = Path(path)
    folder = path.parent
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder; give a file name in it")
    if not folder.is_dir():
        if folder.exists():
            raise ValueError(f"{option} {path}: {folder} is a file, not a folder")
        raise ValueError(f"{option} {path}: the folder {folder} does not exist; create it first (mkdir -p {folder})")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"{option} {path}: no permission to write there")
    return path


def check_plot_output(path: str | Path, option: str = "--plot") -> Path:
    """:func:`check_output_path`, and matplotlib importable (it is an optional dependency)."""
    if importlib.util.find_spec("matplotlib") is None:
        raise ValueError(f"{option} needs matplotlib: pip install matplotlib")
    return check_output_path(path, option)


def write_json(report: dict[str, Any], path: str | Path) -> None:
    """Save the report in the contract's JSON shape."""
    Path(path).write_text(json.dumps(report, indent=2) + "\n")


def write_csv(records: Sequence[GameRecord], path: str | Path, suite_name: str) -> None:
    """Save one row per game: the suite's name, then every field of :class:`~eval.metrics.GameRecord`."""
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=("suite", *RECORD_FIELDS))
        writer.writeheader()
        for record in records:
            row = {key: "" if value is None else value for key, value in asdict(record).items()}
            writer.writerow({"suite": suite_name, **row})


def plot_win_rates(reports: Sequence[dict[str, Any]], path: str | Path) -> None:
    """Save a PNG of every agent's win rate with its 95% interval, one marker series per suite.

    Args:
        reports: One JSON-shaped report per suite (agents may differ between them).
        path: Where to write the PNG.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not reports:
        raise ValueError("nothing to plot: no report given")
    agents = list(dict.fromkeys(result["agent"] for report in reports for result in report["results"]))
    width = 0.8 / len(reports)
    figure, axes = plt.subplots(figsize=(max(4.0, 1.3 * len(agents) + 2), 3.8), layout="constrained")
    for i, report in enumerate(reports):
        results = report["results"]
        x = [agents.index(result["agent"]) + (i - (len(reports) - 1) / 2) * width for result in results]
        rates = [100 * result["win_rate"] for result in results]
        below = [100 * (result["win_rate"] - result["ci95"][0]) for result in results]
        above = [100 * (result["ci95"][1] - result["win_rate"]) for result in results]
        axes.errorbar(x, rates, yerr=[below, above], fmt="o", capsize=4, label=report["suite"]["name"])
    axes.set_xticks(range(len(agents)), agents)
    axes.set_ylabel("win rate (%)")
    axes.set_ylim(-2, 102)  # room for the markers of 0% and 100%
    axes.set_xlim(-0.6, len(agents) - 0.4)
    axes.grid(axis="y", alpha=0.3)
    axes.set_title("Win rate with Wilson 95% intervals")
    axes.legend(loc="best", fontsize="small")
    figure.savefig(path, dpi=120)
    plt.close(figure)

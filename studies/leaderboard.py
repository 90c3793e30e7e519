"""Write docs/RESULTS.md, the leaderboard, from its records, so that no figure of it is typed by hand.

The index, ``docs/results/leaderboard.json``, is kept by hand: per table, its rows (the shipped models and the
baselines), each naming the record it comes from (a report under ``docs/results/``) and the agent's label in it;
per run, the command behind the record, its date and its machine; per model, its card. Every win rate, interval
and game count is read from the record; the rows are sorted best first. A new row is one entry in the index and
one record; the runs that are not shipped, and their story, go to the lab pages (docs/lab/).

A row: ``name`` (the short name shown, linked to its card when it is a key of ``models``), ``record`` (a path
under docs/results/), ``agent`` (its label in the record), ``run`` (a key of ``runs``), and where needed ``suite``
(for a record of several suites), ``preset`` (a board of the no-guess check) and ``note`` (a few words shown
after the name). A table: ``title``, ``intro``, ``rows``, and ``paired_with`` (a column of McNemar counts against
that agent) or ``battle_against`` (a battle report: ratings and the win rate against that agent).

    python studies/leaderboard.py            # rewrite docs/RESULTS.md
    python studies/leaderboard.py --check    # exit 1 when docs/RESULTS.md is not what the records give (CI)
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eval.stats import wilson_interval  # noqa: E402

RESULTS = ROOT / "docs" / "RESULTS.md"
INDEX = ROOT / "docs" / "results" / "leaderboard.json"
RECORDS = ROOT / "docs" / "results"


class RecordError(ValueError):
    """A row of the index that its record does not hold (missing file, label or suite), said in one line."""


@dataclass(frozen=True)
class Figure:
    """One agent's result in a record: games played, games won and the Wilson 95% interval of the win rate."""

    suite: str
    games: int
    wins: int
    low: float
    high: float
    rating: float | None = None

    @property
    def win_rate(self) -> float:
        return self.wins / self.games


def _entries(path: Path) -> list[dict]:
    """The JSON objects of a record: the one object of a ``.json`` report, or each line of a ``.jsonl`` one."""
    if not path.is_file():
        raise RecordError(f"record {path.relative_to(RECORDS)} does not exist under docs/results/")
    text = path.read_text()
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    loaded = json.loads(text)
    return loaded if isinstance(loaded, list) else [loaded]


def _suite_name(entry: dict) -> str:
    """The name of the suite a report's games were drawn from."""
    suite = entry.get("suite", {})
    return suite.get("name", "") if isinstance(suite, dict) else str(suite)


def _candidates(entry: dict, row: dict) -> list[Figure]:
    """The figures of ``entry`` for the row's agent label: an eval report's results (or a paired batched one's,
    named by model), a line of ``eval.batched``'s report, or a board of ``studies/no_guess_check.py``'s (the
    solver on the first games of its ``{preset}-no-guess`` suite, named by the row's ``preset``)."""
    agent = row["agent"]
    if "results" in entry:
        return [_figure(entry, result) for result in entry["results"]
                if agent in (result.get("agent"), result.get("model"))]  # fmt: skip
    if entry.get("model") == agent or entry.get("agent") == agent:
        return [_figure(entry, entry)]
    if "solver_wins" in entry and agent == "solver" and entry.get("preset") == row.get("preset"):
        low, high = wilson_interval(entry["solver_wins"], entry["games"])
        return [Figure(f"{entry['preset']}-no-guess-10k", entry["games"], entry["solver_wins"], low, high)]
    return []


def _figure(entry: dict, result: dict) -> Figure:
    """One result of a report (its games, wins and interval) on the report's suite."""
    low, high = result["ci95"]
    return Figure(_suite_name(entry), int(result["games"]), int(result["wins"]), low, high)


def _battle_figure(record: dict, agent: str, against: str) -> Figure:
    """``agent``'s games against ``against`` in a battle report, from its side, and its rating in that run."""
    rating = record.get("ratings", {}).get(agent)
    suite = record["suite"]
    name = f"{suite['rows']}x{suite['cols']}-{suite['mines']}-{suite['boards']}-boards-seed{suite['seed']}"
    if agent == against:
        return Figure(name, suite["games_per_pair"], 0, 0.0, 0.0, rating)
    for pair in record["results"]:
        if (pair["agent_a"], pair["agent_b"]) == (agent, against):
            low, high = pair["ci95"]
            return Figure(name, pair["games"], pair["wins_a"], low, high, rating)
        if (pair["agent_a"], pair["agent_b"]) == (against, agent):
            low, high = pair["ci95"]
            return Figure(name, pair["games"], pair["wins_b"], 1.0 - high, 1.0 - low, rating)
    raise RecordError(f"battle record has no pair of {agent!r} and {against!r}")


def read_figure(row: dict, against: str | None = None) -> Figure:
    """The one figure of ``row``'s record for its agent (and suite, where the record holds several)."""
    path = RECORDS / row["record"]
    entries = _entries(path)
    if against is not None:
        return _battle_figure(entries[0], row["agent"], against)
    found = [figure for entry in entries for figure in _candidates(entry, row)]
    if "suite" in row:
        found = [figure for figure in found if figure.suite == row["suite"]]
    if len(found) != 1:
        what = "no result" if not found else f"{len(found)} results"
        on_suite = f" on suite {row['suite']!r}" if "suite" in row else ""
        raise RecordError(
            f"{row['record']} holds {what} for agent {row['agent']!r}{on_suite}; "
            "fix its row in docs/results/leaderboard.json"
        )
    return found[0]


def paragraph(text: str) -> list[str]:
    """``text`` as the lines of one Markdown paragraph, at most 116 characters each."""
    return textwrap.wrap(text, width=116, break_long_words=False, break_on_hyphens=False)


def percent(value: float, places: int) -> str:
    """A share as a percentage with ``places`` decimals."""
    return f"{100 * value:.{places}f}%"


def _agent_cell(row: dict, models: dict) -> str:
    """The row's short name (linked to its model's card where it is a shipped model) and its note."""
    name = row["name"] if " " in row["name"] else f"`{row['name']}`"
    name = f"[{name}](#{row['name']})" if row["name"] in models else name
    return f"{name} ({row['note']})" if "note" in row else name


def _paired_cell(record: dict, agent: str, reference: str) -> str:
    """'only REFERENCE won / only AGENT won, p' from the record's McNemar tests; empty for the reference itself."""
    for pair in record.get("paired", []):
        if pair["agents"] == [reference, agent]:
            return f"{pair['only_first']:,} / {pair['only_second']:,}, p = {pair['p_value_exact']:.2g}"
        if pair["agents"] == [agent, reference]:
            return f"{pair['only_second']:,} / {pair['only_first']:,}, p = {pair['p_value_exact']:.2g}"
    return ""


def _columns(table: dict) -> list[str]:
    """The column names of a table: battle tables add a rating, a paired table the McNemar counts."""
    head = ["agent", "win rate", "95% CI", "games", "suite", "command", "date", "machine"]
    if "battle_against" in table:
        head[1:3] = ["rating", f"win rate against `{table['battle_against']}`", "95% CI"]
    if "paired_with" in table:
        head.insert(4, f"only `{table['paired_with']}` / only this won, p")
    return head


def _cells(table: dict, row: dict, figure: Figure, models: dict, run: dict) -> list[str]:
    """One row's cells, in the order of :func:`_columns`."""
    against = table.get("battle_against")
    places = 2 if figure.games >= 100_000 or against else 1
    rate, interval = percent(figure.win_rate, 2), f"{percent(figure.low, places)} - {percent(figure.high, places)}"
    if row["agent"] == against:
        rate = interval = ""
    cells = [_agent_cell(row, models), rate, interval, f"{figure.games:,}", f"`{figure.suite}`"]
    if against:
        cells.insert(1, "" if figure.rating is None else f"{figure.rating:+.0f}")
    if "paired_with" in table:
        cells.insert(4, _paired_cell(_entries(RECORDS / row["record"])[0], row["agent"], table["paired_with"]))
    return [*cells, f"[{row['run']}](#{row['run'].lower()})", run["date"], run["machine"]]


def render_table(table: dict, models: dict, runs: dict) -> list[str]:
    """One table of the page: its heading, its intro, and its rows best first (by rating for battle)."""
    against = table.get("battle_against")
    rows = [(row, read_figure(row, against)) for row in table["rows"]]
    rows.sort(key=lambda item: -(item[1].rating if against else item[1].win_rate))
    head = _columns(table)
    aligns = ["---:" if name.split(" ")[0] in {"win", "95%", "games", "rating"} else "---" for name in head]
    lines = [f"## {table['title']}", "", *paragraph(table["intro"]), ""]
    lines += ["| " + " | ".join(head) + " |", "| " + " | ".join(aligns) + " |"]
    for row, figure in rows:
        lines.append("| " + " | ".join(_cells(table, row, figure, models, runs[row["run"]])) + " |")
    return [*lines, ""]


def render_commands(tables: list[dict], runs: dict) -> list[str]:
    """Each run the tables cite, in order of first use, with its command (its notes: the lab's commands page)."""
    lines = ["## Commands", ""]
    cited = dict.fromkeys(row["run"] for table in tables for row in table["rows"])
    for name in cited:
        lines += [f"#### {name}", "", "```bash", *runs[name]["command"], "```", ""]
    return lines


def render_models(models: dict) -> list[str]:
    """The shipped models named in the tables, each with its card."""
    lines = [
        "## Models",
        "",
        "| name | card | what |",
        "| --- | --- | --- |",
    ]
    for name, model in models.items():
        lines.append(f'| <a id="{name}"></a>`{name}` | `{model["card"]}` | {model["what"]} |')
    return [*lines, ""]


def render(index: dict) -> str:
    """The whole of docs/RESULTS.md from the index and the records it names."""
    intro = (
        "One table per board: the shipped models and the baselines, best first, each figure read from a record under "
        "docs/results/ with its Wilson 95% interval and its command (below; each run's notes under its name on "
        f"[the commands page]({index['lab']})). A suite's name says its games, the same seeds for every agent; the "
        "rule is `opening` (the first click opens a zero) unless the suite says otherwise. Runs not shipped, curves "
        f"and stories: [every run of the leaderboard]({index['lab_rows']}) and [lab/](lab/index.md) by date. "
        "`sandbox`: the shared 2-core development VM, CPU only. The screen bot's table: [docs/BOT.md](BOT.md)."
    )
    head = [
        "# Results: the leaderboard",
        "",
        "<!-- Written by `python studies/leaderboard.py` from docs/results/leaderboard.json and its records, then",
        "     `python studies/plot_leaderboard.py`: edit those, never this page (tests/docs/test_leaderboard.py). -->",
        "",
        *paragraph(intro),
        "",
        "![win rates with 95% intervals, one panel per board](results/leaderboard.png)",
        "",
    ]
    lines = list(head)
    for table in index["tables"]:
        lines += render_table(table, index["models"], index["runs"])
    lines += render_models(index["models"]) + render_commands(index["tables"], index["runs"])
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=INDEX, help="the hand-kept index of rows")
    parser.add_argument("--out", type=Path, default=RESULTS, help="the page to write (or check)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the page is not current")
    args = parser.parse_args(argv)
    try:
        page = render(json.loads(args.index.read_text()))
    except (OSError, ValueError, KeyError) as error:
        print(f"error: {args.index}: {error}", file=sys.stderr)
        return 2
    if args.check:
        if not args.out.is_file() or args.out.read_text() != page:
            print(f"error: {args.out} is not what the records give: run python studies/leaderboard.py", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(page)
    print(f"{args.out}: {page.count(chr(10))} lines from {args.index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

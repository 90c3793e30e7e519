"""A paired reading of an evaluation's game log while it is still being played, or after it stopped.

An evaluation of a slow agent (``solver-search`` takes seconds a game on expert) runs over sessions, resumed from
its game log (``minesweeper eval ... --log LOG``, then ``--resume LOG``). The report comes only when the last game
is played; this reads the log as it stands: the games that every agent of the run has finished, each agent's wins
among them, the games won by one agent alone and the McNemar test of each agent against the first, and each one's
mean time a game. The games an evaluation plays first are no choice of anyone's, so the reading is a fair paired
test on them.

    python studies/paired_log.py runs/search/expert.games.jsonl
    python studies/paired_log.py runs/a.games.jsonl runs/b.games.jsonl    # two runs of one suite's games, paired
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eval.game_log import RUN_KEY  # noqa: E402
from eval.stats import mcnemar, wilson_interval  # noqa: E402


@dataclass(frozen=True)
class AgentReading:
    """One agent's results on the games every agent finished, and its pairing with the first agent."""

    agent: str
    wins: int
    seconds: float
    only_this: int
    only_first: int
    p_value: float | None


def read_log(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run and the games of a log, read without touching it (a running evaluation may be writing its last
    line: a line that is not JSON yet is skipped, not cut as :func:`eval.game_log.read_game_log` cuts it)."""
    entries = []
    for line in path.read_bytes().split(b"\n"):
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue
    if not entries or not isinstance(entries[0], dict) or RUN_KEY not in entries[0]:
        raise ValueError(f"{path} is not a game log: its first line should name the run")
    return entries[0][RUN_KEY], entries[1:]


def paired_games(games: list[dict[str, Any]], agents: Sequence[str]) -> dict[str, dict[int, dict[str, Any]]]:
    """Per agent, its logged games by index, kept only where every one of ``agents`` has finished that game."""
    by_agent: dict[str, dict[int, dict[str, Any]]] = {agent: {} for agent in agents}
    for game in games:
        if game["agent"] in by_agent:
            by_agent[game["agent"]][int(game["game"])] = game
    common = set.intersection(*(set(played) for played in by_agent.values())) if by_agent else set()
    return {agent: {index: played[index] for index in sorted(common)} for agent, played in by_agent.items()}


def readings(games: dict[str, dict[int, dict[str, Any]]]) -> list[AgentReading]:
    """Each agent's wins and mean time on the paired games, and its McNemar test against the first agent."""
    agents = list(games)
    first = games[agents[0]]
    out = []
    for agent in agents:
        played = games[agent]
        only_this = sum(played[g]["won"] and not first[g]["won"] for g in played)
        only_first = sum(first[g]["won"] and not played[g]["won"] for g in played)
        p_value = None if agent == agents[0] else mcnemar(only_this, only_first).p_value_exact
        timed = [float(played[g]["time_s"]) for g in played if "time_s" in played[g]]  # batched logs time no game
        seconds = sum(timed) / len(timed) if timed and len(timed) == len(played) else float("nan")
        out.append(AgentReading(agent, sum(bool(played[g]["won"]) for g in played), seconds, only_this, only_first,
                                p_value))  # fmt: skip
    return out


def markdown(suite: str, games: int, rows: list[AgentReading]) -> str:
    """The reading as a Markdown table."""
    first = rows[0].agent
    lines = [f"{games:,} games of {suite} finished by every agent", "",
             f"| agent | won | 95% interval | it alone / {first} alone | McNemar p (exact) | s a game |",
             "| --- | ---: | --- | ---: | ---: | ---: |"]  # fmt: skip
    for row in rows:
        low, high = wilson_interval(row.wins, games) if games else (0.0, 0.0)
        rate = row.wins / games if games else 0.0
        pair = "-" if row.p_value is None else f"{row.only_this} / {row.only_first}"
        p_value = "-" if row.p_value is None else f"{row.p_value:.3g}"
        seconds = "-" if row.seconds != row.seconds else f"{row.seconds:.3f}"
        lines.append(f"| {row.agent} | {rate:.2%} | {low:.1%} - {high:.1%} | {pair} | {p_value} | {seconds} |")
    return "\n".join(lines)


def run_reading(run: dict[str, Any]) -> tuple[str, list[str]]:
    """The suite's name and the agents of a log's run, as ``minesweeper eval`` (``agents``, the suite as a record)
    or ``python -m eval.batched`` (``models``, the suite's name) writes them."""
    suite = run.get("suite", {})
    name = suite.get("name", "?") if isinstance(suite, dict) else str(suite)
    return name, list(run.get("agents", run.get("models", [])))


def read_logs(paths: Sequence[Path]) -> tuple[str, list[str], list[dict[str, Any]]]:
    """The suite, the agents (in order of appearance) and the games of one or more logs of the same suite's games
    (ValueError for logs of different suites, or an agent in more than one log)."""
    suites, agents, games = set(), [], []
    for path in paths:
        run, logged = read_log(path)
        suite, named = run_reading(run)
        suites.add(suite)
        again = [agent for agent in named if agent in agents]
        if again:  # the same name may be played otherwise in each log (mirrored in one): not one agent's games
            raise ValueError(f"{again[0]} is in more than one log: pair logs of different agents")
        agents += named
        games += logged
    if len(suites) > 1:
        raise ValueError(f"the logs play different games ({', '.join(sorted(suites))}): pair logs of one suite")
    return suites.pop(), agents, games


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", nargs="+", help="game logs of one suite's games (minesweeper eval --log or "
                        "python -m eval.batched --log writes one); several are read as one")  # fmt: skip
    args = parser.parse_args(argv)
    for log in args.log:
        if not Path(log).is_file():
            print(f"error: no game log at {log}: give the file `minesweeper eval --log` writes", file=sys.stderr)
            return 2
    try:
        suite, agents, games = read_logs([Path(log) for log in args.log])
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if len(agents) < 2:
        print(f"error: {' '.join(args.log)} holds {len(agents)} agent(s); a paired reading needs two or more",
              file=sys.stderr)  # fmt: skip
        return 2
    paired = paired_games(games, agents)
    print(markdown(suite, len(paired[agents[0]]), readings(paired)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The battle tournament: every pair of battle agents on the same seeded boards, each board twice, seats swapped.

Board ``i`` is the layout of :func:`mine_env.engine.rng.layout_key` of ``derive_game_seeds(seed, i).env`` (the
board the env ``mine_env.battle`` deals after ``reset(seed=that seed)``); both agents are seeded from
``derive_game_seeds(seed, i).agent``. Playing each board from both seats cancels the first mover's edge and the
luck of the board, so a pair's comparison is paired: per board, who won both games, or whether they split.

Reported per pair: wins, draws and the first agent's win rate over all ``2 * games`` games with its Wilson 95%
interval (:func:`eval.stats.wilson_interval`), mines claimed per game, and the paired sign test (the exact
binomial test, :func:`eval.stats.binomial_two_sided_p`, on the boards one agent won from both seats).
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Any

from agents.battle import BATTLE_AGENTS, make_battle_agent, play_battle
from eval.stats import binomial_two_sided_p, wilson_interval
from eval.suites import SEEDING, derive_game_seeds
from mine_env.engine.battle import DRAW, BattleSpec
from mine_env.engine.rng import layout_key


@dataclass(frozen=True)
class PairResult:
    """One pair's games: ``agent_a`` against ``agent_b`` on ``boards`` boards, each from both seats."""

    agent_a: str
    agent_b: str
    games: int
    wins_a: int
    wins_b: int
    draws: int
    win_rate_a: float
    ci95: tuple[float, float]
    mines_per_game_a: float
    mines_per_game_b: float
    seat_0_wins: int
    boards_swept_a: int
    boards_swept_b: int
    sign_test_p: float


def check_tournament(agents: list[str], games: int, seed: int) -> None:
    """Refuse a tournament that cannot run, before any game: say what is wrong."""
    unknown = [name for name in agents if name not in BATTLE_AGENTS]
    if unknown:
        raise ValueError(f"unknown battle agent {unknown[0]!r}; expected one of {', '.join(BATTLE_AGENTS)}")
    if len(set(agents)) < 2:
        raise ValueError("a tournament needs at least two different agents: give --agent A --agent B")
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    if seed < 0:
        raise ValueError(f"--seed must be non-negative, got {seed}")


def play_pair(spec: BattleSpec, agent_a: str, agent_b: str, boards: int, seed: int) -> PairResult:
    """Play ``agent_a`` against ``agent_b`` on boards ``0..boards-1`` of ``seed``, each from both seats."""
    wins, mines, draws, seat_0_wins, swept = [0, 0], [0, 0], 0, 0, [0, 0]
    for board in range(boards):
        seeds = derive_game_seeds(seed, board)
        key = layout_key(seeds.env)
        board_wins = [0, 0]
        for a_seat in (0, 1):
            names = (agent_a, agent_b) if a_seat == 0 else (agent_b, agent_a)
            players = (make_battle_agent(names[0], seeds.agent), make_battle_agent(names[1], seeds.agent))
            game = play_battle(spec, key, players)
            seat_of = (a_seat, 1 - a_seat)  # seat of agent a, of agent b
            for side in (0, 1):
                mines[side] += game.scores[seat_of[side]]
            if game.winner == DRAW:
                draws += 1
                continue
            seat_0_wins += game.winner == 0
            side_won = seat_of.index(game.winner)
            wins[side_won] += 1
            board_wins[side_won] += 1
        for side in (0, 1):
            swept[side] += board_wins[side] == 2
    total = 2 * boards
    return PairResult(
        agent_a=agent_a, agent_b=agent_b, games=total, wins_a=wins[0], wins_b=wins[1], draws=draws,
        win_rate_a=wins[0] / total, ci95=wilson_interval(wins[0], total),
        mines_per_game_a=mines[0] / total, mines_per_game_b=mines[1] / total, seat_0_wins=seat_0_wins,
        boards_swept_a=swept[0], boards_swept_b=swept[1],
        sign_test_p=binomial_two_sided_p(swept[0], swept[0] + swept[1]),
    )  # fmt: skip


def run_tournament(agents: list[str], spec: BattleSpec, boards: int, seed: int) -> dict[str, Any]:
    """Every pair of distinct ``agents`` (in the order given) on the same boards; the report as a JSON-ready dict."""
    check_tournament(agents, boards, seed)
    names = list(dict.fromkeys(agents))
    results = [play_pair(spec, a, b, boards, seed) for a, b in itertools.combinations(names, 2)]
    return {
        "suite": {"rows": spec.rows, "cols": spec.cols, "mines": spec.mines, "bomb": spec.bomb,
                  "boards": boards, "games_per_pair": 2 * boards, "seed": seed, "seeding": SEEDING},
        "results": [asdict(result) for result in results],
    }  # fmt: skip


def markdown_table(report: dict[str, Any]) -> str:
    """The tournament as a Markdown table, one row per pair."""
    suite = report["suite"]
    lines = [
        f"Battle {suite['rows']}x{suite['cols']}/{suite['mines']}{' with bomb' if suite['bomb'] else ''}: "
        f"{suite['boards']} boards x 2 seats, seed {suite['seed']}",
        "",
        "| A | B | games | A wins | B wins | draws | A win rate (95% CI) | mines/game A | mines/game B "
        "| boards swept A / B | sign test p |",
        "|---|---|---:|---:|---:|---:|---|---:|---:|---|---:|",
    ]
    for r in report["results"]:
        low, high = r["ci95"]
        lines.append(
            f"| {r['agent_a']} | {r['agent_b']} | {r['games']} | {r['wins_a']} | {r['wins_b']} | {r['draws']} "
            f"| {r['win_rate_a']:.3f} ({low:.3f}-{high:.3f}) | {r['mines_per_game_a']:.2f} "
            f"| {r['mines_per_game_b']:.2f} | {r['boards_swept_a']} / {r['boards_swept_b']} "
            f"| {r['sign_test_p']:.3g} |"
        )
    return "\n".join(lines) + "\n"

"""The battle tournament: every pair of battle agents on the same seeded boards, each board twice, seats swapped.

Board ``i`` is the layout of :func:`mine_env.engine.rng.layout_key` of ``derive_game_seeds(seed, i).env`` (the
board the env ``mine_env.battle`` deals after ``reset(seed=that seed)``); both agents are seeded from
``derive_game_seeds(seed, i).agent``. Playing each board from both seats cancels the first mover's edge and the
luck of the board, so a pair's comparison is paired: per board, who won both games, or whether they split.

Reported per pair: wins, draws and the first agent's win rate over all ``2 * games`` games with its Wilson 95%
interval (:func:`eval.stats.wilson_interval`), mines claimed per game, and the paired sign test (the exact
binomial test, :func:`eval.stats.binomial_two_sided_p`, on the boards one agent won from both seats). Over all
pairs, a Bradley-Terry rating on the Elo scale (:func:`bradley_terry`), with draws as half a win to each side.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from backends import Backend, check_backend, open_backend
from battle.players import BATTLE_AGENTS, play_battle
from battle.rules import DRAW, BattleSpec
from battle.tournament.models import MODEL_PREFIX, battle_player, is_known_agent, load_battle_model
from eval.stats import binomial_two_sided_p, wilson_interval
from eval.suites import SEEDING, derive_game_seeds
from mine_env.analysis.probability import value_distribution
from mine_env.engine.constants import HIDDEN
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


def check_tournament(
    agents: list[str], games: int, seed: int, workers: int = 1, spec: BattleSpec | None = None
) -> None:
    """Refuse a tournament that cannot run, before any game: say what is wrong (with ``spec``, every
    ``model:PATH`` is loaded and checked against the board)."""
    unknown = [name for name in agents if not is_known_agent(name)]
    if unknown:
        raise ValueError(f"unknown battle agent {unknown[0]!r}; expected one of {', '.join(BATTLE_AGENTS)} "
                         f"or {MODEL_PREFIX}PATH")  # fmt: skip
    if len(set(agents)) < 2:
        raise ValueError("a tournament needs at least two different agents: give --agent A --agent B")
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    if seed < 0:
        raise ValueError(f"--seed must be non-negative, got {seed}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    for name in agents:
        if spec is not None and name.startswith(MODEL_PREFIX):
            load_battle_model(name, spec)


def play_board(spec: BattleSpec, agent_a: str, agent_b: str, seed: int, board: int) -> tuple[int, ...]:
    """Board ``board`` of ``seed`` played twice, seats swapped: (winner side or -1 for a draw, mines of a, mines of
    b) for a in seat 0, then the same for a in seat 1."""
    seeds = derive_game_seeds(seed, board)
    key = layout_key(seeds.env)
    tally: list[int] = []
    for a_seat in (0, 1):
        names = (agent_a, agent_b) if a_seat == 0 else (agent_b, agent_a)
        players = (battle_player(names[0], seeds.agent, spec), battle_player(names[1], seeds.agent, spec))
        game = play_battle(spec, key, players)
        seat_of = (a_seat, 1 - a_seat)  # seat of agent a, of agent b
        side_won = -1 if game.winner == DRAW else seat_of.index(game.winner)
        tally += [side_won, game.scores[seat_of[0]], game.scores[seat_of[1]]]
    return tuple(tally)


def _play_boards(job: tuple[BattleSpec, str, str, int, range]) -> list[tuple[int, ...]]:
    spec, agent_a, agent_b, seed, boards = job
    return [play_board(spec, agent_a, agent_b, seed, board) for board in boards]


def _play_board_chunk(pair: tuple[BattleSpec, str, str, int], boards: range) -> list[tuple[int, ...]]:
    """The job of a backend (:mod:`backends`): one pair on some boards."""
    return _play_boards((*pair, boards))


def play_pair(
    spec: BattleSpec, agent_a: str, agent_b: str, boards: int, seed: int, workers: int = 1,
    runner: Backend | None = None,
) -> PairResult:  # fmt: skip
    """Play ``agent_a`` against ``agent_b`` on boards ``0..boards-1`` of ``seed``, each from both seats, over
    ``workers`` processes, or on ``runner`` (Ray tasks; the result does not depend on how or where)."""
    if runner is not None:
        chunks = [range(start, boards, 4 * runner.workers) for start in range(min(boards, 4 * runner.workers))]
        parts = dict(runner.run(_play_board_chunk, (spec, agent_a, agent_b, seed), chunks))
        tallies = [tally for index in range(len(chunks)) for tally in parts[index]]
    elif workers == 1:
        tallies = _play_boards((spec, agent_a, agent_b, seed, range(boards)))
    else:  # the local pool of spawn workers, which starts from any script, session or notebook (backends.local)
        with open_backend("local", workers) as pool:
            return play_pair(spec, agent_a, agent_b, boards, seed, runner=pool)
    wins, mines, draws, seat_0_wins, swept = [0, 0], [0, 0], 0, 0, [0, 0]
    for tally in tallies:
        board_wins = [0, 0]
        for a_seat, (side_won, mines_a, mines_b) in enumerate((tally[:3], tally[3:])):
            mines[0] += mines_a
            mines[1] += mines_b
            if side_won == -1:
                draws += 1
                continue
            wins[side_won] += 1
            board_wins[side_won] += 1
            seat_0_wins += side_won == a_seat  # seat 0 is a in the first game, b in the second
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


ELO_SCALE = 400.0 / math.log(10.0)
"""Bradley-Terry strengths are reported on the Elo scale: a 400-point gap is 10:1 odds."""
PRIOR_GAMES = 0.5
"""Each pair gets this many virtual wins each way, so an agent that won or lost every game keeps a finite rating."""


def bradley_terry(names: list[str], results: list[dict[str, Any]], iterations: int = 1000) -> dict[str, float]:
    """Bradley-Terry ratings on the Elo scale (mean 0) from pairwise results, by iterative maximum likelihood.

    ``P(i beats j) = g_i / (g_i + g_j)``; the minorization-maximization update (Hunter 2004) is
    ``g_i <- W_i / sum_j n_ij / (g_i + g_j)`` with ``W_i`` the wins of ``i`` (a draw half a win to each) and
    ``n_ij`` the games of the pair; ``PRIOR_GAMES`` virtual wins per side per pair keep every rating finite.
    The rating is ``ELO_SCALE * ln g_i``, shifted to mean 0.
    """
    index = {name: i for i, name in enumerate(names)}
    size = len(names)
    wins = [[0.0] * size for _ in range(size)]
    for r in results:
        a, b = index[r["agent_a"]], index[r["agent_b"]]
        wins[a][b] += r["wins_a"] + r["draws"] / 2 + PRIOR_GAMES
        wins[b][a] += r["wins_b"] + r["draws"] / 2 + PRIOR_GAMES
    strength = [1.0] * size
    for _ in range(iterations):
        for i in range(size):
            denominator = sum((wins[i][j] + wins[j][i]) / (strength[i] + strength[j]) for j in range(size) if j != i)
            if denominator > 0.0:
                strength[i] = sum(wins[i]) / denominator
        scale = math.exp(sum(math.log(g) for g in strength) / size)
        strength = [g / scale for g in strength]
    return {name: ELO_SCALE * math.log(strength[index[name]]) for name in names}


def run_tournament(
    agents: list[str], spec: BattleSpec, boards: int, seed: int, workers: int = 1,
    on_pair: Callable[[dict[str, Any]], None] | None = None, earlier: dict[str, Any] | None = None,
    backend: str = "local", address: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Every pair of distinct ``agents`` (in the order given) on the same boards; the report as a JSON-ready dict.

    ``on_pair`` (if given) receives each pair's result as soon as it is played (progress of a long run).
    ``earlier`` (a report of this function on the same suite) supplies the pairs it has already played, so a new
    agent joins a table without replaying it (see :func:`check_earlier`).
    ``backend="ray"`` plays the boards as Ray tasks on a private instance with ``workers`` CPUs, or on the
    cluster at ``address`` (:mod:`backends`); the report is the same.
    """
    check_tournament(agents, boards, seed, workers, spec)
    check_backend(backend, workers, address)
    suite = {"rows": spec.rows, "cols": spec.cols, "mines": spec.mines, "bomb": spec.bomb,
             "boards": boards, "games_per_pair": 2 * boards, "seed": seed, "seeding": SEEDING}  # fmt: skip
    played = {}
    if earlier is not None:
        check_earlier(earlier, suite)
        played = {frozenset((r["agent_a"], r["agent_b"])): r for r in earlier["results"]}
    names = list(dict.fromkeys(agents))
    results = []
    with ExitStack() as stack:
        pooled = backend != "local" or workers > 1
        runner = stack.enter_context(open_backend(backend, workers, address)) if pooled else None
        for a, b in itertools.combinations(names, 2):
            if frozenset((a, b)) in played:
                results.append(played[frozenset((a, b))])
                continue
            results.append(asdict(play_pair(spec, a, b, boards, seed, workers, runner)))
            if on_pair is not None:
                on_pair(results[-1])
    ratings = bradley_terry(names, results)
    return {"suite": suite, "results": results,
            "ratings": dict(sorted(ratings.items(), key=lambda item: -item[1]))}  # fmt: skip


def check_earlier(earlier: Any, suite: dict[str, Any]) -> None:
    """Refuse an earlier report that is not one of this suite (another board, seed, count or seeding)."""
    if not isinstance(earlier, dict) or not isinstance(earlier.get("results"), list) or "suite" not in earlier:
        raise ValueError("the earlier report is not a battle tournament report (no suite and results)")
    if earlier["suite"] != suite:
        differ = sorted(key for key in suite if earlier["suite"].get(key) != suite[key])
        raise ValueError(f"the earlier report was played on another suite ({', '.join(differ)} differ): "
                         "give the same --rows --cols --mines --bomb --games --seed")  # fmt: skip


def pair_row(r: dict[str, Any]) -> str:
    """One pair's result as a row of the Markdown table."""
    low, high = r["ci95"]
    return (
        f"| {r['agent_a']} | {r['agent_b']} | {r['games']} | {r['wins_a']} | {r['wins_b']} | {r['draws']} "
        f"| {r['win_rate_a']:.3f} ({low:.3f}-{high:.3f}) | {r['mines_per_game_a']:.2f} "
        f"| {r['mines_per_game_b']:.2f} | {r['boards_swept_a']} / {r['boards_swept_b']} | {r['sign_test_p']:.3g} |"
    )


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
    lines += [pair_row(r) for r in report["results"]]
    lines += ["", "| agent | Bradley-Terry rating (Elo scale) |", "|---|---:|"]
    lines += [f"| {name} | {rating:+.0f} |" for name, rating in report["ratings"].items()]
    return "\n".join(lines) + "\n"


def first_move_table(spec: BattleSpec) -> dict[str, list[float]]:
    """For a first click on the empty board in a corner, on an edge and inside: ``[P(mine), P(0), ..., P(8)]``,
    exact, from the probability engine's :func:`~mine_env.analysis.probability.value_distribution`."""
    if spec.rows < 3 or spec.cols < 3:
        raise ValueError(f"the first-move table needs a board of at least 3x3, got {spec.rows}x{spec.cols}")
    empty = np.full((spec.rows, spec.cols), HIDDEN, dtype=np.int8)
    cells = {"corner": (0, 0), "edge": (0, spec.cols // 2), "inside": (spec.rows // 2, spec.cols // 2)}
    return {kind: value_distribution(empty, spec.mines, cell).tolist() for kind, cell in cells.items()}

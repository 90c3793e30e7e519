"""Battle minesweeper: the time of one AI-vs-AI game on one core, per pair of agents (target: under 50 ms).

Each pair plays the same ``--games`` boards (seed ``--seed``, the tournament's seeding) from both seats, in this
process, one core, twice: with the agents' component store (the default path) and without it (the plain path,
every outcome counted in full: the same games, their ends checked here; benchmarks/battle_moves.py checks every
move). The two are timed board by board in
turn, so that both see the same load, and the speed-up is the ratio of their times. Times are by the process's
CPU clock (what the game cost, leaving out time other jobs held the core) and by the wall clock; the first game
of each agent warms the numba kernels outside the timed region. The load average is printed, since the machine
may be shared.

Usage:
    python benchmarks/bench_battle.py [--games 20] [--seed 2026] [--agent greedy --agent contest ...] [--self-play]
        [--bomb]
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import time
from typing import NamedTuple

import numpy as np

from agents.battle import BATTLE_AGENTS, make_battle_agent, play_battle
from eval.suites import derive_game_seeds
from mine_env.engine.battle import BattleGame, BattleSpec
from mine_env.engine.rng import layout_key

TARGET_MS = 50.0


class PairTime(NamedTuple):
    """Per game: CPU and wall milliseconds with the store, CPU milliseconds without it, and moves."""

    cpu_ms: float
    wall_ms: float
    plain_cpu_ms: float
    moves: float


def timed_game(spec: BattleSpec, key: int, names: tuple[str, str], seed: int, store: bool
               ) -> tuple[float, float, BattleGame]:  # fmt: skip
    """(CPU seconds, wall seconds, the finished game) of one game."""
    players = (make_battle_agent(names[0], seed, store), make_battle_agent(names[1], seed, store))
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    game = play_battle(spec, key, players)
    return time.process_time() - cpu_start, time.perf_counter() - wall_start, game


def time_pair(spec: BattleSpec, agent_a: str, agent_b: str, games: int, seed: int) -> PairTime:
    """Per-game times of ``agent_a`` against ``agent_b``, seats swapped, with and without the store."""
    cpu = wall = plain_cpu = 0.0
    moves = 0
    for board in range(games):
        seeds = derive_game_seeds(seed, board)
        for names in ((agent_a, agent_b), (agent_b, agent_a)):
            key = layout_key(seeds.env)
            game_cpu, game_wall, game = timed_game(spec, key, names, seeds.agent, True)
            plain, _, plain_game = timed_game(spec, key, names, seeds.agent, False)
            same = game.moves == plain_game.moves and game.scores == plain_game.scores
            if not same or not np.array_equal(game.grid, plain_game.grid):
                raise RuntimeError(f"board {board}, {names}: the store changed the game")
            cpu, wall, plain_cpu, moves = cpu + game_cpu, wall + game_wall, plain_cpu + plain, moves + game.moves
    played = 2 * games
    return PairTime(1000 * cpu / played, 1000 * wall / played, 1000 * plain_cpu / played, moves / played)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="boards per pair (each played from both seats)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--agent", action="append", choices=list(BATTLE_AGENTS),
                        help="agents to pair (default: all)")  # fmt: skip
    parser.add_argument("--self-play", action="store_true", help="also pair each agent with itself")
    parser.add_argument("--bomb", action="store_true", help="play with the bomb rule")
    args = parser.parse_args()
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    agents = args.agent or list(BATTLE_AGENTS)
    spec = BattleSpec(bomb=args.bomb)
    for store in (True, False):  # warm the kernels of both paths
        play_battle(spec, 0, tuple(make_battle_agent(name, 0, store) for name in (agents * 2)[:2]))
    pairs = itertools.combinations_with_replacement if args.self_play else itertools.combinations
    board = "16x16/51 with bomb" if args.bomb else "16x16/51"
    print(f"{board}, {args.games} boards x 2 seats per pair; {platform.processor() or platform.machine()}, "
          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
    print("| A | B | CPU ms/game | wall ms/game | plain path: CPU ms/game | speed-up | moves/game | under 50 ms |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for agent_a, agent_b in pairs(agents, 2):
        t = time_pair(spec, agent_a, agent_b, args.games, args.seed)
        print(f"| {agent_a} | {agent_b} | {t.cpu_ms:.1f} | {t.wall_ms:.1f} | {t.plain_cpu_ms:.1f} | "
              f"{t.plain_cpu_ms / t.cpu_ms:.2f}x | {t.moves:.1f} | {'yes' if t.cpu_ms < TARGET_MS else 'no'} |",
              flush=True)  # fmt: skip
    print(f"load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

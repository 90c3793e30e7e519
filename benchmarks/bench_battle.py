"""Battle minesweeper: the time of one AI-vs-AI game on one core, per pair of agents (target: under 50 ms).

Each pair plays the same ``--games`` boards (seed ``--seed``, the tournament's seeding) from both seats, in this
process, one core. Times are by the process's CPU clock (what the game cost, leaving out time other jobs held
the core) and by the wall clock; the first game of each agent warms the numba kernels outside the timed region.
The load average is printed, since the machine may be shared.

Usage:
    python benchmarks/bench_battle.py [--games 20] [--seed 2026] [--agent greedy --agent contest ...]
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import time

from agents.battle import BATTLE_AGENTS, make_battle_agent, play_battle
from eval.suites import derive_game_seeds
from mine_env.engine.battle import BattleSpec
from mine_env.engine.rng import layout_key

TARGET_MS = 50.0


def time_pair(spec: BattleSpec, agent_a: str, agent_b: str, games: int, seed: int) -> tuple[float, float, float]:
    """(CPU ms per game, wall ms per game, moves per game) of ``agent_a`` against ``agent_b``, seats swapped."""
    cpu = wall = 0.0
    moves = 0
    for board in range(games):
        seeds = derive_game_seeds(seed, board)
        for names in ((agent_a, agent_b), (agent_b, agent_a)):
            players = (make_battle_agent(names[0], seeds.agent), make_battle_agent(names[1], seeds.agent))
            cpu_start, wall_start = time.process_time(), time.perf_counter()
            game = play_battle(spec, layout_key(seeds.env), players)
            cpu += time.process_time() - cpu_start
            wall += time.perf_counter() - wall_start
            moves += game.moves
    played = 2 * games
    return 1000 * cpu / played, 1000 * wall / played, moves / played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="boards per pair (each played from both seats)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--agent", action="append", choices=list(BATTLE_AGENTS),
                        help="agents to pair (default: all)")  # fmt: skip
    args = parser.parse_args()
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    agents = args.agent or list(BATTLE_AGENTS)
    spec = BattleSpec()
    play_battle(spec, 0, tuple(make_battle_agent(name, 0) for name in agents[:2]))  # warm the kernels
    print(f"16x16/51, {args.games} boards x 2 seats per pair; {platform.processor() or platform.machine()}, "
          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
    print("| A | B | CPU ms/game | wall ms/game | moves/game | under 50 ms |")
    print("|---|---|---:|---:|---:|---|")
    for agent_a, agent_b in itertools.combinations(agents, 2):
        cpu_ms, wall_ms, moves = time_pair(spec, agent_a, agent_b, args.games, args.seed)
        print(f"| {agent_a} | {agent_b} | {cpu_ms:.1f} | {wall_ms:.1f} | {moves:.1f} | "
              f"{'yes' if cpu_ms < TARGET_MS else 'no'} |")  # fmt: skip
    print(f"load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

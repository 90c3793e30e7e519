"""Battle minesweeper: the time of one AI-vs-AI game on one core, per pair of agents (target: under 50 ms).

Each pair plays the same ``--games`` boards (seed ``--seed``, the tournament's seeding) from both seats, in one
process, one core, two ways: the default path (the compiled search of :mod:`battle.players.search`, counting
through the process's shared component store, emptied at the start of each pair as in a fresh process) and the
plain path (the Python values, every outcome counted in full: the same games, which is checked). With
``--before TREE`` the same games are also played by another checkout of the project (the code before a change,
say ``git archive COMMIT | tar -x -C TREE``), in a child process per pair, right after this code's games of that
pair, so that both see the same load; a pair whose games end differently there (a change of floats can change a
move) is marked. The speed-ups are ratios of the times. Times are by the process's CPU clock (what the games
cost, leaving out time other jobs held the core) and by the wall clock; a game of each path warms the numba
kernels outside the timed region. The load average is printed, since the machine may be shared.
benchmarks/battle_moves.py compares every move, not only the ends.

Usage:
    python benchmarks/bench_battle.py [--games 20] [--seed 2026] [--agent greedy --agent contest ...] [--self-play]
        [--bomb] [--before TREE]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import platform
import subprocess
import sys
import time
from typing import NamedTuple

from battle.players import BATTLE_AGENTS, make_battle_agent, play_battle, shared_component_store
from battle.rules import BattleGame, BattleSpec
from eval.suites import derive_game_seeds
from mine_env.engine.rng import layout_key

TARGET_MS = 50.0

TIMED_GAMES = """
import hashlib, json, sys, time
try:
    from battle.players import make_battle_agent, play_battle
    from battle.rules import BattleSpec
except ImportError:  # a checkout from before battle was one package (0.1.0)
    from agents.battle import make_battle_agent, play_battle
    from mine_env.engine.battle import BattleSpec
from eval.suites import derive_game_seeds
from mine_env.engine.rng import layout_key
a, b, games, seed, bomb = json.loads(sys.argv[1])
spec = BattleSpec(bomb=bomb)
play_battle(spec, 0, (make_battle_agent(a, 0), make_battle_agent(b, 0)))
cpu, ends = 0.0, hashlib.sha256()
for board in range(games):
    seeds = derive_game_seeds(seed, board)
    for names in ((a, b), (b, a)):
        players = (make_battle_agent(names[0], seeds.agent), make_battle_agent(names[1], seeds.agent))
        start = time.process_time()
        game = play_battle(spec, layout_key(seeds.env), players)
        cpu += time.process_time() - start
        ends.update(repr((game.moves, list(game.scores))).encode() + game.grid.tobytes())
print(json.dumps([1000 * cpu / (2 * games), ends.hexdigest()]))
"""
"""Played in the other checkout: only what both versions of the code have (make_battle_agent(name, seed), ...),
imported from where that checkout has them."""


class PairTime(NamedTuple):
    """Per game: CPU and wall milliseconds with the store, CPU milliseconds without it, and moves; the digest
    of the games' ends."""

    cpu_ms: float
    wall_ms: float
    plain_cpu_ms: float
    moves: float
    ends: str


def timed_game(spec: BattleSpec, key: int, names: tuple[str, str], seed: int, store: bool
               ) -> tuple[float, float, BattleGame]:  # fmt: skip
    """(CPU seconds, wall seconds, the finished game) of one game."""
    players = (make_battle_agent(names[0], seed, store), make_battle_agent(names[1], seed, store))
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    game = play_battle(spec, key, players)
    return time.process_time() - cpu_start, time.perf_counter() - wall_start, game


def game_end(game: BattleGame) -> bytes:
    """What the digest of a game's end covers: moves, scores and the final board."""
    return repr((game.moves, list(game.scores))).encode() + game.grid.tobytes()


def time_pair(spec: BattleSpec, agent_a: str, agent_b: str, games: int, seed: int) -> PairTime:
    """Per-game times of ``agent_a`` against ``agent_b``, seats swapped, with and without the store (board by
    board in turn); raises if the two paths end a game differently."""
    cpu = wall = plain_cpu = 0.0
    moves = 0
    ends = hashlib.sha256()
    for board in range(games):
        seeds = derive_game_seeds(seed, board)
        for names in ((agent_a, agent_b), (agent_b, agent_a)):
            key = layout_key(seeds.env)
            game_cpu, game_wall, game = timed_game(spec, key, names, seeds.agent, True)
            plain, _, plain_game = timed_game(spec, key, names, seeds.agent, False)
            if game_end(game) != game_end(plain_game):
                raise RuntimeError(f"board {board}, {names}: the store changed the game")
            cpu, wall, plain_cpu, moves = cpu + game_cpu, wall + game_wall, plain_cpu + plain, moves + game.moves
            ends.update(game_end(game))
    played = 2 * games
    return PairTime(1000 * cpu / played, 1000 * wall / played, 1000 * plain_cpu / played, moves / played,
                    ends.hexdigest())  # fmt: skip


def time_in_tree(tree: str, agent_a: str, agent_b: str, games: int, seed: int, bomb: bool) -> tuple[float, str]:
    """(CPU ms per game, digest of the games' ends) of the same games played by the checkout at ``tree``."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
    out = subprocess.run([sys.executable, "-c", TIMED_GAMES, json.dumps([agent_a, agent_b, games, seed, bomb])],
                         cwd=tree, env=env, capture_output=True, text=True, check=True)  # fmt: skip
    cpu_ms, ends = json.loads(out.stdout.strip().splitlines()[-1])
    return float(cpu_ms), str(ends)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="boards per pair (each played from both seats)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--agent", action="append", choices=list(BATTLE_AGENTS),
                        help="agents to pair (default: all)")  # fmt: skip
    parser.add_argument("--self-play", action="store_true", help="also pair each agent with itself")
    parser.add_argument("--bomb", action="store_true", help="play with the bomb rule")
    parser.add_argument("--before", metavar="TREE", help="also time the same games on another checkout")
    args = parser.parse_args()
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if args.before and not os.path.isdir(os.path.join(args.before, "agents")):
        parser.error(f"--before {args.before}: not a checkout of the project (no agents/ folder there)")
    agents = args.agent or list(BATTLE_AGENTS)
    spec = BattleSpec(bomb=args.bomb)
    for store in (True, False):  # warm the kernels of both paths, those of the agents that count outcomes too
        play_battle(spec, 0, tuple(make_battle_agent(name, 0, store) for name in ("lookahead", "contest")))
    pairs = itertools.combinations_with_replacement if args.self_play else itertools.combinations
    board = "16x16/51 with bomb" if args.bomb else "16x16/51"
    print(f"{board}, {args.games} boards x 2 seats per pair; {platform.processor() or platform.machine()}, "
          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
    before = " before: CPU ms/game | speed-up |" if args.before else ""
    print(f"| A | B | CPU ms/game | wall ms/game | plain path: CPU ms/game | speed-up |{before} moves/game | "
          "under 50 ms |")
    print("|---|---|---:|---:|---:|---:|" + ("---:|---:|" if args.before else "") + "---:|---|")
    for agent_a, agent_b in pairs(agents, 2):
        shared_component_store.cache_clear()  # each pair starts with an empty store, as a fresh process would
        t = time_pair(spec, agent_a, agent_b, args.games, args.seed)
        old = ""
        if args.before:
            old_ms, old_ends = time_in_tree(args.before, agent_a, agent_b, args.games, args.seed, args.bomb)
            same = "" if old_ends == t.ends else " (other games)"
            old = f" {old_ms:.1f}{same} | {old_ms / t.cpu_ms:.2f}x |"
        print(f"| {agent_a} | {agent_b} | {t.cpu_ms:.1f} | {t.wall_ms:.1f} | {t.plain_cpu_ms:.1f} | "
              f"{t.plain_cpu_ms / t.cpu_ms:.2f}x |{old} {t.moves:.1f} | {'yes' if t.cpu_ms < TARGET_MS else 'no'} |",
              flush=True)  # fmt: skip
    print(f"load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

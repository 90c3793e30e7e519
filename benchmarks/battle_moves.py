"""Battle minesweeper: every move of seeded AI-vs-AI games, to check that a change of the agents' code keeps them.

A speed change of the battle agents must not change a single choice. This script plays, for each pair of agents
with at least one that counts ahead (contest or lookahead: against random, greedy, each other and themselves),
with the bomb rule off and on, ``--games`` boards of the tournament's seeding from both seats, and records every
action of every game with the final scores. ``--compare OLD.json`` names each
game whose moves differ and ends with "identical to OLD.json" when none does.

Usage::

    python benchmarks/battle_moves.py --games 10 --json /tmp/moves_after.json --compare /tmp/moves_before.json
    python benchmarks/battle_moves.py --games 10 --python --json /tmp/moves_python.json --compare /tmp/moves_after.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from typing import Any

from battle.players import make_battle_agent, seat_observation
from battle.rules import BattleGame, BattleSpec
from eval.suites import derive_game_seeds
from mine_env.engine.rng import layout_key

AGENTS = ("random", "greedy", "contest", "lookahead")


def pairs() -> list[tuple[str, str]]:
    """The pairs played: each agent that looks ahead against every agent (itself included)."""
    ahead = {"contest", "lookahead"}
    return [(a, b) for a, b in itertools.combinations_with_replacement(AGENTS, 2) if ahead & {a, b}]


def play_recorded(spec: BattleSpec, key: int, names: tuple[str, str], agent_seed: int, compiled: bool = True
                  ) -> dict[str, Any]:  # fmt: skip
    """One game of layout ``key``: every action in order and the final scores (``compiled``: see
    :class:`battle.players.BattleAgent`)."""
    game = BattleGame(spec, key)
    players = [make_battle_agent(name, agent_seed, compiled=compiled) for name in names]
    actions = []
    while not game.is_over:
        obs, info = seat_observation(game, game.mover)
        action = players[game.mover].act(obs, info)
        actions.append(int(action))
        game.play(action)
    return {"actions": actions, "scores": [int(s) for s in game.scores]}


def record(games: int, seed: int, compiled: bool = True) -> dict[str, Any]:
    """Every game of every pair, bomb off and on, keyed ``bomb/A-B/board/seats``."""
    out: dict[str, Any] = {}
    for bomb in (False, True):
        spec = BattleSpec(bomb=bomb)
        for a, b in pairs():
            for board in range(games):
                seeds = derive_game_seeds(seed, board)
                for names in dict.fromkeys(((a, b), (b, a))):  # an agent against itself: once
                    name = f"{'bomb' if bomb else 'plain'}/{names[0]}-{names[1]}/{board}"
                    out[name] = play_recorded(spec, layout_key(seeds.env), names, seeds.agent, compiled)
    return out


def compare(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    """The games of either file whose moves or scores differ (or that only one has)."""
    return [name for name in sorted(set(new) | set(old)) if new.get(name) != old.get(name)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="boards per pair (each played from both seats)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", required=True, help="where to write the moves")
    parser.add_argument("--compare", help="a file written earlier by this script")
    parser.add_argument("--python", action="store_true",
                        help="score moves with the Python values (the compiled search's reference)")  # fmt: skip
    args = parser.parse_args()
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    moves = record(args.games, args.seed, compiled=not args.python)
    with open(args.json, "w") as handle:
        json.dump(moves, handle)
    total = sum(len(game["actions"]) for game in moves.values())
    print(f"{len(moves)} games, {total} moves -> {args.json}")
    if args.compare:
        with open(args.compare) as handle:
            differing = compare(moves, json.load(handle))
        if differing:
            print(f"{len(differing)} games differ from {args.compare}: {', '.join(differing[:20])}")
            sys.exit(1)
        print(f"identical to {args.compare}")


if __name__ == "__main__":
    main()

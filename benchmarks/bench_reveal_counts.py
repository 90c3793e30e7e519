"""Battle minesweeper: the time of one call of the outcome-counting kernel, replayed alone in a compiled loop.

The contest and look-ahead AIs spend most of a game in :func:`battle.counting.outcomes.reveal_counts_stored`
(every outcome of revealing one cell, each counted with a store of components counted before). This records
every call of seeded games between the public agents (``--agent``, default the look-ahead against itself, on
``--games`` boards of 16x16/51, seed ``--seed`` as in benchmarks/bench_battle.py), then replays the calls in one
compiled loop per component store (each agent's store gets its own calls, in their order, starting empty as in
the game), in a child process per checkout, three ways:

- this code, with the store (the agents' path);
- the plain path, :func:`battle.counting.outcomes.reveal_counts` (every outcome counted in full: the
  reference);
- with ``--before TREE``, the store path of another checkout (the code before a change, say
  ``git archive main | tar -x -C TREE``), on the same calls.

Each way is timed ``--repeats`` times (fresh stores each time, the process's CPU clock, the best kept) and the
speed-ups are ratios of those times in the same run. The results are checked: every call's outcomes (which fit,
and for those the log of the layouts, the best chance, every cell's probability and certainty) must be equal
between the ways, bit for bit, or the largest relative difference of the floats is printed and the run fails.

Usage:
    python benchmarks/bench_reveal_counts.py [--games 2] [--seed 2026] [--agent lookahead --agent lookahead]
        [--repeats 3] [--before TREE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import battle.players.position as battle_position
from battle.players import make_battle_agent, play_battle
from battle.rules import BattleSpec
from eval.suites import derive_game_seeds
from mine_env.engine.rng import layout_key

OUTCOME_AGENTS = ("contest", "lookahead")
"""The agents that count outcomes (the others never call the kernel)."""

REPLAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "replay_reveal_counts.py")
"""The replay, run in a child process at a checkout (it imports only what both versions of the code have)."""


def record_calls(agent_names: tuple[str, str], games: int, seed: int) -> dict[str, np.ndarray]:
    """Every call of ``reveal_counts_stored`` in ``games`` seeded games (one per board, ``agent_names`` in their
    seats), with the index of the store it used, as arrays."""
    kernel = battle_position.reveal_counts_stored
    calls: list[tuple] = []
    stores: dict[int, int] = {}
    alive = []  # every store seen, kept so that no later one gets its id

    def recording(flat, rows, cols, mines, cell, with_mine, with_numbers, store, probability):  # type: ignore[no-untyped-def]
        if id(store) not in stores:
            stores[id(store)] = len(stores)
            alive.append(store)
        index = stores[id(store)]
        calls.append((index, flat.copy(), (rows, cols, mines), cell, with_mine, with_numbers, probability.copy()))
        return kernel(flat, rows, cols, mines, cell, with_mine, with_numbers, store, probability)

    spec = BattleSpec()
    battle_position.reveal_counts_stored = recording
    try:
        for board in range(games):
            seeds = derive_game_seeds(seed, board)
            players = tuple(make_battle_agent(name, seeds.agent) for name in agent_names)
            play_battle(spec, layout_key(seeds.env), players)
    finally:
        battle_position.reveal_counts_stored = kernel
    if not calls:
        raise RuntimeError("no call of reveal_counts_stored was seen: the agents no longer call it through "
                           "battle.players.position; record the calls where they are made now")  # fmt: skip
    return {
        "store": np.array([c[0] for c in calls], np.int64),
        "flat": np.stack([c[1] for c in calls]),
        "shape": np.array(calls[0][2], np.int64),
        "cell": np.array([c[3] for c in calls], np.int64),
        "with_mine": np.array([c[4] for c in calls], np.bool_),
        "with_numbers": np.array([c[5] for c in calls], np.bool_),
        "probability": np.stack([c[6] for c in calls]),
    }


def replay_in(tree: str, path: str, repeats: int, ways: str) -> dict:
    """The replay's result (benchmarks/replay_reveal_counts.py) in a child process at the checkout ``tree``."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
    out = subprocess.run([sys.executable, REPLAY, path, str(repeats), ways], cwd=tree, env=env,
                         capture_output=True, text=True)  # fmt: skip
    if out.returncode != 0:
        raise RuntimeError(f"the replay at {tree} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="seeded games whose calls are recorded")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--agent", action="append", choices=OUTCOME_AGENTS,
                        help="the two seats' agents (default: the look-ahead in both)")  # fmt: skip
    parser.add_argument("--repeats", type=int, default=3, help="timed replays per way (the best is kept)")
    parser.add_argument("--before", metavar="TREE", help="also replay the calls on another checkout")
    args = parser.parse_args()
    if args.games < 1 or args.repeats < 1:
        parser.error(f"--games and --repeats must be at least 1, got {args.games} and {args.repeats}")
    names = tuple(args.agent or ["lookahead", "lookahead"])
    if len(names) != 2:
        parser.error(f"--agent is given for both seats (twice) or not at all, got {len(names)}")
    if args.before and not os.path.isdir(os.path.join(args.before, "agents")):
        parser.error(f"--before {args.before}: not a checkout of the project (no agents/ folder there)")
    calls = record_calls(names, args.games, args.seed)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "calls.npz")
        np.savez(path, **calls)
        games = f"{args.games} game{'s' if args.games > 1 else ''}"
        print(f"{calls['cell'].shape[0]} calls of {names[0]} - {names[1]}, {games} (seed {args.seed}), "
              f"{len(np.unique(calls['store']))} stores; load {os.getloadavg()[0]:.2f}", flush=True)  # fmt: skip
        now = replay_in(here, path, args.repeats, "stored,plain")
        before = replay_in(args.before, path, args.repeats, "stored")["stored"] if args.before else None
    stored, plain = now["stored"], now["plain"]
    print("| way | us/call | this code's speed-up |\n|---|---:|---:|")
    print(f"| this code, with the store | {stored['us_per_call']:.1f} | 1.00x |")
    if before:
        print(f"| before ({args.before}), with the store | {before['us_per_call']:.1f} | "
              f"{before['us_per_call'] / stored['us_per_call']:.2f}x |")  # fmt: skip
    print(f"| plain path (reveal_counts) | {plain['us_per_call']:.1f} | "
          f"{plain['us_per_call'] / stored['us_per_call']:.2f}x |")  # fmt: skip
    print(f"load after {os.getloadavg()[0]:.2f}")
    check_agreement(stored, plain, before)


def check_agreement(stored: dict, plain: dict, before: dict | None) -> None:
    """Print whether the ways gave the same outcomes; exit with an error when they did not."""
    if stored["digest"] == plain["digest"]:
        print("every outcome equal to the plain path's, bit for bit")
    elif plain["flags_equal"] and plain["largest_relative_gap"] <= 1e-12:
        print(f"every outcome equal to the plain path's within {plain['largest_relative_gap']:.1e} (relative)")
    else:
        sys.exit(f"the outcomes differ from the plain path's: flags equal {plain['flags_equal']}, largest relative "
                 f"gap {plain['largest_relative_gap']:.1e}")  # fmt: skip
    if before is not None:
        if before["digest"] != stored["digest"]:
            sys.exit("the outcomes differ from those of the code before, bit for bit")
        print("every outcome equal to the code before's, bit for bit")


if __name__ == "__main__":
    main()

"""The solver on our engine with xdemineur's start: the reference for the screen bot's win rate (docs/BOT.md).

xdemineur lays its mines uniformly (no first-click protection), then opens one of the board's zero cells,
chosen uniformly, itself; the player's first move comes after that opening (and on the rare board without
a zero, the player clicks first with no protection). None of the env's first-click rules is exactly this, so
this script plays that start on the engine: a uniform layout from a seeded generator, the program's random
opening, then the solver (the same ``SolverAgent`` the bot asks) to the end. The bot's games are other
layouts of the same distribution, so the two win rates are compared by their intervals.

Usage::

    python studies/bot_reference.py --rows 16 --cols 30 --mines 99 --games 2000 --seed 2026 --json out.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from agents.solver import SolverAgent
from eval.stats import wilson_interval
from mine_env.engine.board import Board
from mine_env.engine.constants import HIDDEN
from mine_env.engine.layout import neighbour_counts


def xdemineur_start(rows: int, cols: int, mines: int, rng: np.random.Generator) -> Board:
    """A board laid as xdemineur lays it, with its random zero cell opened (when the board has one)."""
    layout = np.zeros(rows * cols, dtype=bool)
    layout[rng.choice(rows * cols, size=mines, replace=False)] = True
    layout = layout.reshape(rows, cols)
    board = Board.from_layout(layout, first_click="none")
    zeros = np.flatnonzero((neighbour_counts(layout) == 0) & ~layout)
    if zeros.size:
        board.reveal(*divmod(int(rng.choice(zeros)), cols))
    return board


def play(board: Board, agent: SolverAgent, mines: int) -> bool:
    """The solver to the end of the game; True when it wins."""
    agent.reset()
    while not board.is_over:
        grid = board.grid
        info = {"mines": mines, "action_mask": (grid == HIDDEN).ravel().astype(np.int8), "first_click": "none"}
        board.step(int(agent.act(grid, info)))
    return board.status == "won"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=16)
    parser.add_argument("--cols", type=int, default=30)
    parser.add_argument("--mines", type=int, default=99)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", help="write the result as JSON")
    args = parser.parse_args()
    agent = SolverAgent(seed=args.seed)
    started = time.perf_counter()
    wins = 0
    for game in range(args.games):
        rng = np.random.default_rng([args.seed, game])
        wins += play(xdemineur_start(args.rows, args.cols, args.mines, rng), agent, args.mines)
        if (game + 1) % 100 == 0:
            print(f"{game + 1} games: {wins} wins ({wins / (game + 1):.2%})", flush=True)
    low, high = wilson_interval(wins, args.games)
    result = {"board": [args.rows, args.cols, args.mines], "start": "xdemineur (uniform layout, random zero opened)",
              "seed": args.seed, "games": args.games, "wins": wins, "win_rate": wins / args.games, "ci95": [low, high],
              "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as out:
            out.write(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()

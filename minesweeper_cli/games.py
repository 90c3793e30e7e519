"""``minesweeper games``: play a few seeded games with a baseline agent and print each final board."""

from __future__ import annotations

import argparse

from minesweeper_cli.choices import AGENTS
from minesweeper_cli.options import add_board_options, board_spec


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("games", help="play seeded games with a baseline agent and print them")
    parser.add_argument("--agent", choices=AGENTS, default="solver", help="the baseline that plays")
    parser.add_argument("--games", type=int, default=5, help="number of games")
    parser.add_argument("--seed", type=int, default=0, help="game i is played with seed + i")
    add_board_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agents.episode import play_episode
    from agents.registry import make_agent
    from mine_env.env import MinesweeperEnv

    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    if args.seed < 0:
        raise ValueError(f"--seed must be non-negative, got {args.seed}")
    spec = board_spec(args)
    env = MinesweeperEnv(rows=spec.rows, cols=spec.cols, mines=spec.mines, first_click=spec.first_click,
                         render_mode="ansi")  # fmt: skip
    agent = make_agent(args.agent, seed=args.seed)
    wins = 0
    for game in range(args.games):
        seed = args.seed + game
        episode = play_episode(env, agent, seed)
        wins += episode.won
        print(env.render())
        print(f"game {game + 1} (seed {seed}): {'won' if episode.won else 'lost'} in {episode.steps} moves\n")
    print(f"{args.agent}: {wins}/{args.games} won on {spec.rows}x{spec.cols} with {spec.mines} mines, "
          f"first click {spec.first_click}")  # fmt: skip
    return 0


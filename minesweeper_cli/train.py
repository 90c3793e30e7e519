"""``minesweeper train ALGO [options]``: train DQN, PPO or MaskablePPO, or distil the oracle (see :mod:`train`).

The options of each algorithm are the fields of its config dataclass; they are parsed by the training
script itself, so torch and stable-baselines3 load only when this subcommand runs
(``minesweeper train ppo --help`` lists them).
"""

from __future__ import annotations

import argparse
import importlib

MODULES: dict[str, str] = {
    "dqn": "train.sb3.dqn", "ppo": "train.sb3.ppo", "maskable_ppo": "train.sb3.maskable_ppo",
    "distill": "train.distill.rounds.run", "guess_preference": "train.distill.guess.preference",
    "guess_value": "train.distill.guess.value",
}
"""Each ALGO's training script."""
ALGORITHMS: tuple[str, ...] = tuple(MODULES)
SUPERVISED: tuple[str, ...] = ("distill", "guess_preference", "guess_value")
"""Scripts that are not SB3 algorithms: each has its own entry point, ``main``."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train", help="train an agent with stable-baselines3 (extra 'train')",
        description="Train an agent; e.g. minesweeper train maskable_ppo --preset beginner --first-click opening "
        "--steps 1000000 --seed 0. Run 'minesweeper train ALGO --help' for every option.",
    )  # fmt: skip
    parser.add_argument("algo", choices=ALGORITHMS, metavar="ALGO", help=f"one of {', '.join(ALGORITHMS)}")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="the algorithm's options (see ALGO --help)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        module = importlib.import_module(MODULES[args.algo])
    except ImportError as error:
        raise ValueError(f"training needs the 'train' extra (pip install -e '.[train]'): {error}") from error
    prog = f"minesweeper train {args.algo}"
    if args.algo in SUPERVISED:
        return module.main(args.options, prog=prog)
    return module.script_main(module.ALGORITHM, args.options, prog=prog)

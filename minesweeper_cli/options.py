"""Command-line options shared by several subcommands."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from backends import BACKENDS
from minesweeper_cli.choices import BOARD_KINDS, DEFAULT_BOARDS, DEFAULT_FIRST_CLICK, FIRST_CLICK_RULES, PRESETS

if TYPE_CHECKING:
    from mine_env.engine.spec import BoardSpec


def add_board_options(parser: argparse.ArgumentParser, default_preset: str | None = "beginner") -> None:
    """--preset / --rows / --cols / --mines / --first-click."""
    parser.add_argument("--preset", choices=PRESETS, default=default_preset, help="a classic board")
    parser.add_argument("--rows", type=int, help="rows (overrides the preset)")
    parser.add_argument("--cols", type=int, help="columns (overrides the preset)")
    parser.add_argument("--mines", type=int, help="mines (overrides the preset)")
    parser.add_argument(
        "--first-click", choices=FIRST_CLICK_RULES, default=DEFAULT_FIRST_CLICK, help="the first-click rule"
    )


BOARD_CHOICES: dict[str, str] = {kind.replace("_", "-"): kind for kind in BOARD_KINDS}
"""The ``boards`` kinds as the command line spells them (``no-guess``), to the env's names (``no_guess``)."""


def add_boards_option(parser: argparse.ArgumentParser) -> None:
    """--boards random|no-guess (None when not given)."""
    parser.add_argument(
        "--boards", choices=list(BOARD_CHOICES),
        help="random layouts (default) or no-guess ones that logic alone clears (opening rule; docs/NO_GUESS.md)",
    )  # fmt: skip


def boards_kind(args: argparse.Namespace) -> str:
    """The env's name of the kind of board the options ask for."""
    return BOARD_CHOICES[args.boards] if getattr(args, "boards", None) else DEFAULT_BOARDS


def board_spec(args: argparse.Namespace) -> BoardSpec:
    """The BoardSpec the board options describe (ValueError with a message if impossible)."""
    from mine_env.engine.spec import BoardSpec

    return BoardSpec.from_options(args.preset, args.rows, args.cols, args.mines, args.first_click)


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    """--backend local|ray and --address: where the games run (see :mod:`backends`)."""
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="local: worker processes of this machine; ray: Ray tasks (same results)")  # fmt: skip
    parser.add_argument("--address", metavar="HOST:PORT",
                        help="join the Ray cluster whose head is here (ray start --head prints it); "
                        "without it --backend ray starts a private Ray instance with --workers CPUs")  # fmt: skip

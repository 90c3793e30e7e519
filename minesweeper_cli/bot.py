"""``minesweeper bot``: play a real minesweeper program through the screen (see docs/BOT.md).

    minesweeper bot --program xdemineur --preset expert --games 200 --seed 1 --json bot.json

The program runs in a private Xvfb unless ``--display`` names an X server; the solver decides every move,
the bot reads the board from screenshots and clicks through XTest.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from minesweeper_cli.choices import BOT_PROGRAMS

if TYPE_CHECKING:
    from screen_bot.game import GameResult
    from screen_bot.runner import BotConfig

DEFAULT_PRESET = "expert"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bot", help="play xdemineur or sgt-mines through the screen (an X display, screenshots, XTest clicks)"
    )
    parser.add_argument("--program", required=True, choices=BOT_PROGRAMS, help="the program to play")
    parser.add_argument("--preset", default=DEFAULT_PRESET,
                        help="the board: intermediate or expert (default); sgt-mines also beginner, and each with"
                             " -guess for its layouts that may need a guess (expert-guess)")  # fmt: skip
    parser.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and of the solver (default 0)")
    parser.add_argument("--display", help="an X display to play on, e.g. :1 (default: a private Xvfb)")
    parser.add_argument("--json", metavar="PATH", help="write the report as JSON")
    parser.add_argument("--screenshots", metavar="DIR", default="bot-unread",
                        help="where pictures of games the bot could not read go (default bot-unread)")  # fmt: skip
    parser.add_argument("--watch", action="store_true", help="print every board the bot reads")
    parser.add_argument("--quiet", action="store_true", help="no line per game, only the summary")
    parser.set_defaults(func=run)


def config_from_args(args: argparse.Namespace) -> BotConfig:
    """The run's settings, every option checked before anything starts."""
    from eval.report import check_output_path
    from screen_bot.programs import board_of, program_named
    from screen_bot.runner import BotConfig

    program = program_named(args.program)
    board_of(program, args.preset)
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    if args.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
    if args.json:
        check_output_path(args.json, "--json")
    screenshots = Path(args.screenshots)
    if screenshots.exists() and not screenshots.is_dir():
        raise ValueError(f"--screenshots {screenshots} is a file; give a folder")
    watch = (lambda text: print(text + "\n", flush=True)) if args.watch else None
    return BotConfig(program, args.preset, args.games, args.seed, args.display, watch, screenshots)


def run(args: argparse.Namespace) -> int:
    from eval.report import write_json
    from screen_bot.runner import play_games, report

    config = config_from_args(args)
    # A plain kill ends the run through the clean-up (the program and the private Xvfb stop too).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.monotonic()
    progress = None if args.quiet else _print_game
    results = play_games(config, progress)
    data = report(config, results, time.monotonic() - started)
    print(summary(data))
    if args.json:
        write_json(data, args.json)
    return 0


def _print_game(index: int, result: GameResult) -> None:
    misread = "not checked" if result.misread is None else str(len(result.misread))
    note = f"  ({result.note})" if result.note else ""
    print(f"game {index + 1} [{result.game_id}]: {result.outcome}, {result.clicks} clicks, {result.seconds:.1f} s, "
          f"misread cells {misread}{note}", flush=True)  # fmt: skip


def summary(data: dict) -> str:
    """The run in a few lines: the win rate with its interval, speed, unread games and the cross-check."""
    suite, entry = data["suite"], data["results"][0]
    board = f"{suite['program']} {suite['preset']} {suite['rows']}x{suite['cols']}/{suite['mines']}"
    if entry["games"]:
        low, high = entry["ci95"]
        rate = f"won {entry['wins']}/{entry['games']} = {entry['win_rate']:.1%} (95% CI {low:.1%}-{high:.1%})"
        speed = (f"{entry['clicks_per_game']:.0f} clicks and {entry['seconds_per_game']:.1f} s a game, "
                 f"{entry['games_per_minute']:.1f} games a minute")  # fmt: skip
    else:
        rate, speed = "no game played to its end", ""
    lines = [f"{board}: {rate}", speed,
             f"unread games: {entry['unread_games']}; cross-checked games: {entry['crosschecked_games']}, "
             f"misread cells: {entry['misread_cells']}"]  # fmt: skip
    return "\n".join(line for line in lines if line)

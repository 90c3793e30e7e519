"""``minesweeper play``: play in the terminal or a window, with the solver's help, or watch an agent play.

Modes: ``manual`` (you play), ``assist`` (the solver plays every certain move after each of yours and shows
mine chances on request; the guesses are yours), ``auto`` (an agent plays the first game, saying which moves
are certain and which are guesses, with their risk; every new game is yours, auto play off). ``--agent``
picks the agent and implies ``auto`` unless a mode is given. With ``--gui`` the game opens in a pygame window
that fits the screen (``--gui`` without a display is refused at once). When stdout is not a terminal (a pipe,
a CI log), ``auto`` prints the board after every move as plain text instead of a full-screen game.

The play apps themselves are :mod:`minesweeper_cli.apps`; this module reads the options and starts one.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from minesweeper_cli.choices import AGENTS, PLAY_MODES
from minesweeper_cli.options import add_board_options, board_spec

if TYPE_CHECKING:
    from minesweeper_cli.apps.session import GameSession
    from minesweeper_cli.apps.solver_warm_up import SolverWarmUp

INTERACTIVE_DELAY = 0.5
"""Seconds between an agent's moves on screen when ``--delay`` is not given (plain text: no pause)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "play", help="play in the terminal or a window, get the solver's help, or watch an agent play"
    )
    parser.add_argument("--mode", choices=PLAY_MODES, help="manual (default), assist, or auto (an agent plays)")
    parser.add_argument("--agent", choices=AGENTS, help="the agent for AI moves and auto play (solver)")
    parser.add_argument("--delay", type=float, help=f"seconds between auto moves ({INTERACTIVE_DELAY} on screen, "
                        "0 in plain text)")  # fmt: skip
    parser.add_argument("--seed", type=int, help="seeds the layouts: the same seed gives the env's boards")
    parser.add_argument("--gui", action="store_true", help="play in a pygame window (the gui extra)")
    parser.add_argument("--cell-px", type=int, default=32, help="cell size in pixels in the window")
    parser.add_argument("--no-guess", action="store_true",
                        help="no-guess boards: logic alone clears them from the first click (opening)")  # fmt: skip
    add_board_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from minesweeper_cli.apps.session import GameSession
    from minesweeper_cli.apps.solver_warm_up import SolverWarmUp

    spec = board_spec(args)
    mode = args.mode or ("auto" if args.agent else "manual")
    if args.delay is not None and args.delay < 0:
        raise ValueError(f"--delay must be at least 0 seconds, got {args.delay}")
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
    if args.gui:
        _check_window(args.cell_px)
    boards = "no_guess" if args.no_guess else "random"
    session = GameSession(spec, seed=args.seed, mode=mode, agent=args.agent or "solver", boards=boards)
    screen_delay = INTERACTIVE_DELAY if args.delay is None else args.delay
    if not args.gui and not sys.stdout.isatty():
        if mode != "auto":
            raise ValueError(f"the {mode} mode needs an interactive terminal (or --gui); "
                             "to watch an agent in plain text, use --mode auto or --agent NAME")  # fmt: skip
        return _watch_plain(session, args.delay)
    warm_up = SolverWarmUp()  # hints and solver moves are keys away: compile them while the board is on screen
    warm_up.start()
    try:
        if args.gui:
            return _run_window(session, args.cell_px, screen_delay, warm_up)
        _run_terminal(session, screen_delay, auto=mode == "auto", warm_up=warm_up)
    finally:
        warm_up.stop()
    return 0


def _watch_plain(session: GameSession, delay: float | None) -> int:
    """Print an agent's game to stdout; 0 once it ends, else 1 (a reader leaving early is handled by main)."""
    from minesweeper_cli.apps.watch import watch_plain

    watch_plain(session, 0.0 if delay is None else delay, sys.stdout)
    return 0 if session.is_over else 1


def _run_terminal(session: GameSession, delay: float, auto: bool, warm_up: SolverWarmUp) -> None:
    """The full-screen game, or a ValueError saying what to install where curses is missing (Windows)."""
    try:
        from minesweeper_cli.apps import curses_screen, tui
    except ImportError as error:
        raise ValueError(f"the terminal game needs curses ({error}); on Windows: pip install windows-curses, "
                         "or play in a window with --gui") from error  # fmt: skip
    curses_screen.run_terminal(tui.TerminalGame(session, delay=delay, auto=auto, warm_up=warm_up))


def _check_window(cell_px: int) -> None:
    """Refuse at once what would keep the window from opening: a tiny cell, no display, no pygame."""
    if cell_px < 16:
        raise ValueError(f"--cell-px must be at least 16, got {cell_px}")
    from minesweeper_cli.apps import window_display

    window_display.check_display()
    try:
        window_display.import_pygame()
    except ImportError as error:
        raise ValueError(str(error)) from error


def _run_window(session: GameSession, cell_px: int, delay: float, warm_up: SolverWarmUp) -> int:
    from minesweeper_cli.apps import gui, window_display

    pygame = window_display.import_pygame()
    try:
        gui.run_window(session, cell_px=cell_px, delay=delay, auto=session.mode == "auto", warm_up=warm_up)
    except pygame.error as error:  # SDL could not make the window
        raise ValueError(f"cannot open the window: {error}") from error
    return 0

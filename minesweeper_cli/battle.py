"""``minesweeper battle``: ``eval``, the seeded tournament of battle-minesweeper agents (:mod:`battle.tournament`), and
``play``, a game in the terminal: a person against an AI, or two AIs watched.

On a terminal ``play`` is full screen (:mod:`minesweeper_cli.apps.battle_tui`, the keys of ``minesweeper play``). With
``--plain``, or when stdin or stdout is not a terminal, it is plain text, line by line: the board (``A`` the
mines of player_0, ``B`` those of player_1, ``.`` hidden), then the scores and whose turn it is; a person types
``ROW COL`` to reveal, ``b ROW COL`` to bomb (where the rule is on), ``q`` to quit.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backends import check_backend
from minesweeper_cli.choices import BATTLE_AGENTS, BATTLE_BOARD
from minesweeper_cli.options import add_backend_options

if TYPE_CHECKING:
    from battle.players import BattleAgent
    from battle.rules import BattleGame, BattleSpec

DEFAULT_ROWS, DEFAULT_COLS, DEFAULT_MINES = BATTLE_BOARD

CLAIM_CHARS = ("A", "B")
"""How a mine claimed by player_0 / player_1 is drawn (as in the env's ansi render)."""
SCREEN_DELAY = 0.5
"""Seconds between AI moves on the full screen when ``--delay`` is not given."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("battle", help="two-player battle minesweeper: a tournament of AIs, or a game",
                                   description="Two-player battle minesweeper (docs/BATTLE.md): the players take turns "
                                   "and claim the mines they find; more than half of them wins.")
    commands = parser.add_subparsers(dest="battle_command", required=True, metavar="BATTLE_COMMAND")
    tournament = commands.add_parser(
        "eval", help="every pair of agents on the same seeded boards, each board twice with seats swapped",
        description="A seeded tournament of battle AIs: every pair of --agent plays the same --games boards, each "
        "board twice with the seats swapped; prints a Markdown table of the pairs and the agents' ratings.",
    )
    tournament.add_argument("--agent", action="append", required=True, metavar="NAME",
                            help=f"an agent ({', '.join(BATTLE_AGENTS)}, or model:PATH for a saved model of "
                            "battle.training); give at least two")  # fmt: skip
    tournament.add_argument("--games", type=int, required=True, help="boards per pair (each played twice)")
    tournament.add_argument("--seed", type=int, required=True, help="base seed of the boards")
    tournament.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"board rows (default {DEFAULT_ROWS})")
    tournament.add_argument("--cols", type=int, default=DEFAULT_COLS, help=f"board columns (default {DEFAULT_COLS})")
    tournament.add_argument("--mines", type=int, default=DEFAULT_MINES,
                          help=f"mines on the board (default {DEFAULT_MINES}; an odd number rules out a draw)")
    tournament.add_argument("--bomb", action="store_true", help="turn the 5x5 bomb rule on")
    tournament.add_argument("--workers", type=int, default=1, help="processes playing boards in parallel")
    add_backend_options(tournament)
    tournament.add_argument("--json", type=Path, metavar="PATH", help="also write the report as JSON here")
    tournament.add_argument("--merge", type=Path, metavar="PATH",
                            help="an earlier report (JSON) of the same suite: its pairs are taken, not replayed")
    tournament.set_defaults(func=run_eval)
    play = commands.add_parser("play", help="play a game in the terminal against an AI, or watch two AIs")
    play.add_argument("--opponent", default="contest", metavar="NAME",
                      help=f"the AI you play against ({', '.join(BATTLE_AGENTS)}; default contest)")  # fmt: skip
    play.add_argument("--seat", type=int, default=0, choices=(0, 1), help="your seat: 0 moves first (default)")
    play.add_argument("--watch", nargs=2, metavar=("AI_0", "AI_1"), help="watch two AIs instead of playing")
    play.add_argument("--delay", type=float, help=f"seconds between AI moves ({SCREEN_DELAY} full screen, 0 in "
                      "plain text)")  # fmt: skip
    play.add_argument("--plain", action="store_true", help="plain text, line by line, instead of full screen")
    play.add_argument("--seed", type=int, default=0, help="the board: the env's layout after reset(seed=SEED)")
    play.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"board rows (default {DEFAULT_ROWS})")
    play.add_argument("--cols", type=int, default=DEFAULT_COLS, help=f"board columns (default {DEFAULT_COLS})")
    play.add_argument("--mines", type=int, default=DEFAULT_MINES,
                          help=f"mines on the board (default {DEFAULT_MINES}; an odd number rules out a draw)")
    play.add_argument("--bomb", action="store_true", help="turn the 5x5 bomb rule on")
    play.set_defaults(func=run_play)


def run_eval(args: argparse.Namespace) -> int:
    """Check everything first, then play the tournament and print (and save) its table."""
    from battle.rules import BattleSpec
    from battle.tournament import check_tournament, markdown_table, pair_row, run_tournament

    spec = BattleSpec(args.rows, args.cols, args.mines, bomb=args.bomb)
    check_tournament(args.agent, args.games, args.seed, args.workers, spec)
    check_backend(args.backend, args.workers, args.address)
    if args.json is not None and not args.json.parent.is_dir():
        raise ValueError(f"--json: the folder {args.json.parent} does not exist")
    earlier = read_report(args.merge) if args.merge is not None else None
    report = run_tournament(args.agent, spec, args.games, args.seed, args.workers, earlier=earlier,
                            on_pair=lambda result: print(pair_row(result), file=sys.stderr, flush=True),
                            backend=args.backend, address=args.address)
    print(markdown_table(report), end="")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


def read_report(path: Path) -> Any:
    """An earlier tournament report, or a ValueError saying why it cannot be read."""
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"--merge: {path} does not exist") from None
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"--merge: cannot read {path} as JSON: {error}") from None


def board_text(game: BattleGame) -> str:
    """The board with both players' claims, a header of column numbers, then the scores and whose turn it is."""
    from mine_env.engine.constants import MINE
    from mine_env.rendering import cell_char

    spec = game.spec
    grid, owner = game.grid, game.owner.reshape(spec.rows, spec.cols)
    width, label = len(str(spec.cols - 1)), len(str(spec.rows - 1))
    lines = [" " * (label + 1) + " ".join(str(c).rjust(width) for c in range(spec.cols))]
    for r in range(spec.rows):
        cells = [(CLAIM_CHARS[owner[r, c]] if grid[r, c] == MINE else cell_char(int(grid[r, c]))).rjust(width)
                 for c in range(spec.cols)]  # fmt: skip
        lines.append(str(r).rjust(label) + " " + " ".join(cells))
    lines.append(status_line(game))
    return "\n".join(lines) + "\n"


def status_line(game: BattleGame) -> str:
    """Scores, the mines needed to win, and whose turn it is (or how the game ended)."""
    from battle.rules import DRAW

    a, b = game.scores
    if game.winner == DRAW:
        state = "a draw"
    elif game.is_over:
        state = f"player_{game.winner} wins"
    else:
        state = f"player_{game.mover} to move" + (" (bomb allowed)" if game.can_bomb(game.mover) else "")
    return f"player_0 (A) {a} - {b} player_1 (B), {game.spec.to_win} to win: {state}"


def parse_move(line: str, game: BattleGame) -> int | None:
    """A typed move as an action (None for quit); a ValueError that says what to type when it is not one."""
    words = line.split()
    if words in (["q"], ["quit"]):
        return None
    bomb = bool(words) and words[0] == "b"
    numbers = words[1:] if bomb else words
    if len(numbers) != 2 or not all(word.isdigit() for word in numbers):
        raise ValueError(f"cannot read {line.strip()!r}: type ROW COL to reveal, b ROW COL to bomb, q to quit")
    row, col = int(numbers[0]), int(numbers[1])
    if row >= game.spec.rows or col >= game.spec.cols:
        raise ValueError(f"({row}, {col}) is off the board: rows 0..{game.spec.rows - 1}, "
                         f"columns 0..{game.spec.cols - 1}")  # fmt: skip
    cell = row * game.spec.cols + col
    return cell + game.spec.n_cells if bomb else cell


def describe(game: BattleGame, seat: int, action: int, claimed: int) -> str:
    """One line for a move just played."""
    n = game.spec.n_cells
    row, col = divmod(action % n, game.spec.cols)
    if action >= n:
        return f"player_{seat} bombs around ({row}, {col}): {claimed} mine(s)"
    return f"player_{seat} reveals ({row}, {col}): " + ("a mine, moves again" if claimed else "safe")


def play_game(
    game: BattleGame, players: tuple[BattleAgent | None, BattleAgent | None],
    read_line: Callable[[], str], write: Callable[[str], None], delay: float = 0.0,
) -> BattleGame:  # fmt: skip
    """Play ``game`` to its end (or until the person quits): a None player is the person, who types moves."""
    from battle.players import seat_observation

    write(board_text(game))
    while not game.is_over:
        seat = game.mover
        player = players[seat]
        if player is None:
            try:
                action = parse_move(read_line(), game)
            except EOFError:
                action = None
            except ValueError as error:
                write(f"{error}\n")
                continue
            if action is None:
                write("quit\n")
                return game
            try:
                claimed = game.play(action)
            except ValueError as error:
                write(f"{error}\n")
                continue
        else:
            action = player.act(*seat_observation(game, seat))
            claimed = game.play(action)
            time.sleep(delay)
        write(describe(game, seat, action, claimed) + "\n" + board_text(game))
    return game


def run_play(args: argparse.Namespace) -> int:
    """Check the options, then play (or show) one game in the terminal."""
    from battle.players import make_battle_agent
    from battle.rules import BattleGame, BattleSpec
    from mine_env.engine.rng import layout_key

    spec = BattleSpec(args.rows, args.cols, args.mines, bomb=args.bomb)
    names = args.watch if args.watch else [args.opponent]
    for name in names:
        if name not in BATTLE_AGENTS:
            raise ValueError(f"unknown battle agent {name!r}; expected one of {', '.join(BATTLE_AGENTS)}")
    for option in ("seed", "delay"):
        if getattr(args, option) is not None and getattr(args, option) < 0:
            raise ValueError(f"--{option} must be non-negative, got {getattr(args, option)}")
    if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
        run_full_screen(spec, args)
        return 0
    args.delay = 0.0 if args.delay is None else args.delay
    if args.watch:
        players = (make_battle_agent(args.watch[0], args.seed), make_battle_agent(args.watch[1], args.seed))
    else:
        ai = make_battle_agent(args.opponent, args.seed)
        players = (None, ai) if args.seat == 0 else (ai, None)
        print(f"you are player_{args.seat} ({CLAIM_CHARS[args.seat]}) against {args.opponent}: "
              "type ROW COL to reveal, b ROW COL to bomb, q to quit")  # fmt: skip
    play_game(BattleGame(spec, layout_key(args.seed)), players, input,
              lambda text: print(text, end="", flush=True), args.delay)  # fmt: skip
    return 0


def run_full_screen(spec: BattleSpec, args: argparse.Namespace) -> None:
    """The curses game (:mod:`minesweeper_cli.apps.battle_tui`), or a ValueError saying what to do without curses."""
    try:
        from minesweeper_cli.apps import battle_tui, curses_screen
    except ImportError as error:
        raise ValueError(f"the full-screen game needs curses ({error}); on Windows: pip install windows-curses, "
                         "or play line by line with --plain") from error  # fmt: skip
    session = battle_tui.battle_session(spec, args.seed, args.opponent, args.seat, args.watch)
    delay = SCREEN_DELAY if args.delay is None else args.delay
    curses_screen.run_terminal(battle_tui.BattleTerminalGame(session, delay=delay, auto=bool(args.watch)))

"""``minesweeper battle eval``: the seeded tournament of battle-minesweeper agents (:mod:`eval.battle`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agents.battle import BATTLE_AGENTS
from eval.battle import check_tournament, markdown_table, pair_row, run_tournament
from mine_env.engine.battle import DEFAULT_COLS, DEFAULT_MINES, DEFAULT_ROWS, BattleSpec


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("battle", help="two-player battle minesweeper: a tournament of AIs")
    commands = parser.add_subparsers(dest="battle_command", required=True, metavar="BATTLE_COMMAND")
    tournament = commands.add_parser(
        "eval", help="every pair of agents on the same seeded boards, each board twice with seats swapped"
    )
    tournament.add_argument("--agent", action="append", required=True, metavar="NAME",
                            help=f"an agent ({', '.join(BATTLE_AGENTS)}); give at least two")  # fmt: skip
    tournament.add_argument("--games", type=int, required=True, help="boards per pair (each played twice)")
    tournament.add_argument("--seed", type=int, required=True, help="base seed of the boards")
    tournament.add_argument("--rows", type=int, default=DEFAULT_ROWS)
    tournament.add_argument("--cols", type=int, default=DEFAULT_COLS)
    tournament.add_argument("--mines", type=int, default=DEFAULT_MINES)
    tournament.add_argument("--bomb", action="store_true", help="turn the 5x5 bomb rule on")
    tournament.add_argument("--workers", type=int, default=1, help="processes playing boards in parallel")
    tournament.add_argument("--json", type=Path, metavar="PATH", help="also write the report as JSON here")
    tournament.set_defaults(func=run_eval)


def run_eval(args: argparse.Namespace) -> int:
    """Check everything first, then play the tournament and print (and save) its table."""
    spec = BattleSpec(args.rows, args.cols, args.mines, bomb=args.bomb)
    check_tournament(args.agent, args.games, args.seed, args.workers)
    if args.json is not None and not args.json.parent.is_dir():
        raise ValueError(f"--json: the folder {args.json.parent} does not exist")
    report = run_tournament(args.agent, spec, args.games, args.seed, args.workers,
                            on_pair=lambda result: print(pair_row(result), file=sys.stderr, flush=True))
    print(markdown_table(report), end="")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0

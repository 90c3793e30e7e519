"""``minesweeper eval``: compare agents on the very same seeded games and report win rates and more.

Examples::

    minesweeper eval --agent solver --agent rules --agent random --preset beginner --first-click opening \\
        --games 1000 --seed 0 --json out.json
    minesweeper eval --agent solver --suite expert-opening-1k --workers 2 --csv games.csv --plot win.png
    minesweeper eval --model runs/ppo-run/best_model.zip --agent solver --suite beginner-opening-10k
    minesweeper eval --agent solver --preset beginner --games 100000 --seed 2026 --backend ray --address 10.0.0.5:6379
    minesweeper eval --agent solver --suite expert-no-guess-1k --no-oracle
    minesweeper eval --agent solver --preset intermediate --boards no-guess --games 500
    minesweeper eval --model models/distill_intermediate_opening.zip --symmetries 1 --symmetries 8 \\
        --suite intermediate-opening-1k
    minesweeper eval --model models/distill_expert_opening.zip --symmetries 4 --sure 1e-5 --suite expert-opening-1k
    minesweeper eval --list-suites
    minesweeper eval --agent solver --suite expert-opening-10k --log expert.games.jsonl   # Ctrl-C, then:
    minesweeper eval --agent solver --suite expert-opening-10k --resume expert.games.jsonl
    minesweeper eval --llm-endpoint http://127.0.0.1:8000/v1 --llm-model qwen3-8b --agent solver --agent random \\
        --preset beginner --games 100 --json llm.json
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from backends import check_backend
from minesweeper_cli.choices import (
    AGENTS,
    DEFAULT_FIRST_CLICK,
    SHIPPED_MODELS,
    STARTS,
    SYMMETRY_COUNTS,
    default_workers,
)
from minesweeper_cli.evaluate_llm import add_llm_options, check_llm_args, run_llm
from minesweeper_cli.options import add_backend_options, add_board_options, add_boards_option, board_spec, boards_kind

if TYPE_CHECKING:  # the engine, the runner and the reports load when the command runs, not for its parser
    from eval.metrics import GameRecord
    from eval.suites import Suite

EXPECTED_TIMES = (
    "Expected times with --workers 2 on a shared 2-core machine (measured on 10 to 200 games and extrapolated): the "
    "solver, rules and random agents on 1,000 beginner games with the oracle, under a minute; the solver and a DQN "
    "model on beginner-opening-10k, about 15 minutes; the solver on expert-opening-10k, about 20 minutes; a "
    "distilled network on intermediate-opening-1k, about 15 minutes (an hour with --symmetries 1 --symmetries 8), "
    "and on expert-opening-1k with --symmetries 4, about 2 hours. Ctrl-C or SIGTERM stops a run with its games "
    "kept (--log), and prints the command that resumes it (--resume)."
)
DEFAULT_GAMES = 1000
DEFAULT_SEED = 0
_AD_HOC_OPTIONS = ("preset", "rows", "cols", "mines", "first_click", "boards", "games", "seed")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="compare agents on the same seeded games",
        description="Play every agent on the same seeded games and print a table of win rates (Wilson 95% "
        "intervals), safe cells revealed, guesses, avoidable losses, excess risk and time, with paired "
        "McNemar tests. The games are either a named suite (--suite) or built from the board options.",
        epilog=EXPECTED_TIMES,
    )
    parser.add_argument("--agent", action="append", default=[], choices=AGENTS, help="a baseline (repeat)")
    parser.add_argument("--model", action="append", default=[], metavar="PATH",
                        help="a saved model (its .zip or .pt, with its .json card beside it), or a shipped model by "
                        f"name ({', '.join(SHIPPED_MODELS)}) (repeat)")  # fmt: skip
    parser.add_argument("--head", action="append", default=[], metavar="PATH",
                        help="a learnt value head (.npz of python -m train.distill.guess.value), played by the "
                             "agent of its kind: guess-value or solver-value (repeat)")  # fmt: skip
    parser.add_argument("--symmetries", type=int, action="append", choices=SYMMETRY_COUNTS, metavar="N",
                        help="play every --model averaged over N of the board's symmetries: 2 or 4 mirror "
                             "images, 8 with the quarter turns of a square board, in one batched pass a move; "
                             "repeat to play each model at several counts on the same games (default: 1, the "
                             "model as it is)")  # fmt: skip
    parser.add_argument("--sure", type=float, default=0.0, metavar="P",
                        help="with --symmetries N > 1 and a distilled or mine-prior model: play the board as it "
                             "is alone when the network gives its chosen cell a mine chance below P, and average the "
                             "N images only otherwise: for a distilled model close to the average's play at little "
                             "more than one pass a move; a mine-prior policy alone is too sure of itself (on expert "
                             "the gate at 1e-5 costs the shipped MaskablePPO model 4.3 points) (default 0: always "
                             "average)")  # fmt: skip
    parser.add_argument("--safe-mask", action="store_true",
                        help="play every --model under the oracle's safe-cell mask: a certainly safe cell is "
                             "played whenever there is one, and the model chooses only its guesses (and first "
                             "click); the games are those of the env under agents.wrappers.SafeCellMask")  # fmt: skip
    parser.add_argument("--opening", action="store_true",
                        help="open every --model on its learnt first cell (its card's opening, chosen from the "
                             "model's own games by python -m eval.opening), on the board and rule it was learnt "
                             "on (default: the first cell its scores pick)")  # fmt: skip
    parser.add_argument("--suite", help="a named suite (see --list-suites) instead of the board options")
    parser.add_argument("--list-suites", action="store_true", help="list the named suites and exit")
    add_board_options(parser, default_preset=None)
    add_boards_option(parser)
    parser.add_argument("--first-cell", metavar="ROW,COL",
                        help="play this cell first in every game on every agent's behalf, so that under a "
                             "first-click rule every agent plays the very same boards (default: each agent opens "
                             "where it likes, and the mines are placed around its first cell)")  # fmt: skip
    parser.add_argument("--start", choices=STARTS, default="agent",
                        help="how each game starts: agent (default: the agent opens under the first-click rule) "
                             "or zero (a uniform layout with a uniformly drawn zero cell opened for the agent, as "
                             "the published expert agents are measured; the same seeds, the 'none' rule)")  # fmt: skip
    parser.add_argument("--games", type=int, help=f"games of an ad-hoc suite (default {DEFAULT_GAMES})")
    parser.add_argument("--seed", type=int, help=f"base seed of an ad-hoc suite (default {DEFAULT_SEED})")
    parser.add_argument("--workers", type=int, default=default_workers(), help="worker processes (default: all cores)")
    add_backend_options(parser)
    parser.add_argument("--chunk-games", type=int, metavar="N",
                        help="games per task (default: up to 50); larger suit a cluster and fast games")  # fmt: skip
    parser.add_argument("--no-oracle", dest="oracle", action="store_false",
                        help="skip the oracle metrics (guesses, avoidable losses, excess risk): faster")  # fmt: skip
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="hide the progress bar")
    parser.add_argument("--json", metavar="PATH", help="write the report as JSON")
    parser.add_argument("--csv", metavar="PATH", help="write one row per game as CSV")
    parser.add_argument("--plot", metavar="PATH", help="write a PNG of the win rates with their intervals")
    parser.add_argument("--log", metavar="PATH",
                        help="write every game to this file as it finishes, one JSON line each, and keep it (default: "
                             "a working log beside --json, OUT.games.jsonl, or in the temporary folder, deleted "
                             "once the report is written). Ctrl-C or SIGTERM stops the run, keeps the log and "
                             "prints the command that resumes it")  # fmt: skip
    parser.add_argument("--resume", metavar="LOG",
                        help="continue the run of this game log: the games in it are not played again, and the "
                             "report is the one an unbroken run gives; the same agents, suite and options are "
                             "required (--workers, --backend and --chunk-games may change)")  # fmt: skip
    add_llm_options(parser)
    # None marks "not given", so --suite can refuse board options that would be silently ignored.
    parser.set_defaults(func=run, first_click=None)


def suite_from_args(args: argparse.Namespace) -> Suite:
    """The named suite of --suite, or an ad-hoc suite from the board options, --games and --seed."""
    from eval.suites import adhoc_suite, get_suite

    if args.suite is not None:
        given = [f"--{name.replace('_', '-')}" for name in _AD_HOC_OPTIONS if getattr(args, name) is not None]
        if given:
            raise ValueError(f"--suite fixes the board, games and seed; drop {', '.join(given)}")
        return get_suite(args.suite)
    if args.first_click is None:
        args.first_click = DEFAULT_FIRST_CLICK
    games = DEFAULT_GAMES if args.games is None else args.games
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    seed = DEFAULT_SEED if args.seed is None else args.seed
    if seed < 0:
        raise ValueError(f"--seed must be non-negative, got {seed}")
    return adhoc_suite(board_spec(args), games, seed, boards_kind(args))


def parse_cell(text: str) -> tuple[int, int]:
    """``ROW,COL`` as two integers, else a ValueError naming the option."""
    try:
        row, col = (int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"--first-cell takes ROW,COL (two integers), got {text!r}") from None
    return row, col


def check_outputs(args: argparse.Namespace) -> None:
    """Every output path writable (and matplotlib there for --plot) before a game is played."""
    from eval.report import check_output_path, check_plot_output

    for option in ("json", "csv"):
        if getattr(args, option):
            check_output_path(getattr(args, option), f"--{option}")
    if args.plot:
        check_plot_output(args.plot)
    if args.log:
        check_output_path(args.log, "--log")


def print_suites() -> None:
    """The named suites as a Markdown table."""
    from eval.suites import list_suites

    print("| suite | version | board | mines | first click | games | base seed | boards |")
    print("|---|---|---|---:|---|---:|---:|---|")
    for suite in list_suites():
        print(f"| {suite.name} | {suite.version} | {suite.rows}x{suite.cols} | {suite.mines} | "
              f"{suite.first_click} | {suite.games} | {suite.base_seed} | {suite.boards} |")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Check every option, then play the games, stopping cleanly on SIGINT or SIGTERM (the log kept)."""
    from eval.game_log import choose_log, drop_if_empty
    from eval.stopping import Stopped, resume_command, stop_signals

    if args.list_suites:
        print_suites()
        return 0
    check_llm_args(args)
    if not args.agent and not args.model and not args.head and args.llm_endpoint is None:
        raise ValueError("give at least one --agent NAME, --model PATH or --head PATH to evaluate, or an "
                         "--llm-endpoint URL")  # fmt: skip
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    check_backend(args.backend, args.workers, args.address)
    if args.chunk_games is not None and args.chunk_games < 1:
        raise ValueError(f"--chunk-games must be at least 1, got {args.chunk_games}")
    check_outputs(args)
    suite = suite_from_args(args)
    if args.first_cell is not None:
        if args.start == "zero":
            raise ValueError("--start zero opens a zero cell for the agent: it takes no --first-cell")
        suite = suite.with_first_cell(parse_cell(args.first_cell))
    if args.start == "zero":
        suite = suite.with_zero_start()
    if args.symmetries and not args.model:
        raise ValueError("--symmetries applies to --model; give a model to evaluate")
    log, working = choose_log(args.log, args.resume, args.json)
    try:
        with stop_signals():
            _evaluate(args, suite, log)
    except Stopped as stop:
        command_line = getattr(args, "command_line", sys.argv[1:])
        print(stop.message(resume_command("minesweeper", command_line, log) if log.exists() else None),
              file=sys.stderr)  # fmt: skip
        return stop.exit_status
    except BaseException:
        if working:
            drop_if_empty(log)
        raise
    if working:
        log.unlink(missing_ok=True)
    return 0


def _evaluate(args: argparse.Namespace, suite: Suite, log: Path) -> None:
    """Play the games of the run (a language model's, or the grid agents' and models'), print the report and
    write its files."""
    from eval.agent_specs import AgentSpec
    from eval.report import markdown_report
    from eval.runner import evaluate

    resume = args.resume is not None
    if args.llm_endpoint is not None:
        from mine_llm.evaluate import text_table

        text_report = run_llm(args, suite, log, resume)
        print(markdown_report(text_report.summary) + "\nThrough the text env, graded move by move by the oracle:\n\n"
              + text_table(text_report.summary), end="")  # fmt: skip
        _write_outputs(args, text_report.summary, text_report.records, suite)
        if text_report.stopped:  # the games played are reported and written: now the one line of why it stopped
            raise ValueError(text_report.stopped)
        return
    counts = args.symmetries or [1]
    if args.sure and max(counts) == 1:
        raise ValueError("--sure gates the average over symmetries: give --symmetries 2, 4 or 8 with it")
    if args.safe_mask and not args.model:
        raise ValueError("--safe-mask applies to --model; give a model to evaluate")
    if args.opening and not args.model:
        raise ValueError("--opening applies to --model; give a model to evaluate")
    models = [AgentSpec.model(path, suite.spec(), count, args.sure if count > 1 else 0.0, args.safe_mask, args.opening)
              for path in args.model for count in counts]  # fmt: skip
    heads = [AgentSpec.head(path) for path in args.head]
    report = evaluate([*args.agent, *models, *heads], suite, workers=args.workers, oracle=args.oracle,
                      progress=args.progress, backend=args.backend, address=args.address,
                      chunk_games=args.chunk_games, log=log, resume=resume)  # fmt: skip
    summary = report.to_dict()
    print(markdown_report(summary), end="")
    _write_outputs(args, summary, report.records, suite)


def _write_outputs(args: argparse.Namespace, summary: dict, records: Sequence[GameRecord], suite: Suite) -> None:
    """The --json, --csv and --plot files of a report."""
    from eval.report import plot_win_rates, write_csv, write_json

    if args.json:
        write_json(summary, args.json)
    if args.csv:
        write_csv(records, args.csv, suite.name)
    if args.plot:
        plot_win_rates([summary], args.plot)

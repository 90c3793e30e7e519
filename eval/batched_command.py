"""``python -m eval.batched``: models played on a suite's games in batches (:mod:`eval.batched`), from the command line.

Every option is checked before a network is loaded, each in one line; a progress bar counts the games as they end;
and every game is written to a game log as it ends (:mod:`eval.game_log`: ``--log``, else a working log beside
``--json`` or in the temporary folder, deleted once the run ends), so that Ctrl-C or SIGTERM keeps the games played,
prints the command that resumes the run (:mod:`eval.stopping`) and ``--resume LOG`` plays only the others.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from eval.batched import BatchedResult, Columns, card_mark_above, play_model_batched
from eval.game_log import GameLog, choose_log, drop_if_empty, open_game_log
from eval.stopping import Stopped, count_games, resume_command, stop_signals, stops_held
from eval.suites import Suite, adhoc_suite, get_suite
from mine_env.engine.constants import FIRST_CLICK_RULES, PRESETS
from mine_env.engine.spec import BoardSpec
from mine_env.engine.starts import STARTS

PROG = "python -m eval.batched"
TIMES = ("Expected times on a CPU, measured with --workers 2 on a shared 2-core machine over 100 to 400 games and "
         "extrapolated: a distilled network plays some 15 beginner, 2 intermediate or 0.2 expert games a second, so a "
         "10k suite takes about 11 minutes (beginner), 80 minutes (intermediate) or hours (expert: some 12), and "
         "--symmetries N up to N times as long; on a GPU (--device cuda) a 10k suite takes seconds. Ctrl-C stops a "
         "run with its games kept, and prints the command that resumes it.")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="A model played on a whole suite's games at once, one "
                                     "batched forward pass a move.", epilog=TIMES)  # fmt: skip
    parser.add_argument("--model", required=True, action="append", help="A saved model (its card and weights, or a "
                        "shipped model's name); repeat for several.")  # fmt: skip
    parser.add_argument("--suite", help="A named suite (minesweeper eval --list-suites); or --preset with --games "
                        "and --seed.")  # fmt: skip
    parser.add_argument("--preset", choices=PRESETS, help="Games of this board instead of a named suite's, as "
                        "minesweeper eval --preset plays them (with --games and --seed).")  # fmt: skip
    parser.add_argument("--first-click", choices=FIRST_CLICK_RULES, default="opening", help="With --preset: the "
                        "first-click rule (default: opening).")  # fmt: skip
    parser.add_argument("--seed", type=int, default=None, help="With --preset: the games' seed.")
    parser.add_argument("--start", action="append", choices=STARTS, help="How each game starts (see STARTS); "
                        "repeat for several (default: agent).")  # fmt: skip
    parser.add_argument("--games", type=int, default=None, help="Play only the suite's first N games.")
    parser.add_argument("--batch", type=int, default=10_000, help="Games played together.")
    parser.add_argument("--device", default="cpu", help="Torch device of the network: cpu, cuda, cuda:N.")
    parser.add_argument("--workers", type=int, default=1, help="CPU processes the games are split over (on a CPU "
                        "more processes, not more threads, use the cores).")  # fmt: skip
    parser.add_argument("--mark-above", type=float, default=None, help="Play with marks at this mine chance "
                        "(agents.marks; 0: without); default: the model card's mark_above, else without.")  # fmt: skip
    parser.add_argument("--passes", type=int, default=None, help="An iterated trunk's passes when it plays (more: "
                        "longer chains of constraints read); default: its card's.")  # fmt: skip
    parser.add_argument("--reveal-below", type=float, default=None, help="Reveal, after each call of the network, "
                        "every cell it gives a mine chance below this (0.01: the published 44.85%% expert agent's "
                        "player); default: its safest cell alone.")  # fmt: skip
    parser.add_argument("--symmetries", type=int, default=1, help="Average the network's scores over this many of "
                        "the board's symmetries (1, 2, 4; 8 on a square board).")  # fmt: skip
    parser.add_argument("--sure", type=float, default=0.0, help="With --symmetries: average only where the network "
                        "gives its pick a mine chance of at least this (1e-5); 0: at every move.")  # fmt: skip
    parser.add_argument("--opening", action="store_true", help="Open every game the agent opens on the model's "
                        "learnt first cell (its card's opening: python -m eval.opening); default: its own pick.")
    parser.add_argument("--json", default=None, help="Append one line per model and start here: the summary and "
                        "every game's outcome.")  # fmt: skip
    parser.add_argument("--log", metavar="PATH", help="Write every game to this file as it ends, one JSON line "
                        "each, and keep it (default: a working log beside --json, else in the temporary folder, "
                        "deleted at the end). Ctrl-C or SIGTERM stops the run and prints the command that resumes "
                        "it.")  # fmt: skip
    parser.add_argument("--resume", metavar="LOG", help="Continue the run of this game log: its games are not played "
                        "again (the same models, suite, starts and play options are required).")  # fmt: skip
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="Hide the progress bar.")
    return parser


def check_options(args: argparse.Namespace) -> None:
    """One line for the first option out of range, before a network is loaded."""
    for option, low in (("games", 1), ("batch", 1), ("workers", 1)):
        value = getattr(args, option)
        if value is not None and value < low:
            raise ValueError(f"--{option} must be at least {low}, got {value}")
    if args.mark_above is not None and not 0.0 <= args.mark_above < 1.0:
        raise ValueError(f"--mark-above is a mine chance from 0 to below 1, got {args.mark_above:g}")
    check_device(args.device)
    run_suite(args)  # an unknown suite is refused here, by name


def run_suite(args: argparse.Namespace) -> Suite:
    """The suite the options name: ``--suite``, or ``--preset``'s games of ``--seed`` (ValueError for neither,
    both, or a preset without its games and seed)."""
    if (args.suite is None) == (args.preset is None):
        raise ValueError("give the games to play: --suite NAME, or --preset with --games and --seed")
    if args.suite is not None:
        if args.seed is not None:
            raise ValueError("--seed chooses a --preset's games; a named suite has its own: drop --seed")
        return get_suite(args.suite)
    if args.games is None or args.seed is None:
        raise ValueError(f"--preset {args.preset} needs --games and --seed (minesweeper eval's games of that seed)")
    return adhoc_suite(BoardSpec.from_options(args.preset, first_click=args.first_click), args.games, args.seed)


def check_device(device: str) -> None:
    """ValueError for a device torch does not know, or a GPU asked for where there is none."""
    import torch

    try:
        kind = torch.device(device).type
    except (RuntimeError, ValueError):
        raise ValueError(f"--device {device!r} is not a torch device; expected cpu, cuda or cuda:N") from None
    if kind == "cuda" and not torch.cuda.is_available():
        built = "no GPU found" if torch.backends.cuda.is_built() else "a CPU-only build of torch"
        raise ValueError(f"--device {device}: CUDA is not available here ({built}); use --device cpu")
    if kind == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"--device {device}: Apple's MPS is not available here; use --device cpu")


def batched_run(args: argparse.Namespace) -> dict[str, Any]:
    """What decides the games of a run, as its game log's header (not the device, batch or workers)."""
    options = ("games", "mark_above", "passes", "reveal_below", "symmetries", "sure")
    return {"evaluation": "batched network", "models": args.model, "starts": args.start or ["agent"],
            "suite": args.suite or run_suite(args).name,
            **{option: getattr(args, option) for option in options},
            **({"opening": True} if args.opening else {})}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        check_options(args)
        log, working = choose_log(args.log, args.resume, args.json)
    except ValueError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    try:
        with stop_signals(), open_game_log(log, batched_run(args), resume=args.resume is not None) as game_log:
            _play_all(args, game_log)
    except Stopped as stop:
        command = resume_command(PROG, list(sys.argv[1:] if argv is None else argv), log)
        print(stop.message(command if log.exists() else None), file=sys.stderr)
        return stop.exit_status
    except (ValueError, FileNotFoundError) as error:
        if working:
            drop_if_empty(log)
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    if working:
        log.unlink(missing_ok=True)
    return 0


def _play_all(args: argparse.Namespace, log: GameLog) -> None:
    """Every model on every start, each printed and appended to --json as it ends."""
    parts = [(model, start) for model in args.model for start in args.start or ["agent"]]
    for model, start in parts:
        suite = run_suite(args)
        suite = suite.with_zero_start() if start == "zero" else suite
        try:
            summary, record = _evaluate(args, model, suite, start, log)
        except KeyboardInterrupt as stop:
            count_games(stop, len(log.games), len(parts) * min(args.games or suite.games, suite.games))
            raise
        print(json.dumps(summary), flush=True)
        if args.json:
            path = Path(args.json)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a") as handle:
                handle.write(json.dumps(record) + "\n")


def _evaluate(args: argparse.Namespace, model: str, suite: Suite, start: str,
              log: GameLog) -> tuple[dict[str, Any], dict[str, Any]]:  # fmt: skip
    """One model on one suite and start: the summary and the record with every game's outcome; the games in the
    log are read back, the others played and logged as they end (the summary's ``seconds`` times those alone: a
    resumed run says how many it read back, ``games_read_back``)."""
    mark_above = card_mark_above(model) if args.mark_above is None else args.mark_above
    total = min(args.games or suite.games, suite.games)
    logged = {entry["game"]: entry for entry in log.games_of(suite.name, {model}, total)}
    left = [game for game in range(total) if game not in logged]
    bar = tqdm(total=total, initial=len(logged), desc=f"{Path(model).stem} {suite.name}", unit="game",
               disable=not args.progress, leave=False)  # fmt: skip

    def finished(games: np.ndarray, columns: Columns) -> None:
        won, first_cell, moves, calls = columns
        with stops_held():  # the log's lines and its count of games stay one
            log.append([{"suite": suite.name, "agent": model, "game": int(game), "won": bool(won[j]),
                         "first_cell": int(first_cell[j]), "moves": int(moves[j]), "calls": int(calls[j])}
                        for j, game in enumerate(games)])  # fmt: skip
        bar.update(len(games))

    with bar:
        played = play_model_batched(model, suite, total, args.batch, args.device, mark_above or None, args.workers,
                                    args.passes, args.reveal_below, args.symmetries, args.sure, left,
                                    finished, args.opening)  # fmt: skip
    result = _merged(total, logged, left, played)
    summary = {"model": model, "suite": suite.name, "start": start, "mark_above": mark_above or None,
               **({"passes": args.passes} if args.passes is not None else {}),
               **({"reveal_below": args.reveal_below} if args.reveal_below is not None else {}),
               **({"symmetries": args.symmetries, "sure": args.sure} if args.symmetries > 1 else {}),
               **({"opening": True} if args.opening and start == "agent" else {}),
               **result.summary(),
               **({"games_read_back": len(logged)} if logged else {})}  # fmt: skip
    record = {**summary, "suite": suite.to_dict(), "won": result.won.astype(int).tolist(),
              "first_cell": result.first_cell.tolist()}  # fmt: skip
    return summary, record


def _merged(total: int, logged: dict[int, dict[str, Any]], left: list[int], played: BatchedResult) -> BatchedResult:
    """Every game's columns, in order: those read back from the log and those just played (its seconds)."""
    won, first_cell = np.zeros(total, bool), np.zeros(total, np.int64)
    moves, calls = np.zeros(total, np.int64), np.zeros(total, np.int64)
    for game, entry in logged.items():
        won[game], first_cell[game], moves[game], calls[game] = (entry["won"], entry["first_cell"], entry["moves"],
                                                                 entry["calls"])  # fmt: skip
    where = np.asarray(left, dtype=np.int64)
    won[where], first_cell[where] = played.won, played.first_cell
    moves[where], calls[where] = played.moves, played.calls
    return BatchedResult(won, first_cell, moves, calls, played.seconds)

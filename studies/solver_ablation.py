"""What each idea of the solver's guess adds: every setting on the very same seeded games.

Each row adds one idea to the row above (see agents/solver/guess.py), up to the last, ``solver``: the
default ``strong`` setting. Games are those of the suite ``minesweeper eval --preset P --first-click R
--games N --seed S`` plays, so the last row equals that command's ``solver`` result. The paired column
compares each row with the one above on the same games (McNemar's exact test on the games only one of the
two won). Milliseconds per game are compute time inside one worker process. The games run on local worker
processes or, with ``--backend ray [--address HOST:PORT]``, as Ray tasks (the same wins, game for game), with
a progress bar of each setting's games on a terminal.

Usage::

    python studies/solver_ablation.py --preset expert --first-click opening --games 10000 --seed 2026
    python studies/solver_ablation.py --preset expert --games 100000 --backend ray --address 10.0.0.5:6379
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.solver import SolverAgent
from backends import Backend, check_backend, open_backend
from eval.stats import mcnemar, wilson_interval
from eval.suites import Suite, adhoc_suite
from mine_env.engine.board import layout_key
from mine_env.engine.constants import PRESETS
from mine_env.engine.spec import BoardSpec
from minesweeper_cli.options import add_backend_options

_STRONG_BARE = {"strength": "strong", "margin": 0.0, "endgame_layouts": 0, "pairs_first": False}
SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("fast: the safest cell", {"strength": "fast"}),
    ("standard: + certain progress among the safest", {"strength": "standard"}),
    ("strong: + blended scoring instead of progress", _STRONG_BARE),
    ("+ candidates within 10% of the best safety", {**_STRONG_BARE, "margin": 0.1}),
    ("+ exact endgame search", {"strength": "strong", "pairs_first": False}),
    ("+ forced 50/50s guessed first (strong, the default)", {"strength": "strong"}),
]
CHUNKS_PER_WORKER = 8


def warm_up() -> None:
    """Load the compiled kernels in a worker before any timed game (a one-off cost of about a second)."""
    for _, settings in SETTINGS:
        SolverAgent(**settings).play_compiled(9, 9, 10, "safe", np.array([layout_key(0)]), [0])


def play_chunk(setting: tuple[Suite, dict[str, Any]], games: range) -> tuple[np.ndarray, float]:
    """Wins of one setting on some of the suite's games, and the seconds they took (a backend's job)."""
    suite, settings = setting
    seeds = [suite.game_seeds(game) for game in games]
    keys = np.array([layout_key(seed.env) for seed in seeds], dtype=np.int64)
    solver = SolverAgent(**settings)
    start = time.perf_counter()
    won = solver.play_compiled(
        suite.rows, suite.cols, suite.mines, suite.first_click, keys, [seed.agent for seed in seeds]
    )[0]
    return won, time.perf_counter() - start


def play_setting(backend: Backend, suite: Suite, settings: dict[str, Any]) -> tuple:
    """Wins per game (in game order) and compute milliseconds per game of one setting."""
    bounds = np.linspace(0, suite.games, backend.workers * CHUNKS_PER_WORKER + 1).astype(int)
    chunks = [range(lo, hi) for lo, hi in itertools.pairwise(bounds) if hi > lo]
    by_chunk = {}
    with tqdm(total=suite.games, unit="game", leave=False, disable=None) as bar:  # shown on a terminal only
        for index, result in backend.run(play_chunk, (suite, settings), chunks):
            by_chunk[index] = result
            bar.update(len(chunks[index]))
    results = [by_chunk[index] for index in range(len(chunks))]
    won = np.concatenate([wins for wins, _ in results])
    return won, 1000 * sum(seconds for _, seconds in results) / suite.games


def add_suite_arguments(parser: argparse.ArgumentParser, first_click: str) -> None:
    """The options the solver studies share: the suite (board, rule, games, seed), workers, the backend, a JSON
    file."""
    parser.add_argument("--preset", choices=sorted(PRESETS), default="expert")
    parser.add_argument("--first-click", choices=("safe", "opening"), default=first_click)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    add_backend_options(parser)
    parser.add_argument("--json", type=Path, help="also write the rows here")


def suite_from(args: argparse.Namespace) -> Suite:
    """The suite the options of :func:`add_suite_arguments` name."""
    rows, cols, mines = PRESETS[args.preset]
    return adhoc_suite(BoardSpec(rows, cols, mines, args.first_click), args.games, args.seed)


def study_backend(args: argparse.Namespace) -> Backend:
    """The backend of the options (local processes or Ray tasks), the compiled kernels loaded in each worker
    before its first timed game."""
    check_backend(args.backend, args.workers, args.address)
    if args.backend == "ray" and __name__ != "__main__":
        # A script's module is not on a cluster's workers: its functions travel by value (__main__'s always do).
        import ray.cloudpickle

        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return open_backend(args.backend, args.workers, args.address, warm_up=warm_up)


def result_row(label: str, won: np.ndarray, ms: float, versus: np.ndarray | None) -> tuple[str, dict[str, Any]]:
    """A Markdown table row (wins, win rate, Wilson interval, McNemar against ``versus``, ms/game) and its data."""
    wins = int(won.sum())
    lo, hi = wilson_interval(wins, won.size)
    paired = ""
    if versus is not None:
        test = mcnemar(int((versus & ~won).sum()), int((won & ~versus).sum()))
        paired = f"{test.only_a} / {test.only_b}, p = {test.p_value_exact:.3g}"
    line = f"| {label} | {wins:,} | {won.mean():.2%} | {lo:.2%} - {hi:.2%} | {paired} | {ms:.2f} |"
    return line, {"wins": wins, "games": int(won.size), "win_rate": float(won.mean()), "ci95": [lo, hi],
                  "ms_per_game": ms}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_suite_arguments(parser, first_click="opening")
    args = parser.parse_args()
    suite = suite_from(args)
    print(f"{suite.name}: {args.games:,} games per setting, the same games for every row\n")
    print("| setting | wins | win rate | Wilson 95% | vs the row above (only above / only this, p) | ms/game |")
    print("|---|---:|---:|---|---|---:|")
    report, previous = [], None
    with study_backend(args) as backend:
        for label, settings in SETTINGS:
            won, ms = play_setting(backend, suite, settings)
            line, row = result_row(label, won, ms, previous)
            print(line, flush=True)
            report.append({"setting": label, "options": settings, **row})
            previous = won
    if args.json:
        args.json.write_text(json.dumps({"suite": suite.to_dict(), "rows": report}, indent=2) + "\n")


if __name__ == "__main__":
    main()

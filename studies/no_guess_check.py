"""Checks of the no-guess boards on the named suites: the solver wins every game without a guess, and the
layouts stay as varied as ordinary ones.

For each preset, the first ``--games`` games of ``{preset}-no-guess-10k`` (the layout keys of
``{preset}-opening-10k``), first clicked where the solver clicks (:func:`agents.solver.first_click_cell`):

* **solver**: the default solver plays every game in compiled code (:meth:`SolverAgent.play_compiled`);
  every game must be won;
* **guesses**: each game replayed from the first click with the solver's certain moves only
  (:func:`mine_env.analysis.deduction.certain_moves`, as :func:`agents.solver.guess.decide` takes them before
  any guess): a position before the end where it finds no safe cell is a guess the solver would have to
  make; there must be none;
* **oracle**: the first ``--oracle-games`` games played through the env by ``minesweeper eval``'s runner
  with the exact oracle judging every move (:mod:`eval.judge`): wins, and guesses after the first click;
* **variety**: the mine density of each region of a 3 x 3 split of the board, and the distribution of the
  first click's opening (cells it reveals), against the ordinary layouts of the same keys and first cell, and
  against *rejection sampling*: the ordinary layouts that already need no guess (the generator keeps them as
  they are), a uniform sample of the no-guess layouts, which is what an unbiased generator would match
  (``opening_tv_*``: total variation distances between the opening-size distributions; the noise floor is
  the distance between all ordinary openings and a random draw of as many of them as the rejection sample
  holds, what sampling alone gives).

With ``--bound-study N`` it also makes N boards per preset at the preset's mine count and at the densest
supported count (:func:`mine_env.analysis.no_guess.max_no_guess_mines`), each from a random key and a random
first cell anywhere on the board, and reports how many the generator failed to make within its work bound
and the repairs they took.

Usage::

    nice -n 10 python studies/no_guess_check.py --games 10000 --oracle-games 300 --json no_guess_check.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import numpy as np
from numba import njit

from agents.solver import SolverAgent, first_click_cell
from eval.runner import evaluate
from eval.suites import get_suite
from mine_env.analysis.deduction import certain_moves
from mine_env.analysis.no_guess import (
    ATTEMPTS,
    REPAIRS_PER_ATTEMPT,
    make_layouts,
    max_no_guess_mines,
    no_guess_layouts,
)
from mine_env.engine.board import Board
from mine_env.engine.constants import HIDDEN, PRESETS
from mine_env.engine.geometry import RULE_OPENING
from mine_env.engine.rng import KEY_LIMIT
from mine_env.engine.rules import PLAYING, game_status, new_game_arrays, open_game_on, reveal_cell
from mine_env.engine.spec import BoardSpec

REGIONS = 3
"""The board is split into REGIONS x REGIONS regions for the density comparison."""


@njit(cache=True)
def guesses_needed(rows, cols, n_mines, first_cell, keys, layouts):
    """Per game, the positions (0 or 1: play stops there) where the solver's certain moves find nothing before
    the board is cleared."""
    guesses = np.zeros(keys.shape[0], np.int64)
    for g in range(keys.shape[0]):
        game = new_game_arrays(rows * cols)
        open_game_on(game, rows, cols, n_mines, RULE_OPENING, keys[g], first_cell, layouts[g])
        while game_status(game.meta) == PLAYING:
            cells, _, _, _ = certain_moves(game.obs, rows, cols, n_mines)
            if cells.shape[0] == 0:
                guesses[g] = 1
                break
            for cell in cells:
                if game.obs[cell] == HIDDEN:
                    reveal_cell(game, rows, cols, cell)
    return guesses


def ordinary_layouts(rows: int, cols: int, mines: int, keys: np.ndarray, first_cell: int) -> np.ndarray:
    """The ordinary ``opening`` layouts of the keys for the first cell, uint8 (games, cells)."""
    out = np.empty((keys.size, rows * cols), np.uint8)
    for g, key in enumerate(keys):
        board = Board(BoardSpec(rows, cols, mines, "opening"), int(key))
        board.step(first_cell)
        out[g] = board.layout.ravel()
    return out


def opening_sizes(rows: int, cols: int, layouts: np.ndarray, first_cell: int) -> np.ndarray:
    """Cells the first click reveals on each layout."""
    sizes = np.empty(len(layouts), np.int64)
    for g, layout in enumerate(layouts):
        sizes[g] = Board.from_layout(layout.reshape(rows, cols).astype(bool), "opening").step(first_cell)
    return sizes


def region_density(rows: int, cols: int, layouts: np.ndarray) -> np.ndarray:
    """Mean mines per cell in each region of a REGIONS x REGIONS split, (REGIONS, REGIONS)."""
    mean = layouts.reshape(-1, rows, cols).mean(axis=0)
    row_parts = np.array_split(np.arange(rows), REGIONS)
    col_parts = np.array_split(np.arange(cols), REGIONS)
    return np.array([[mean[np.ix_(r, c)].mean() for c in col_parts] for r in row_parts])


def opening_summary(sizes: np.ndarray) -> dict[str, float]:
    """Mean and quantiles of the opening sizes."""
    return {
        "mean": float(sizes.mean()),
        **{f"p{q}": float(np.percentile(sizes, q)) for q in (10, 25, 50, 75, 90, 99)},
    }


def total_variation(a: np.ndarray, b: np.ndarray) -> float:
    """Total variation distance between the empirical distributions of two integer samples."""
    top = int(max(a.max(), b.max())) + 1
    return float(0.5 * np.abs(np.bincount(a, minlength=top) / a.size - np.bincount(b, minlength=top) / b.size).sum())


def check_preset(preset: str, games: int, oracle_games: int) -> dict:
    """Every check on the first ``games`` games of the preset's no-guess suite."""
    rows, cols, mines = PRESETS[preset]
    suite = get_suite(f"{preset}-no-guess-10k")
    suite = dataclasses.replace(suite, games=games, name=f"{preset}-no-guess-first-{games}")
    r, c = first_click_cell(rows, cols, "opening")
    first_cell = r * cols + c
    keys = np.array([suite.layout_key(g) for g in range(games)], np.int64)
    start = time.perf_counter()
    layouts = no_guess_layouts(rows, cols, mines, keys, np.full(games, first_cell))
    generation_s = time.perf_counter() - start
    seeds = [suite.game_seeds(g).agent for g in range(games)]
    won, _, _ = SolverAgent().play_compiled(rows, cols, mines, "opening", keys, seeds, boards="no_guess")
    guesses = guesses_needed(rows, cols, mines, first_cell, keys, layouts)
    plain = ordinary_layouts(rows, cols, mines, keys, first_cell)
    kept = (layouts == plain).all(axis=1)  # ordinary boards that already need no guess: kept as they are
    rng = np.random.default_rng(0)
    ours, theirs = opening_sizes(rows, cols, layouts, first_cell), opening_sizes(rows, cols, plain, first_cell)
    result = {
        "preset": preset, "games": games, "first_cell": [r, c],
        "generation_ms_per_board": 1000 * generation_s / games,
        "solver_wins": int(won.sum()), "games_needing_a_guess": int(guesses.sum()),
        "ordinary_boards_already_no_guess": int(kept.sum()),
        "region_density_no_guess": region_density(rows, cols, layouts).round(4).tolist(),
        "region_density_ordinary": region_density(rows, cols, plain).round(4).tolist(),
        "region_density_rejection": region_density(rows, cols, plain[kept]).round(4).tolist(),
        "opening_no_guess": opening_summary(ours), "opening_ordinary": opening_summary(theirs),
        "opening_rejection": opening_summary(theirs[kept]), "opening_repaired": opening_summary(ours[~kept]),
        "opening_tv_no_guess_vs_ordinary": total_variation(ours, theirs),
        "opening_tv_no_guess_vs_rejection": total_variation(ours, theirs[kept]),
        "opening_tv_repaired_vs_rejection": total_variation(ours[~kept], theirs[kept]),
        "opening_tv_noise_floor": total_variation(theirs, rng.choice(theirs, int(kept.sum()), replace=False)),
    }  # fmt: skip
    if oracle_games:
        oracle_suite = dataclasses.replace(suite, games=oracle_games, name=f"{preset}-no-guess-first-{oracle_games}")
        row = evaluate(["solver"], oracle_suite, workers=1, oracle=True, progress=False).to_dict()["results"][0]
        result["oracle"] = {key: row[key] for key in ("games", "wins", "guesses_per_game") if key in row}
    return result


SHAPES = ((3, 10, 4), (3, 30, 4), (4, 9, 4), (5, 5, 4), (8, 8, 4), (10, 40, 16), (30, 30, 40), (50, 50, 100))
"""Other boards of the bound study, at their densest supported count: (rows, cols, a divisor of the number of
boards per preset, for the large ones)."""


def bound_study(boards: int, seed: int) -> list[dict]:
    """Failures and repairs of the generator on random keys and first cells: per preset, at the preset's mines
    and at the densest supported count; then the boards of :data:`SHAPES` at their densest count."""
    rng = np.random.default_rng(seed)
    rows_out = []
    cases = [(preset, rows, cols, mines, boards) for preset, (rows, cols, preset_mines) in PRESETS.items()
             for mines in (preset_mines, max_no_guess_mines(rows, cols))]  # fmt: skip
    cases += [(f"{rows}x{cols}", rows, cols, max_no_guess_mines(rows, cols), max(boards // share, 1))
              for rows, cols, share in SHAPES]  # fmt: skip
    for board, rows, cols, mines, count in cases:
        keys = rng.integers(0, KEY_LIMIT, count)
        cells = rng.integers(0, rows * cols, count)
        out = np.empty((count, rows * cols), np.uint8)
        start = time.process_time()
        found, repairs = make_layouts(rows, cols, mines, keys, cells, REPAIRS_PER_ATTEMPT, ATTEMPTS, out)
        row = {"board": board, "mines": mines, "boards": count, "failed": int((~found).sum()),
               "ms_per_board": round(1000 * (time.process_time() - start) / count, 3),
               "repairs_mean": round(float(repairs.mean()), 2), "repairs_p99": float(np.percentile(repairs, 99)),
               "repairs_max": int(repairs.max())}  # fmt: skip
        rows_out.append(row)
        print(json.dumps(row), flush=True)
    return rows_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--oracle-games", type=int, default=300)
    parser.add_argument("--preset", action="append", choices=list(PRESETS), help="default: all three")
    parser.add_argument("--json", help="write the results here (rewritten after each preset)")
    parser.add_argument("--bound-study", type=int, default=0, metavar="N", help="see the module docstring")
    parser.add_argument("--bounds-only", action="store_true", help="with --bound-study: skip the games' checks")
    args = parser.parse_args()
    if args.bound_study:
        study = bound_study(args.bound_study, 2026)
        if args.json:
            with open(args.json.replace(".json", "_bounds.json"), "w") as file:
                json.dump(study, file, indent=1)
        if args.bounds_only:
            return
    results = []
    for preset in args.preset or list(PRESETS):
        start = time.perf_counter()
        results.append(check_preset(preset, args.games, args.oracle_games))
        results[-1]["seconds"] = round(time.perf_counter() - start, 1)
        print(json.dumps(results[-1]), flush=True)
        if args.json:
            with open(args.json, "w") as file:
                json.dump(results, file, indent=1)


if __name__ == "__main__":
    main()

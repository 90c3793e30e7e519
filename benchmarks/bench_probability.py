"""Speed and agreement of the exact mine-probability engine against ms-toollib's ``cal_probability_onboard``.

Positions come from seeded games played here (no dependency on the env): mines placed with a seeded
``np.random.Generator`` away from the first click (the "opening" rule), a zero region opened, then every
certain-safe cell revealed and, when there is none, the safest cell (our own engine decides), snapshotting
the grid at every guess and every few safe moves. Each snapshot is timed for both engines (best of a few
repeats) and the probabilities compared.

Usage::

    python benchmarks/bench_probability.py --preset expert --games 30 --seed 0
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from functools import partial

import numpy as np

from mine_env.analysis.probability import analyse, mine_probabilities
from mine_env.engine.constants import HIDDEN, PRESETS
from mine_env.engine.geometry import block
from mine_env.engine.rules import neighbour_counts

_TOOLLIB_HIDDEN = 10
"""ms-toollib's code for a hidden cell (11 is its flag; numbers are 0..8 in both conventions)."""


def _reveal(grid: np.ndarray, counts: np.ndarray, cell: tuple[int, int]) -> None:
    """Reveal ``cell`` (known safe) and flood-fill through zeros."""
    rows, cols = grid.shape
    stack = [cell]
    while stack:
        r, c = stack.pop()
        if grid[r, c] != HIDDEN:
            continue
        grid[r, c] = counts[r, c]
        if counts[r, c] == 0:
            r0, r1, c0, c1 = block(r, c, rows, cols)
            stack.extend((rr, cc) for rr in range(r0, r1) for cc in range(c0, c1) if grid[rr, cc] == HIDDEN)


def _new_layout(
    rng: np.random.Generator, rows: int, cols: int, mines: int, first: tuple[int, int]
) -> np.ndarray:
    """Uniform layout with no mine on or around the first click."""
    r0, r1, c0, c1 = block(first[0], first[1], rows, cols)
    excluded = np.zeros((rows, cols), bool)
    excluded[r0:r1, c0:c1] = True
    allowed = np.flatnonzero(~excluded.ravel())
    layout = np.zeros(rows * cols, bool)
    layout[rng.choice(allowed, size=mines, replace=False)] = True
    return layout.reshape(rows, cols)


def play_positions(
    rng: np.random.Generator, rows: int, cols: int, mines: int, every: int = 4
) -> Iterator[np.ndarray]:
    """Play one game with the exact engine and yield snapshots of the observation along the way."""
    first = (min(3, rows - 1), min(3, cols - 1))
    layout = _new_layout(rng, rows, cols, mines, first)
    counts = neighbour_counts(layout)
    grid = np.full((rows, cols), HIDDEN, np.int8)
    _reveal(grid, counts, first)
    moves = 0
    while (grid == HIDDEN).sum() > mines:
        analysis = analyse(grid, mines)
        safe = np.argwhere(analysis.certain_safe)
        if len(safe) == 0:
            yield grid.copy()
            hidden_probabilities = np.where(grid == HIDDEN, analysis.probabilities, np.inf)
            guess = np.unravel_index(np.argmin(hidden_probabilities), grid.shape)
            if layout[guess]:
                return
            _reveal(grid, counts, guess)
            continue
        moves += 1
        if moves % every == 0:
            yield grid.copy()
        for r, c in safe:
            _reveal(grid, counts, (int(r), int(c)))


def _toollib_board(grid: np.ndarray) -> list[list[int]]:
    """Our observation in ms-toollib's convention (hidden = 10)."""
    return np.where(grid == HIDDEN, _TOOLLIB_HIDDEN, grid).astype(int).tolist()


def _best_time(call: Callable[[], object], repeats: int) -> float:
    """Fastest of ``repeats`` calls, in milliseconds."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main() -> None:
    """Generate positions, time both engines, print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="expert", choices=sorted(PRESETS))
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import ms_toollib

    rows, cols, mines = PRESETS[args.preset]
    rng = np.random.default_rng(args.seed)
    positions = [grid for _ in range(args.games) for grid in play_positions(rng, rows, cols, mines)]
    ours, theirs, differences = [], [], []
    for grid in positions:
        board = _toollib_board(grid)
        ours.append(_best_time(partial(mine_probabilities, grid, mines), args.repeats))
        theirs.append(_best_time(partial(ms_toollib.cal_probability_onboard, board, mines), args.repeats))
        reference = np.array(ms_toollib.cal_probability_onboard(board, mines)[0])
        hidden = grid == HIDDEN
        differences.append(np.abs(mine_probabilities(grid, mines) - reference)[hidden].max())
    ours_ms, theirs_ms = np.array(ours), np.array(theirs)
    board_name = f"{args.preset} {rows}x{cols}/{mines}"
    print(f"{board_name}: {len(positions)} positions from {args.games} games, seed {args.seed}")
    for name, times in (("ours", ours_ms), ("ms-toollib", theirs_ms)):
        print(
            f"  {name:>10}: mean {times.mean():.3f} ms, median {np.median(times):.3f} ms, "
            f"p95 {np.percentile(times, 95):.3f} ms, max {times.max():.3f} ms per position"
        )
    print(f"  ours faster on {np.mean(ours_ms <= theirs_ms):.0%} of positions")
    print(f"  max |difference| {max(differences):.3g}")


if __name__ == "__main__":
    main()

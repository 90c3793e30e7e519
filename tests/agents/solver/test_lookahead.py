"""The look-ahead against the plain-Python analysis, and forced 50/50s against a listing of every layout."""

from __future__ import annotations

import numpy as np
import pytest

from agents.probability import analyse
from agents.solver.endgame import enumerate_layouts
from agents.solver.outlook import forced_fifty_fifty, look_ahead
from agents.solver.reference import progress_chance
from mine_env.analysis.counting import count_position
from mine_env.engine.constants import HIDDEN, MINE
from support import grid_from_rows, random_position


def test_the_progress_chance_equals_the_references() -> None:
    rng = np.random.default_rng(9)
    checked = 0
    for _ in range(40):
        _, grid = random_position(rng, 6, 7, 9)
        analysis = analyse(grid, 9)
        probabilities = analysis.probabilities.ravel()
        for cell in np.flatnonzero(grid.ravel() == HIDDEN)[:4]:
            outlook = look_ahead(grid.ravel(), 6, 7, 9, cell, probabilities[cell])
            assert outlook.progress == pytest.approx(progress_chance(analysis, divmod(int(cell), 7)), abs=1e-12)
            assert outlook.blended <= 1.0 - probabilities[cell] + 1e-12
            assert (outlook.values == 0) == (probabilities[cell] == 1.0)
            checked += 1
    assert checked > 100


def forced_pairs_by_enumeration(grid: np.ndarray, mines: int) -> set[frozenset[int]] | None:
    """Neighbour pairs with one mine in every layout and a mine in every layout on each cell next to only
    one of them (None: too many layouts to list)."""
    rows, cols = grid.shape
    cells, layouts, complete = enumerate_layouts(grid.ravel(), rows, cols, mines, limit=20_000)
    if not complete:
        return None
    column = {int(cell): layouts[:, j] for j, cell in enumerate(cells)}
    always_mine = {cell for cell, mine in column.items() if mine.all()} | set(np.flatnonzero(grid.ravel() == MINE))
    pairs = set()
    for a in column:
        for b in (a + 1, a + cols):
            if b not in column or (b == a + 1 and b % cols == 0) or not (column[a] + column[b] == 1).all():
                continue
            (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
            one_sided = {
                r * cols + c
                for r in range(max(min(ra, rb) - 1, 0), min(max(ra, rb) + 2, rows))
                for c in range(max(min(ca, cb) - 1, 0), min(max(ca, cb) + 2, cols))
                if (max(abs(r - ra), abs(c - ca)) <= 1) != (max(abs(r - rb), abs(c - cb)) <= 1)
            }
            if one_sided <= always_mine:
                pairs.add(frozenset((a, b)))
    return pairs


def test_a_found_forced_fifty_fifty_is_one_by_enumeration() -> None:
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(600):
        _, grid = random_position(rng, 5, 6, 9)
        probability = count_position(grid.ravel(), 5, 6, 9)[1]
        cell = forced_fifty_fifty(grid.ravel(), 5, 6, probability)
        pairs = forced_pairs_by_enumeration(grid, 9)
        if cell < 0 or pairs is None:
            continue
        assert any(cell in pair for pair in pairs), grid
        found += 1
    assert found >= 10  # 17 of the 33 positions with a forced pair


def test_a_pair_that_a_later_reveal_can_settle_is_not_forced() -> None:
    # As in the guess tests' forced pair, bar the 3, now a 2: (1,2) need not be a mine, and a number there
    # would tell (1,0) and (1,1) apart.
    grid = grid_from_rows("1 2 X . . . . .", ". . . . . . . .")
    probability = count_position(grid.ravel(), 2, 8, 4)[1]
    assert forced_fifty_fifty(grid.ravel(), 2, 8, probability) == -1

"""Weighing the components against the unconstrained cells: closed forms, huge interiors, exact certainty."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.probability import analyse, mine_probabilities
from mine_env.analysis.combine import certain_or_inward
from mine_env.engine.constants import HIDDEN
from mine_env.engine.rules import neighbour_counts
from support import grid_from_rows


@pytest.mark.parametrize(("rows", "cols", "mines"), [(9, 9, 10), (16, 30, 99), (1, 1, 0), (3, 3, 9)])
def test_nothing_revealed_gives_the_density_everywhere(rows: int, cols: int, mines: int) -> None:
    analysis = analyse(np.full((rows, cols), HIDDEN, np.int8), mines)
    np.testing.assert_allclose(analysis.probabilities, mines / (rows * cols), rtol=1e-14)
    assert analysis.certain_safe.all() == (mines == 0)
    assert analysis.certain_mines.all() == (mines == rows * cols)
    assert analysis.log_layouts == pytest.approx(math.log(math.comb(rows * cols, mines)), rel=1e-12, abs=1e-12)


def test_interior_probability_when_the_frontier_total_is_fixed() -> None:
    # The 1 pins exactly one mine on its two neighbours; the 5 cells beyond share the rest.
    probabilities = mine_probabilities(grid_from_rows(". 1 . . . . . ."), 3)[0]
    np.testing.assert_allclose(probabilities[[0, 2]], 0.5, rtol=1e-14)
    np.testing.assert_allclose(probabilities[3:], 2 / 5, rtol=1e-14)


def test_interior_probability_when_the_frontier_total_varies() -> None:
    # x 1 y 1 z | u v w: either y alone (1 mine, C(3, 1) ways for the rest) or x and z (C(3, 0) ways).
    probabilities = mine_probabilities(grid_from_rows(". 1 . 1 . . . ."), 2)[0]
    np.testing.assert_allclose(probabilities, [1 / 4, 0, 3 / 4, 0, 1 / 4, 1 / 4, 1 / 4, 1 / 4], rtol=1e-14)


def test_near_certain_cells_are_not_rounded_to_certainty() -> None:
    # x 1 y 1 z then a long unconstrained row, 2 mines: x and z are mines only in 1 layout in U + 1.
    grid = np.full((1, 4000), HIDDEN, np.int8)
    grid[0, [1, 3]] = 1
    analysis = analyse(grid, 2)
    interior = 4000 - 5
    assert analysis.probabilities[0, 0] == pytest.approx(1 / (interior + 1), rel=1e-12)
    assert analysis.probabilities[0, 2] == pytest.approx(interior / (interior + 1), rel=1e-12)
    assert not analysis.certain_safe.any() and not analysis.certain_mines.any()


def test_uncertain_extremes_are_moved_inward() -> None:
    assert 0.0 < certain_or_inward(0.0, safe=False, full=False) < 1e-300
    assert 1.0 - 1e-15 < certain_or_inward(1.0, safe=False, full=False) < 1.0
    assert certain_or_inward(0.3, safe=True, full=False) == 0.0
    assert certain_or_inward(0.3, safe=False, full=True) == 1.0


def test_huge_unconstrained_interior() -> None:
    rng = np.random.default_rng(0)
    layout = rng.random((100, 100)) < 0.2
    layout[45:55, 45:55] = False
    grid = np.full(layout.shape, HIDDEN, np.int8)
    grid[47:53, 47:53] = neighbour_counts(layout)[47:53, 47:53]
    mines = int(layout.sum())
    analysis = analyse(grid, mines)
    assert np.isfinite(analysis.probabilities).all()
    assert ((analysis.probabilities >= 0) & (analysis.probabilities <= 1)).all()
    assert analysis.probabilities.sum() == pytest.approx(mines, rel=1e-12)
    assert np.isfinite(analysis.log_layouts)

"""Counting components: weights by mine total, unsatisfiable components, long components and rescaling."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from agents.probability import analyse
from mine_env.analysis.component import ComponentCounts, count_components
from mine_env.analysis.counting_base import STATUS_BAD_COMPONENT, STATUS_OK
from mine_env.analysis.frontier import find_frontier
from mine_env.engine.constants import HIDDEN
from mine_env.engine.rules import neighbour_counts
from support import chain_board, grid_from_rows


def counts_of(grid: np.ndarray) -> ComponentCounts:
    """The component counts of a position written as text (flags untrusted)."""
    return count_components(find_frontier(grid.ravel(), grid.shape[0], grid.shape[1], False))


def test_weights_and_box_sums_by_mine_total() -> None:
    # x 1 y 1 z: either y alone is a mine (1 mine) or x and z are (2 mines), one layout each.
    counts = counts_of(grid_from_rows(". 1 . 1 ."))
    assert counts.status == STATUS_OK and counts.bad_cell == -1
    assert counts.lowest.tolist() == [1] and counts.span.tolist() == [2]
    assert counts.weight_start.tolist() == [0, 2]
    assert counts.weights.tolist() == [1.0, 1.0]
    assert counts.log_scale.tolist() == [0.0]
    mines_by_box = [counts.mine_sums[row : row + 2].tolist() for row in counts.box_row_start]
    safe_by_box = [counts.safe_sums[row : row + 2].tolist() for row in counts.box_row_start]
    assert mines_by_box == [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]  # boxes x, y, z
    assert safe_by_box == [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]


def test_a_component_no_layout_fits() -> None:
    # Each number alone can be met, together they cannot: the 2 needs both shared cells, the 0 neither.
    counts = counts_of(grid_from_rows("1 . . 1", ". 2 0 .", "1 . . 1"))
    assert counts.status == STATUS_BAD_COMPONENT
    assert counts.bad_cell == 0  # the component's first number


def chain_probabilities(targets: list[int], mines: int) -> tuple[list[Fraction], list[Fraction], int]:
    """Exact mine chance of each own box and shared column of :func:`chain_board`, and the layout count.

    Forward-backward over the shared columns' mine counts with exact integer polynomials in the total.
    """
    last = len(targets) - 1

    def moves(k: int, left: int) -> list[tuple[int, int, int]]:
        """(own mines, right shared mines, ways) for number k given its left shared column."""
        rights = range(4) if k < last else [0]
        owns = [(targets[k] - left - right, right) for right in rights]
        return [(own, right, math.comb(2, own) * math.comb(3, right)) for own, right in owns if 0 <= own <= 2]

    def add(table: dict, state: int, total: int, ways: int) -> None:
        table.setdefault(state, {}).setdefault(total, 0)
        table[state][total] += ways

    forward = [{0: {0: 1}}]  # forward[k]: shared column before number k -> total so far -> ways
    for k in range(len(targets)):
        table: dict = {}
        for left, by_total in forward[k].items():
            for own, right, ways in moves(k, left):
                for total, count in by_total.items():
                    add(table, right, total + own + right, count * ways)
        forward.append(table)
    backward = [{0: {0: 1}}]  # built from the end: shared column before number k -> total from k on -> ways
    for k in range(last, -1, -1):
        table = {}
        for left in range(4) if k else [0]:
            for own, right, ways in moves(k, left):
                for total, count in backward[0].get(right, {}).items():
                    add(table, left, total + own + right, count * ways)
        backward.insert(0, table)

    layouts = forward[-1].get(0, {}).get(mines, 0)
    own_mines, shared_mines = [0] * len(targets), [0] * last
    for k in range(len(targets)):
        for left, by_total in forward[k].items():
            for own, right, ways in moves(k, left):
                for total, count in by_total.items():
                    rest = mines - total - own - right
                    completions = backward[k + 1].get(right, {}).get(rest, 0)
                    own_mines[k] += count * ways * completions * own
                    if k < last:
                        shared_mines[k] += count * ways * completions * right
    own_p = [Fraction(m, 2 * layouts) for m in own_mines]
    return own_p, [Fraction(m, 3 * layouts) for m in shared_mines], layouts


def test_long_component_matches_an_exact_transfer_matrix() -> None:
    # Long enough (well over 2**100 layouts) that the engine rescales its weights inside the component.
    rng = np.random.default_rng(3)
    grid = chain_board([0] * 60)
    layout = (rng.random(grid.shape) < 0.4) & (grid == HIDDEN)
    targets = [int(t) for t in neighbour_counts(layout)[1, ::2]]
    grid = chain_board(targets)
    mines = int(layout.sum())
    own, shared, layouts = chain_probabilities(targets, mines)
    assert layouts > 2**110
    analysis = analyse(grid, mines)
    np.testing.assert_allclose(analysis.probabilities[0, ::2], [float(p) for p in own], rtol=1e-12)
    np.testing.assert_allclose(analysis.probabilities[1, 1::2], [float(p) for p in shared], rtol=1e-12)
    assert analysis.log_layouts == pytest.approx(math.log(layouts), rel=1e-12)


def test_very_long_component_stays_finite() -> None:
    rng = np.random.default_rng(1)
    targets = [int(t) for t in rng.integers(3, 6, size=400)]
    grid = chain_board(targets)
    hidden = int((grid == HIDDEN).sum())
    analysis = analyse(grid, hidden // 2)
    assert np.isfinite(analysis.probabilities).all()
    assert analysis.probabilities.sum() == pytest.approx(hidden // 2, rel=1e-9)

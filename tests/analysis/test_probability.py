"""The exact mine-probability engine against brute force, closed forms and its error contract."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.analysis.combine import certain_or_inward
from agents.probability import (
    VALUE_MINE,
    InconsistentBoard,
    analyse,
    mine_probabilities,
    safe_cells_and_probabilities,
    value_distribution,
)
from mine_env.engine.constants import FLAG, HIDDEN, MINE
from mine_env.engine.rules import neighbour_counts

MAX_BRUTE_HIDDEN = 13


# ----------------------------------------------------------------------------------------------------------
# Reference: enumerate every layout.
# ----------------------------------------------------------------------------------------------------------


def neighbours(shape: tuple[int, int], r: int, c: int) -> list[tuple[int, int]]:
    """The up to 8 cells around (r, c)."""
    rows, cols = shape
    return [
        (rr, cc)
        for rr in range(max(r - 1, 0), min(r + 2, rows))
        for cc in range(max(c - 1, 0), min(c + 2, cols))
        if (rr, cc) != (r, c)
    ]


def brute_force_layouts(grid: np.ndarray, mines: int, trust_flags: bool) -> list[frozenset[tuple[int, int]]]:
    """Every set of mine cells with ``mines`` mines that agrees with the observation."""
    unknown = [tuple(cell) for cell in np.argwhere((grid == HIDDEN) | ((grid == FLAG) & (not trust_flags)))]
    known = {tuple(cell) for cell in np.argwhere((grid == MINE) | ((grid == FLAG) & trust_flags))}
    bit = {cell: 1 << i for i, cell in enumerate(unknown)}
    checks = []  # (bitmask of a number's unknown neighbours, mines it still needs)
    for cell in np.argwhere(grid >= 0):
        around = neighbours(grid.shape, *cell)
        mask = sum(bit.get(n, 0) for n in around)
        checks.append((mask, int(grid[tuple(cell)]) - sum(n in known for n in around)))
    layouts = []
    for chosen in (
        itertools.combinations(range(len(unknown)), mines - len(known)) if mines >= len(known) else []
    ):
        bits = sum(1 << i for i in chosen)
        if all((bits & mask).bit_count() == need for mask, need in checks):
            layouts.append(frozenset(known | {unknown[i] for i in chosen}))
    return layouts


def brute_force_probabilities(grid: np.ndarray, mines: int, trust_flags: bool) -> np.ndarray | None:
    """Mine frequency per cell over all fitting layouts; None when none fits."""
    layouts = brute_force_layouts(grid, mines, trust_flags)
    if not layouts:
        return None
    counts = np.zeros(grid.shape)
    for layout in layouts:
        for cell in layout:
            counts[cell] += 1
    return counts / len(layouts)


def brute_force_values(grid: np.ndarray, mines: int, cell: tuple[int, int], trust_flags: bool) -> np.ndarray:
    """Frequency of "mine" and of each number 0..8 at ``cell`` over all fitting layouts."""
    layouts = brute_force_layouts(grid, mines, trust_flags)
    frequencies = np.zeros(10)
    for layout in layouts:
        if cell in layout:
            frequencies[VALUE_MINE] += 1
        else:
            frequencies[1 + sum(n in layout for n in neighbours(grid.shape, *cell))] += 1
    return frequencies / len(layouts)


# ----------------------------------------------------------------------------------------------------------
# Random small positions.
# ----------------------------------------------------------------------------------------------------------


@st.composite
def positions(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    """A small observation made from a real layout: numbers, hidden cells, right and wrong flags, shown mines.

    The total mine count is sometimes off by one, so that inconsistent totals are drawn too.
    """
    rows = draw(st.integers(1, 5))
    cols = draw(st.integers(1, 5))
    layout = np.array(draw(st.lists(st.booleans(), min_size=rows * cols, max_size=rows * cols))).reshape(
        rows, cols
    )
    views = draw(st.lists(st.integers(0, 9), min_size=rows * cols, max_size=rows * cols))
    grid = np.full((rows, cols), HIDDEN, np.int8)
    counts = neighbour_counts(layout)
    hidden = 0
    for index, view in enumerate(views):
        cell = divmod(index, cols)
        if layout[cell]:
            grid[cell] = MINE if view == 0 else FLAG if view in (1, 2) else HIDDEN
        elif view <= 4 or hidden >= MAX_BRUTE_HIDDEN:
            grid[cell] = counts[cell]
        elif view == 5:
            grid[cell] = FLAG
        hidden += grid[cell] in (HIDDEN, FLAG)
    mines = int(layout.sum()) + draw(st.sampled_from([0, 0, 0, 0, 1, -1]))
    return grid, max(0, min(mines, rows * cols))


def affordable(grid: np.ndarray) -> bool:
    """Small enough to enumerate every layout."""
    return int(np.isin(grid, (HIDDEN, FLAG)).sum()) <= MAX_BRUTE_HIDDEN + 3


# ----------------------------------------------------------------------------------------------------------
# Exactness against brute force.
# ----------------------------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(), st.booleans())
def test_matches_brute_force_on_random_small_positions(position: tuple[np.ndarray, int], trust: bool) -> None:
    grid, mines = position
    if not affordable(grid):
        return
    expected = brute_force_probabilities(grid, mines, trust)
    if expected is None:
        with pytest.raises(InconsistentBoard):
            analyse(grid, mines, trust_flags=trust)
        return
    analysis = analyse(grid, mines, trust_flags=trust)
    np.testing.assert_allclose(analysis.probabilities, expected, rtol=0, atol=1e-12)
    unknown = (grid == HIDDEN) | ((grid == FLAG) & (not trust))
    np.testing.assert_array_equal(analysis.certain_safe, unknown & (expected == 0))
    np.testing.assert_array_equal(analysis.certain_mines, expected == 1)
    n_layouts = len(brute_force_layouts(grid, mines, trust))
    assert analysis.log_layouts == pytest.approx(math.log(n_layouts), abs=1e-9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(), st.booleans(), st.integers(0, 24))
def test_value_distribution_matches_brute_force(
    position: tuple[np.ndarray, int], trust: bool, pick: int
) -> None:
    grid, mines = position
    unknown = np.argwhere((grid == HIDDEN) | ((grid == FLAG) & (not trust)))
    if not affordable(grid) or len(unknown) == 0 or brute_force_probabilities(grid, mines, trust) is None:
        return
    cell = tuple(int(i) for i in unknown[pick % len(unknown)])
    distribution = value_distribution(grid, mines, cell, trust_flags=trust)
    assert distribution.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(distribution, brute_force_values(grid, mines, cell, trust), rtol=0, atol=1e-12)


def test_shown_mines_count_towards_numbers_and_total() -> None:
    grid = np.array([[MINE, 1, HIDDEN, HIDDEN]], np.int8)
    probabilities = mine_probabilities(grid, 2)
    np.testing.assert_array_equal(probabilities, [[1.0, 0.0, 0.0, 1.0]])


@pytest.mark.parametrize(
    ("trust", "expected"), [(True, [1.0, 0.0, 0.0, 0.5, 0.5]), (False, [0.5, 0.0, 0.5, 0.5, 0.5])]
)
def test_flags_are_mines_only_when_trusted(trust: bool, expected: list[float]) -> None:
    grid = np.array([[FLAG, 1, HIDDEN, HIDDEN, HIDDEN]], np.int8)
    np.testing.assert_allclose(mine_probabilities(grid, 2, trust_flags=trust)[0], expected, atol=1e-15)


# ----------------------------------------------------------------------------------------------------------
# Closed forms.
# ----------------------------------------------------------------------------------------------------------


def test_lone_one_with_two_hidden_neighbours_is_a_coin_flip() -> None:
    grid = np.array([[HIDDEN, 1, HIDDEN]], np.int8)
    np.testing.assert_array_equal(mine_probabilities(grid, 1), [[0.5, 0.0, 0.5]])


@pytest.mark.parametrize(("rows", "cols", "mines"), [(9, 9, 10), (16, 30, 99), (1, 1, 0), (3, 3, 9)])
def test_nothing_revealed_gives_the_density_everywhere(rows: int, cols: int, mines: int) -> None:
    analysis = analyse(np.full((rows, cols), HIDDEN, np.int8), mines)
    np.testing.assert_allclose(analysis.probabilities, mines / (rows * cols), rtol=1e-14)
    assert analysis.certain_safe.all() == (mines == 0)
    assert analysis.certain_mines.all() == (mines == rows * cols)
    assert analysis.log_layouts == pytest.approx(
        math.log(math.comb(rows * cols, mines)), rel=1e-12, abs=1e-12
    )


def test_interior_probability_when_the_frontier_total_is_fixed() -> None:
    # The 1 pins exactly one mine on its two neighbours; the 5 cells beyond share the rest.
    grid = np.array([[HIDDEN, 1, HIDDEN, HIDDEN, HIDDEN, HIDDEN, HIDDEN, HIDDEN]], np.int8)
    probabilities = mine_probabilities(grid, 3)[0]
    np.testing.assert_allclose(probabilities[[0, 2]], 0.5, rtol=1e-14)
    np.testing.assert_allclose(probabilities[3:], 2 / 5, rtol=1e-14)


def test_interior_probability_when_the_frontier_total_varies() -> None:
    # x 1 y 1 z | u v w: either y alone (1 mine, C(3, 1) ways for the rest) or x and z (C(3, 0) ways).
    grid = np.array([[HIDDEN, 1, HIDDEN, 1, HIDDEN, HIDDEN, HIDDEN, HIDDEN]], np.int8)
    probabilities = mine_probabilities(grid, 2)[0]
    np.testing.assert_allclose(probabilities, [1 / 4, 0, 3 / 4, 0, 1 / 4, 1 / 4, 1 / 4, 1 / 4], rtol=1e-14)


def test_certain_cells_are_exact_zeros_and_ones() -> None:
    grid = np.array([[HIDDEN, 1, 0, HIDDEN]], np.int8)
    analysis = analyse(grid, 1)
    np.testing.assert_array_equal(analysis.probabilities, [[1.0, 0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(analysis.certain_mines, [[True, False, False, False]])
    np.testing.assert_array_equal(analysis.certain_safe, [[False, False, False, True]])
    safe, probabilities = safe_cells_and_probabilities(grid, 1)
    np.testing.assert_array_equal(safe, analysis.certain_safe)
    np.testing.assert_array_equal(probabilities, analysis.probabilities)


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
    assert 0.0 < certain_or_inward(0.0, False, False) < 1e-300
    assert 1.0 - 1e-15 < certain_or_inward(1.0, False, False) < 1.0
    assert certain_or_inward(0.3, True, False) == 0.0
    assert certain_or_inward(0.3, False, True) == 1.0


# ----------------------------------------------------------------------------------------------------------
# Scale: huge interiors and long components.
# ----------------------------------------------------------------------------------------------------------


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


def chain_board(targets: list[int]) -> np.ndarray:
    """3 rows: numbers on the middle row at even columns, everything else hidden.

    Number k sees its own box (2 cells above and below it) and the 3-cell columns it shares with numbers
    k - 1 and k + 1, so the whole board is one long component with many layouts.
    """
    grid = np.full((3, 2 * len(targets) - 1), HIDDEN, np.int8)
    grid[1, ::2] = targets
    return grid


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


def test_component_solutions_rebuild_the_probabilities() -> None:
    grid = np.array(
        [
            [HIDDEN, HIDDEN, HIDDEN, HIDDEN, HIDDEN],
            [HIDDEN, 2, 1, 2, HIDDEN],
            [HIDDEN, 1, 0, 1, HIDDEN],
            [HIDDEN, HIDDEN, HIDDEN, HIDDEN, HIDDEN],
        ],
        np.int8,
    )
    analysis = analyse(grid, 4)
    boxed = np.zeros(grid.shape, bool)
    for component in analysis.components:
        assert component.weights.max() == 1.0
        for box, mines, safes in zip(component.boxes, component.mine_sums, component.safe_sums, strict=True):
            cells = np.unravel_index(box, grid.shape)
            assert not boxed[cells].any()
            boxed[cells] = True
            np.testing.assert_allclose(mines + safes, len(box) * component.weights, rtol=1e-12)
    frontier = (grid == HIDDEN) & (neighbour_counts(grid >= 0) > 0)
    np.testing.assert_array_equal(boxed, frontier)
    assert analysis.interior_cells == int(((grid == HIDDEN) & ~frontier).sum())


# ----------------------------------------------------------------------------------------------------------
# Errors.
# ----------------------------------------------------------------------------------------------------------


def test_number_with_too_few_hidden_neighbours() -> None:
    with pytest.raises(InconsistentBoard, match=r"the 3 at \(0, 1\) cannot be satisfied"):
        analyse(np.array([[HIDDEN, 3, HIDDEN]], np.int8), 2)


def test_numbers_that_contradict_each_other() -> None:
    with pytest.raises(InconsistentBoard, match="cannot all be satisfied together"):
        analyse(np.array([[1, HIDDEN, 0]], np.int8), 1)


@pytest.mark.parametrize("mines", [0, 4])
def test_total_mine_count_that_does_not_fit(mines: int) -> None:
    with pytest.raises(InconsistentBoard, match=r"total mine count does not fit.*between 1 and 1"):
        analyse(np.array([[HIDDEN, 1, HIDDEN, 0, 0, HIDDEN]], np.int8), mines)


def test_more_known_mines_than_the_total() -> None:
    with pytest.raises(InconsistentBoard, match="2 known mine"):
        analyse(np.array([[MINE, MINE, HIDDEN]], np.int8), 1)


def test_inconsistent_board_is_a_value_error() -> None:
    assert issubclass(InconsistentBoard, ValueError)


@pytest.mark.parametrize(
    ("grid", "mines", "message"),
    [
        (np.zeros((2, 2), np.float32), 1, "integers"),
        (np.zeros(4, np.int8), 1, "2-D"),
        (np.zeros((0, 3), np.int8), 0, "non-empty"),
        (np.array([[9, HIDDEN]], np.int8), 1, "code 9"),
        (np.array([[-4, HIDDEN]], np.int8), 1, "code -4"),
        (np.full((2, 2), HIDDEN, np.int8), -1, ">= 0"),
        (np.full((2, 2), HIDDEN, np.int8), 5, "exceeds"),
        (np.full((2, 2), HIDDEN, np.int8), 1.5, "integer"),
        (np.full((2, 2), HIDDEN, np.int8), True, "integer"),
    ],
)
def test_malformed_input(grid: np.ndarray, mines: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        analyse(grid, mines)  # type: ignore[arg-type]


def test_value_distribution_of_a_revealed_cell_is_refused() -> None:
    with pytest.raises(ValueError, match="not hidden"):
        value_distribution(np.array([[HIDDEN, 1, HIDDEN]], np.int8), 1, (0, 1))


# ----------------------------------------------------------------------------------------------------------
# Agreement with ms-toollib on played expert positions.
# ----------------------------------------------------------------------------------------------------------


def played_positions(rng: np.random.Generator, rows: int, cols: int, mines: int) -> list[np.ndarray]:
    """Snapshots of one game played with the engine: open (3, 3), then safe cells, else the safest cell."""
    opening = np.zeros((rows, cols), bool)
    opening[2:5, 2:5] = True
    layout = np.zeros(rows * cols, bool)
    layout[rng.choice(np.flatnonzero(~opening), mines, replace=False)] = True
    layout = layout.reshape(rows, cols)
    counts = neighbour_counts(layout)
    grid = np.full((rows, cols), HIDDEN, np.int8)
    snapshots = []
    move = (3, 3)
    while not layout[move] and (grid == HIDDEN).sum() > layout.sum():
        grid[move] = counts[move]
        analysis = analyse(grid, mines)
        safe = np.argwhere(analysis.certain_safe)
        if len(safe) == 0:
            snapshots.append(grid.copy())
            move = np.unravel_index(
                np.argmin(np.where(grid == HIDDEN, analysis.probabilities, 2)), grid.shape
            )
        else:
            move = tuple(safe[0])
    return snapshots


def test_agrees_with_ms_toollib_on_expert_positions() -> None:
    ms_toollib = pytest.importorskip("ms_toollib")
    rng = np.random.default_rng(7)
    positions = [grid for _ in range(4) for grid in played_positions(rng, 16, 30, 99)]
    assert len(positions) >= 5
    for grid in positions:
        board = np.where(grid == HIDDEN, 10, grid).astype(int).tolist()
        theirs = np.array(ms_toollib.cal_probability_onboard(board, 99)[0])
        hidden = grid == HIDDEN
        np.testing.assert_allclose(mine_probabilities(grid, 99)[hidden], theirs[hidden], rtol=0, atol=1e-9)

"""The Python API of the exact count (agents.probability) against brute force, closed forms, its error contract
and ms-toollib."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.probability import (
    VALUE_MINE,
    InconsistentBoard,
    analyse,
    mine_probabilities,
    safe_cells_and_probabilities,
    value_distribution,
)
from mine_env.engine.constants import FLAG, HIDDEN, MINE
from mine_env.engine.geometry import neighbours
from mine_env.engine.rules import neighbour_counts
from support import grid_from_rows

MAX_BRUTE_HIDDEN = 13


# ----------------------------------------------------------------------------------------------------------
# Reference: enumerate every layout.
# ----------------------------------------------------------------------------------------------------------


def around(shape: tuple[int, int], r: int, c: int) -> list[tuple[int, int]]:
    """The up to 8 cells around (r, c), as (row, col)."""
    rows, cols = shape
    return [divmod(n, cols) for n in neighbours(r * cols + c, rows, cols)]


def brute_force_layouts(grid: np.ndarray, mines: int, trust_flags: bool) -> list[frozenset[tuple[int, int]]]:
    """Every set of mine cells with ``mines`` mines that agrees with the observation."""
    unknown = [tuple(cell) for cell in np.argwhere((grid == HIDDEN) | ((grid == FLAG) & (not trust_flags)))]
    known = {tuple(cell) for cell in np.argwhere((grid == MINE) | ((grid == FLAG) & trust_flags))}
    bit = {cell: 1 << i for i, cell in enumerate(unknown)}
    checks = []  # (bitmask of a number's unknown neighbours, mines it still needs)
    for cell in np.argwhere(grid >= 0):
        cells = around(grid.shape, *cell)
        mask = sum(bit.get(n, 0) for n in cells)
        checks.append((mask, int(grid[tuple(cell)]) - sum(n in known for n in cells)))
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
            frequencies[1 + sum(n in layout for n in around(grid.shape, *cell))] += 1
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
    probabilities = mine_probabilities(grid_from_rows("X 1 . ."), 2)
    np.testing.assert_array_equal(probabilities, [[1.0, 0.0, 0.0, 1.0]])


@pytest.mark.parametrize(
    ("trust", "expected"), [(True, [1.0, 0.0, 0.0, 0.5, 0.5]), (False, [0.5, 0.0, 0.5, 0.5, 0.5])]
)
def test_flags_are_mines_only_when_trusted(trust: bool, expected: list[float]) -> None:
    grid = grid_from_rows("F 1 . . .")
    np.testing.assert_allclose(mine_probabilities(grid, 2, trust_flags=trust)[0], expected, atol=1e-15)


# ----------------------------------------------------------------------------------------------------------
# Closed forms.
# ----------------------------------------------------------------------------------------------------------


def test_lone_one_with_two_hidden_neighbours_is_a_coin_flip() -> None:
    np.testing.assert_array_equal(mine_probabilities(grid_from_rows(". 1 ."), 1), [[0.5, 0.0, 0.5]])


def test_certain_cells_are_exact_zeros_and_ones() -> None:
    grid = grid_from_rows(". 1 0 .")
    analysis = analyse(grid, 1)
    np.testing.assert_array_equal(analysis.probabilities, [[1.0, 0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(analysis.certain_mines, [[True, False, False, False]])
    np.testing.assert_array_equal(analysis.certain_safe, [[False, False, False, True]])
    safe, probabilities = safe_cells_and_probabilities(grid, 1)
    np.testing.assert_array_equal(safe, analysis.certain_safe)
    np.testing.assert_array_equal(probabilities, analysis.probabilities)


def test_component_solutions_rebuild_the_probabilities() -> None:
    grid = grid_from_rows(". . . . .", ". 2 1 2 .", ". 1 0 1 .", ". . . . .")
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
        analyse(grid_from_rows(". 3 ."), 2)


def test_numbers_that_contradict_each_other() -> None:
    with pytest.raises(InconsistentBoard, match="cannot all be satisfied together"):
        analyse(grid_from_rows("1 . 0"), 1)


@pytest.mark.parametrize("mines", [0, 4])
def test_total_mine_count_that_does_not_fit(mines: int) -> None:
    with pytest.raises(InconsistentBoard, match=r"total mine count does not fit: the numbers need exactly 1 mine on"):
        analyse(grid_from_rows(". 1 . 0 0 ."), mines)


def test_more_known_mines_than_the_total() -> None:
    with pytest.raises(InconsistentBoard, match="2 known mine"):
        analyse(grid_from_rows("X X ."), 1)


def test_inconsistent_board_is_a_value_error() -> None:
    assert issubclass(InconsistentBoard, ValueError)


@pytest.mark.parametrize(
    ("grid", "mines", "message"),
    [
        (np.zeros((2, 2), np.float32), 1, "integers"),
        (np.zeros(4, np.int8), 1, "2-D"),
        (np.zeros((0, 3), np.int8), 0, "non-empty"),
        (np.array([[9, HIDDEN]], np.int8), 1, "code 9"),  # codes no text spells
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
        value_distribution(grid_from_rows(". 1 ."), 1, (0, 1))


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

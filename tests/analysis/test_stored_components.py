"""count_board with a component store gives its floats without one exactly, whatever the store holds."""

from __future__ import annotations

import numpy as np
import pytest

from mine_env.analysis.component_store import ComponentStore, new_component_store
from mine_env.analysis.counting import count_board
from support import grid_from_rows, random_position


def tiny_store() -> ComponentStore:
    """A store that fills after a few components, so that it is emptied (and refilled) many times."""
    return new_component_store(components=6, key_ints=160, sums=64)


def assert_same_count(grid: np.ndarray, mines: int, store: ComponentStore) -> None:
    """The stored path equals the plain path: status, bad cell, log of the layouts, every cell, bit for bit."""
    rows, cols = grid.shape
    expected = count_board(grid.ravel(), rows, cols, False, mines)
    got = count_board(grid.ravel(), rows, cols, False, mines, store)
    assert (got.status, got.bad_cell) == (expected.status, expected.bad_cell)
    assert got.combined.log_layouts == expected.combined.log_layouts
    np.testing.assert_array_equal(got.cells.probability, expected.cells.probability)
    np.testing.assert_array_equal(got.cells.safe, expected.cells.safe)
    np.testing.assert_array_equal(got.cells.mine, expected.cells.mine)


@pytest.mark.parametrize("store_maker", [new_component_store, tiny_store])
def test_random_positions_count_the_same(store_maker) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(21)
    store = store_maker()
    for _ in range(40):
        rows, cols = rng.integers(3, 12, size=2)
        mines = int(rng.integers(1, rows * cols // 3 + 2))
        _, grid = random_position(rng, int(rows), int(cols), mines)
        assert_same_count(grid, mines, store)
        assert_same_count(grid, mines, store)  # again, every component found in the store


@pytest.mark.parametrize(
    ("rows", "mines"),
    [((". 3 .",), 2), (("1 . 0",), 1), ((". 1 . 0 0 .",), 4), (("1 . . 1 . 0",), 2)],
)
def test_positions_no_layout_fits_fail_the_same(rows: tuple[str, ...], mines: int) -> None:
    store = new_component_store()
    for _ in range(2):  # counted, then found (an unsatisfiable component is stored as such)
        assert_same_count(grid_from_rows(*rows), mines, store)


def test_a_component_larger_than_the_store_is_counted_without_it() -> None:
    grid = grid_from_rows("1 . . . . . . . 1", ". . 2 . . . 2 . .", ". . . . . . . . .")
    store = new_component_store(components=1, key_ints=4, sums=4)
    assert_same_count(grid, 5, store)
    assert store.used[0] == 0  # nothing fitted


def test_a_store_needs_room() -> None:
    with pytest.raises(ValueError, match="needs room"):
        new_component_store(components=0)

"""Mine placement and counts: the first-click guarantees, a layout as a pure function of (key, first cell), and
every allowed layout (and cell) as likely as any other. (The layouts against the plain reference are in
test_reference.py.)"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from mine_env.engine.board import Board
from mine_env.engine.geometry import protected_cells
from mine_env.engine.layout import neighbour_counts
from mine_env.engine.rng import KEY_LIMIT
from mine_env.engine.spec import BoardSpec
from mine_env.engine.textformat import parse_board
from support import grid_from_rows


def layout_of(spec: BoardSpec, key: int, first_cell: int) -> np.ndarray:
    """The layout of game ``key`` once ``first_cell`` is revealed (-1: before any reveal, the ``none`` rule),
    flat bool."""
    board = Board(spec, key)
    if first_cell >= 0:
        board.step(first_cell, flags=False)
    return board.layout.ravel()


def chi_square_p_value(observed: list[int], expected: float) -> float:
    """Upper tail of Pearson's chi-square for equal expected counts (Wilson-Hilferty normal approximation)."""
    statistic = sum((count - expected) ** 2 / expected for count in observed)
    dof = len(observed) - 1
    z = ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


def test_a_mine_counts_the_mines_around_it_but_not_itself() -> None:
    layout = parse_board("* . .\n. * .\n. . *\n").layout
    np.testing.assert_array_equal(neighbour_counts(layout), grid_from_rows("1 2 1", "2 2 2", "1 2 1"))


@pytest.mark.parametrize("preset", [(9, 9, 10), (16, 16, 40), (16, 30, 99)])
def test_first_click_guarantees_hold_over_many_seeds(preset: tuple[int, int, int]) -> None:
    rows, cols, mines = preset
    rng = np.random.default_rng(2024)
    for _ in range(300):
        key, first = int(rng.integers(KEY_LIMIT)), int(rng.integers(rows * cols))
        safe = Board(BoardSpec(rows, cols, mines, "safe"), key)
        assert safe.step(first, flags=False) >= 1 and safe.status != "lost"
        opening = Board(BoardSpec(rows, cols, mines, "opening"), key)
        opening.step(first, flags=False)
        assert opening.grid.flat[first] == 0 and opening.status != "lost"
        fixed = Board(BoardSpec(rows, cols, mines, "none"), key)
        assert fixed.layout is not None and fixed.layout.sum() == mines


def test_the_layout_is_a_pure_function_of_key_and_first_cell() -> None:
    spec = BoardSpec(16, 16, 40, "opening")
    first = Board(spec, key=99)
    second = Board(spec, key=99)
    first.reveal(5, 5)
    second.reveal(5, 5)
    np.testing.assert_array_equal(first.layout, second.layout)
    elsewhere = Board(spec, key=99)
    elsewhere.reveal(10, 12)
    assert not np.array_equal(first.layout, elsewhere.layout)
    other_key = Board(spec, key=100)
    other_key.reveal(5, 5)
    assert not np.array_equal(first.layout, other_key.layout)


@pytest.mark.statistical
@pytest.mark.parametrize(
    ("first_click", "first_cell", "allowed"), [("safe", 0, 15), ("opening", 0, 12), ("none", -1, 16)]
)
def test_every_allowed_layout_of_a_tiny_board_is_as_likely(first_click: str, first_cell: int, allowed: int) -> None:
    # A 4x4 board with 2 mines: count every layout drawn from 20 000 seeded keys.
    rng = np.random.default_rng(7)
    draws = 20_000
    spec = BoardSpec(4, 4, 2, first_click)
    seen = Counter(layout_of(spec, int(key), first_cell).tobytes() for key in rng.integers(0, KEY_LIMIT, size=draws))
    assert len(seen) == math.comb(allowed, 2)  # every allowed layout occurs, no other
    assert chi_square_p_value(list(seen.values()), draws / len(seen)) > 1e-4


@pytest.mark.statistical
def test_each_allowed_cell_is_equally_likely_to_hold_a_mine() -> None:
    # Beginner under the opening rule, first click in the centre: 72 allowed cells, 10 mines each time.
    rng = np.random.default_rng(11)
    spec = BoardSpec(9, 9, 10, "opening")
    frequency = np.zeros(81, dtype=np.int64)
    for key in rng.integers(0, KEY_LIMIT, size=10_000):
        frequency += layout_of(spec, int(key), 40)
    protected = protected_cells(9, 9, "opening", 40)
    assert len(protected) == 9 and frequency[protected].sum() == 0
    allowed = np.delete(frequency, protected)
    assert chi_square_p_value(allowed.tolist(), 10_000 * 10 / 72) > 1e-4

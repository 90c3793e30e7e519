"""The one counting pipeline: what count_board says at each stage, and count_position for the solver."""

from __future__ import annotations

import numpy as np
import pytest

from agents.probability import analyse
from mine_env.analysis.counting import BoardCount, PositionCount, count_board, count_position
from mine_env.analysis.counting_base import STATUS_BAD_COMPONENT, STATUS_BAD_NUMBER, STATUS_BAD_TOTAL, STATUS_OK
from support import grid_from_rows, random_position


def board_count(grid: np.ndarray, mines: int, trust_flags: bool = False) -> BoardCount:
    """The count of a position written as text."""
    return count_board(grid.ravel(), grid.shape[0], grid.shape[1], trust_flags, mines)


def test_a_position_that_fits() -> None:
    count = board_count(grid_from_rows(". 1 . 1 . . . ."), 2)
    assert count.status == STATUS_OK and count.bad_cell == -1
    assert count.combined.feasible
    np.testing.assert_allclose(count.cells.probability, [1 / 4, 0, 3 / 4, 0, 1 / 4, 1 / 4, 1 / 4, 1 / 4], rtol=1e-14)
    assert not count.cells.safe.any() and not count.cells.mine.any()  # revealed numbers are neither


@pytest.mark.parametrize(
    ("rows", "mines", "status", "bad_cell"),
    [
        ((". 3 .",), 2, STATUS_BAD_NUMBER, 1),
        (("1 . 0",), 1, STATUS_BAD_COMPONENT, 0),
        ((". 1 . 0 0 .",), 4, STATUS_BAD_TOTAL, -1),
    ],
)
def test_each_stage_says_why_no_layout_fits(rows: tuple[str, ...], mines: int, status: int, bad_cell: int) -> None:
    count = board_count(grid_from_rows(*rows), mines)
    assert count.status == status and count.bad_cell == bad_cell
    assert count.cells.probability.size == 0 and count.cells.safe.size == 0 and count.cells.mine.size == 0


def test_a_total_that_does_not_fit_says_which_totals_the_numbers_allow() -> None:
    count = board_count(grid_from_rows(". 1 . 0 0 ."), 0)
    assert count.status == STATUS_BAD_TOTAL
    assert not count.combined.feasible
    assert (count.combined.lowest_total, count.combined.highest_total) == (1, 1)


def test_count_position_is_the_same_count_as_analyse() -> None:
    rng = np.random.default_rng(5)
    for _ in range(40):
        rows, cols = int(rng.integers(2, 12)), int(rng.integers(2, 20))
        mines = int(rng.integers(1, rows * cols // 3 + 2))
        _, grid = random_position(rng, rows, cols, mines)
        consistent, probability, safe, log_layouts = count_position(grid.ravel(), rows, cols, mines)
        assert consistent
        analysis = analyse(grid, mines)
        assert probability.tobytes() == analysis.probabilities.tobytes()
        assert safe.tolist() == analysis.certain_safe.ravel().tolist()
        assert log_layouts == analysis.log_layouts


def test_count_position_of_a_position_no_layout_fits() -> None:
    grid = grid_from_rows("X X .")
    count = count_position(grid.ravel(), 1, 3, 1)
    assert isinstance(count, PositionCount)
    assert not count[0] and not count.consistent
    assert count.probability.size == 0 and count.safe.size == 0 and count.log_layouts == 0.0

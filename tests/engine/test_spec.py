"""Board specifications: the largest mine count of each rule, whatever cell is clicked first."""

from __future__ import annotations

import pytest

from mine_env.engine.constants import FIRST_CLICK_RULES, MAX_SIDE
from mine_env.engine.geometry import protected_cells
from mine_env.engine.spec import BoardSpec, max_mines


@pytest.mark.parametrize("first_click", FIRST_CLICK_RULES)
def test_the_largest_mine_count_leaves_room_for_any_first_click(first_click: str) -> None:
    for rows in range(1, 7):
        for cols in range(1, 7):
            worst = max(len(protected_cells(rows, cols, first_click, cell)) for cell in range(rows * cols))
            assert max_mines(rows, cols, first_click) == rows * cols - max(worst, 1)


@pytest.mark.parametrize(
    ("rows", "cols", "first_click", "limit"),
    [(9, 9, "opening", 72), (1, 1, "opening", 0), (1, 5, "opening", 2), (2, 2, "opening", 0), (9, 9, "safe", 80),
     (9, 9, "none", 80), (MAX_SIDE, MAX_SIDE, "opening", MAX_SIDE * MAX_SIDE - 9)],
)  # fmt: skip
def test_the_largest_mine_count_of_some_boards(rows: int, cols: int, first_click: str, limit: int) -> None:
    assert max_mines(rows, cols, first_click) == limit
    assert BoardSpec(rows, cols, limit, first_click).mines == limit
    with pytest.raises(ValueError, match=f"expected 0..{limit}"):
        BoardSpec(rows, cols, limit + 1, first_click)

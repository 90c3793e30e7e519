"""The frontier of a position: constraints, boxes, components and the narrow order of a component's boxes."""

from __future__ import annotations

import numpy as np

from mine_env.analysis.counting_base import STATUS_BAD_NUMBER, STATUS_OK
from mine_env.analysis.frontier import Frontier, find_frontier, narrow_order
from support import grid_from_rows


def frontier_of(grid: np.ndarray, trust_flags: bool = False) -> Frontier:
    """The frontier of a position written as text."""
    return find_frontier(grid.ravel(), grid.shape[0], grid.shape[1], trust_flags)


def test_cells_touched_by_the_same_numbers_share_a_box() -> None:
    # The two 1s share the column between them; each also has cells of its own.
    frontier = frontier_of(grid_from_rows(". 1 . 1 .", ". . . . ."))
    assert frontier.status == STATUS_OK and frontier.bad_cell == -1
    assert frontier.constraint_cell.tolist() == [1, 3]
    assert frontier.target.tolist() == [1, 1]
    assert frontier.box_of_cell.reshape(2, 5).tolist() == [[0, -1, 1, -1, 2], [0, 0, 1, 2, 2]]
    assert frontier.box_size.tolist() == [3, 2, 3]
    assert frontier.box_n_cons.tolist() == [1, 2, 1]
    assert frontier.box_cons[1, :2].tolist() == [0, 1]
    assert frontier.component_of_box.tolist() == [0, 0, 0] and frontier.n_components == 1
    assert frontier.interior == 0 and frontier.n_known == 0


def test_numbers_without_shared_cells_are_separate_components() -> None:
    frontier = frontier_of(grid_from_rows("1 . . . 1", ". . . . .", ". . . . ."))
    assert frontier.n_components == 2
    assert frontier.component_of_box.tolist() == [0, 1]
    assert frontier.box_size.tolist() == [3, 3]
    assert frontier.interior == 15 - 2 - 6  # neither number nor a cell next to one


def test_known_mines_count_towards_the_numbers_and_trusted_flags_are_known_mines() -> None:
    grid = grid_from_rows("X 2 F .")
    untrusted = frontier_of(grid)
    assert untrusted.n_known == 1 and untrusted.target.tolist() == [1]
    assert untrusted.box_of_cell.tolist() == [-1, -1, 0, -1]
    trusted = frontier_of(grid, trust_flags=True)
    assert trusted.n_known == 2
    assert trusted.constraint_cell.size == 0 and trusted.box_size.size == 0
    assert trusted.interior == 1


def test_a_number_that_cannot_be_satisfied_stops_the_frontier() -> None:
    frontier = frontier_of(grid_from_rows(". 1 .", "3 . ."))
    assert frontier.status == STATUS_BAD_NUMBER
    assert frontier.bad_cell == 3
    assert frontier.constraint_cell.size == 0 and frontier.box_size.size == 0 and frontier.n_components == 0


def test_the_narrow_order_walks_a_chain_from_one_end_keeping_few_numbers_open() -> None:
    # Numbers on every other column of the middle row: one component whose boxes form a chain.
    grid = grid_from_rows(". . . . . . . . .", "1 . 1 . 1 . 1 . 1", ". . . . . . . . .")
    frontier = frontier_of(grid)
    n_boxes = frontier.box_size.shape[0]
    boxes = np.arange(n_boxes)
    order = narrow_order(frontier, boxes=boxes, local_of_box=boxes).tolist()
    assert sorted(order) == list(range(n_boxes))
    first_column = int(np.flatnonzero(frontier.box_of_cell == order[0])[0] % grid.shape[1])
    assert first_column in (0, grid.shape[1] - 1)
    numbers_of = [set(frontier.box_cons[box, : frontier.box_n_cons[box]].tolist()) for box in range(n_boxes)]
    for cut in range(1, n_boxes):
        before = set().union(*(numbers_of[box] for box in order[:cut]))
        after = set().union(*(numbers_of[box] for box in order[cut:]))
        assert len(before & after) <= 2

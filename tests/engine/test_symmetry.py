"""The board's symmetries: each undone by its inverse, all distinct, batches moved like boards, counts checked."""

from __future__ import annotations

import numpy as np
import pytest

from mine_env.engine.symmetry import SYMMETRIES, board_symmetries, cell_images, check_symmetries


@pytest.mark.parametrize(("count", "rows", "cols"), [(1, 3, 5), (2, 3, 5), (4, 3, 5), (8, 4, 4)])
def test_each_symmetry_is_undone_by_its_inverse_and_all_differ(count: int, rows: int, cols: int) -> None:
    board = np.arange(rows * cols).reshape(rows, cols)
    images = []
    for forward, inverse in board_symmetries(count, rows, cols):
        image = forward(board)
        np.testing.assert_array_equal(inverse(image), board)
        images.append(image.tobytes() + bytes(image.shape))
    assert len(set(images)) == count


def test_a_batch_is_moved_board_by_board() -> None:
    batch = np.arange(2 * 3 * 5).reshape(2, 3, 5)
    for forward, inverse in SYMMETRIES:
        moved = forward(batch)
        for board, image in zip(batch, moved, strict=True):
            np.testing.assert_array_equal(image, forward(board))
        np.testing.assert_array_equal(inverse(moved), batch)


def test_a_cells_images_on_a_square_and_on_a_rectangle() -> None:
    assert cell_images((0, 1), 4, 4) == {(0, 1), (0, 2), (3, 1), (3, 2), (1, 0), (2, 0), (1, 3), (2, 3)}
    assert cell_images((0, 1), 3, 5) == {(0, 1), (0, 3), (2, 1), (2, 3)}


@pytest.mark.parametrize(("count", "rows", "cols", "message"), [
    (3, 9, 9, "one of 1, 2, 4, 8"),
    (8, 16, 30, "need a square board; a 16x30 board has 4"),
])  # fmt: skip
def test_impossible_counts_are_refused(count: int, rows: int, cols: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_symmetries(count, rows, cols)

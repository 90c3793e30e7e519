"""The lattice search: found on drawn boards anywhere in a picture, refused where there is none."""

from __future__ import annotations

import numpy as np
import pytest

from screen_bot.grid import Grid, detect_grid


def raised_board(rows: int, cols: int, pitch: int, left: int, top: int, size: tuple[int, int]) -> np.ndarray:
    """A grey picture with a board of raised tiles (white top-left edges, dark bottom-right) drawn in it."""
    height, width = size
    image = np.full((height, width, 3), 200, dtype=np.uint8)
    for r in range(rows):
        for c in range(cols):
            y, x = top + r * pitch, left + c * pitch
            image[y : y + pitch, x : x + pitch] = 180
            image[y : y + 2, x : x + pitch] = 255
            image[y : y + pitch, x : x + 2] = 255
            image[y + pitch - 2 : y + pitch, x : x + pitch] = 120
            image[y : y + pitch, x + pitch - 2 : x + pitch] = 120
    return image


@pytest.mark.parametrize(
    ("rows", "cols", "pitch", "left", "top"), [(16, 30, 21, 17, 81), (9, 9, 20, 30, 55), (5, 7, 12, 3, 40)]
)
def test_the_lattice_of_a_drawn_board_is_found(rows: int, cols: int, pitch: int, left: int, top: int) -> None:
    image = raised_board(rows, cols, pitch, left, top, (top + rows * pitch + 30, left + cols * pitch + 25))
    grid = detect_grid(image, rows, cols)
    assert grid.pitch == pitch
    assert abs(grid.left - left) <= 2 and abs(grid.top - top) <= 2  # a tile's edges, within a pixel or two
    assert grid.cells(image).shape == (rows, cols, pitch, pitch, 3)


def test_cell_centres_step_by_the_pitch() -> None:
    grid = Grid(left=10, top=20, pitch=21, rows=16, cols=30)
    assert grid.cell_centre(0, 0) == (20, 30)
    assert grid.cell_centre(2, 3) == (10 + 3 * 21 + 10, 20 + 2 * 21 + 10)


def test_a_picture_without_a_board_is_refused() -> None:
    with pytest.raises(ValueError, match="no 9x9 board found in the picture"):
        detect_grid(np.full((300, 300, 3), 128, dtype=np.uint8), 9, 9)


def test_a_picture_too_small_for_the_board_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot hold a 16x30 board"):
        detect_grid(np.zeros((100, 200, 3), dtype=np.uint8), 16, 30)

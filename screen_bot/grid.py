"""Finding the board's cell lattice in a screenshot, from the picture alone.

A minesweeper board is a lattice of equal square cells, and every cell boundary is a place where the
colour changes on (nearly) every pixel row or column: a grid line, or the highlight of a raised tile.
So the bot counts, for each pixel column, how many rows change colour there (and the same for rows), and
looks for the pitch and the offset whose ``cols + 1`` (``rows + 1``) equally spaced lines collect the
most changes. Lines beyond the board find none, so the lattice fits the board's extent; the same pitch is
required across and down (square cells). Nothing is assumed about where the board lies in the window.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EDGE_STEP = 24
"""A colour change larger than this (in one RGB channel, 0..255) between neighbouring pixels is an edge."""
MIN_PITCH = 8
"""The smallest cell, in pixels, the search considers (smaller cells cannot be read reliably)."""


@dataclass(frozen=True)
class Grid:
    """Where the cells are in a picture: the top-left pixel of cell (0, 0), the pitch, the board's size."""

    left: int
    top: int
    pitch: int
    rows: int
    cols: int

    def cell_origin(self, row: int, col: int) -> tuple[int, int]:
        """The picture pixel (x, y) of the top-left corner of cell (row, col)."""
        return self.left + col * self.pitch, self.top + row * self.pitch

    def cell_centre(self, row: int, col: int) -> tuple[int, int]:
        """The picture pixel (x, y) in the middle of cell (row, col): where to click it."""
        x, y = self.cell_origin(row, col)
        return x + self.pitch // 2, y + self.pitch // 2

    def cells(self, image: np.ndarray) -> np.ndarray:
        """The board's pixels cut into cells: an array (rows, cols, pitch, pitch, 3)."""
        p = self.pitch
        board = image[self.top : self.top + self.rows * p, self.left : self.left + self.cols * p]
        return board.reshape(self.rows, p, self.cols, p, 3).swapaxes(1, 2)


def edge_profiles(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each boundary between pixel columns (rows), how many rows (columns) change colour across it."""
    pixels = image.astype(np.int16)
    across = (np.abs(np.diff(pixels, axis=1)).max(axis=2) > EDGE_STEP).sum(axis=0)
    down = (np.abs(np.diff(pixels, axis=0)).max(axis=2) > EDGE_STEP).sum(axis=1)
    return across, down


def _best_lines(profile: np.ndarray, count: int, pitch: int) -> tuple[int, int]:
    """The best score and first position of ``count + 1`` lines ``pitch`` apart over an edge profile."""
    span = count * pitch
    starts = len(profile) - span
    if starts <= 0:
        return -1, 0
    scores = np.zeros(starts, dtype=np.int64)
    for k in range(count + 1):
        scores += profile[k * pitch : k * pitch + starts]
    best = int(np.argmax(scores))
    return int(scores[best]), best


def detect_grid(image: np.ndarray, rows: int, cols: int) -> Grid:
    """The lattice of a ``rows`` x ``cols`` board in ``image`` (an RGB array of the program's window).

    Raises:
        ValueError: the picture is too small for such a board, or holds no lattice of that size.
    """
    height, width = image.shape[:2]
    largest = min((width - 1) // cols, (height - 1) // rows)
    if largest < MIN_PITCH:
        raise ValueError(f"a picture of {width}x{height} pixels cannot hold a {rows}x{cols} board")
    across, down = edge_profiles(image)
    best = (-1, 0, 0, 0)
    for pitch in range(MIN_PITCH, largest + 1):
        score_x, x = _best_lines(across, cols, pitch)
        score_y, y = _best_lines(down, rows, pitch)
        # Normalise by the number of lines so that a pitch is not favoured for reaching more boundaries.
        score = score_x / (cols + 1) / height + score_y / (rows + 1) / width
        if score > best[0]:
            best = (score, pitch, x, y)
    score, pitch, x, y = best
    if score < 0.5:  # fewer than a quarter of the rows and columns change on the lattice's lines
        raise ValueError(f"no {rows}x{cols} board found in the picture (best lattice score {score:.2f})")
    # profile index i is the change between pixel i and i + 1: the cell starts on the pixel after it
    return Grid(left=x + 1, top=y + 1, pitch=pitch, rows=rows, cols=cols)

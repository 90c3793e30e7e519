"""The board's symmetries: the mirror images and quarter turns that map a position onto an equivalent one.

A Minesweeper position and its mirror images have the same mine probabilities, cell for cell, moved by the
mirror. Every transform acts on the last two axes, so it moves one board (rows, cols) or a batch of them
(N, rows, cols) alike. The counts are those of the dihedral group's subgroups that a board keeps:

- 1: the board as it is;
- 2: and its rows upside down;
- 4: and its columns mirrored, and both (a half turn): every rectangular board has these four;
- 8: and the four that swap rows and columns (the transpose, the quarter turns, the anti-transpose): they map a
  square board onto itself, and any board onto one of the transposed shape.

Users: ``minesweeper eval --symmetries`` (a network averaged over the images), ``train distill --augment``
(minibatches shown mirrored) and the distillation's first-click label (the mirror images of the best first click).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Transform = Callable[[np.ndarray], np.ndarray]


def _swap(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


SYMMETRIES: tuple[tuple[Transform, Transform], ...] = (
    (lambda a: a, lambda a: a),
    (lambda a: a[..., ::-1, :], lambda a: a[..., ::-1, :]),
    (lambda a: a[..., ::-1], lambda a: a[..., ::-1]),
    (lambda a: a[..., ::-1, ::-1], lambda a: a[..., ::-1, ::-1]),
    (_swap, _swap),
    (lambda a: np.rot90(a, 1, axes=(-2, -1)), lambda a: np.rot90(a, -1, axes=(-2, -1))),
    (lambda a: np.rot90(a, -1, axes=(-2, -1)), lambda a: np.rot90(a, 1, axes=(-2, -1))),
    (lambda a: _swap(a[..., ::-1, ::-1]), lambda a: _swap(a)[..., ::-1, ::-1]),
)
"""The 8 symmetries as (forward, inverse) pairs: the first four keep the shape, the last four transpose it."""

SYMMETRY_COUNTS = (1, 2, 4, 8)
"""How many symmetries a board may be taken over (the sizes of the subgroups above)."""


def check_symmetries(count: int, rows: int, cols: int) -> None:
    """ValueError unless ``count`` symmetries map a ``rows`` x ``cols`` board onto itself."""
    if count not in SYMMETRY_COUNTS:
        raise ValueError(f"symmetries must be one of {', '.join(map(str, SYMMETRY_COUNTS))}, got {count}")
    if count == 8 and rows != cols:
        raise ValueError(f"8 symmetries need a square board; a {rows}x{cols} board has 4 (give 1, 2 or 4)")


def board_symmetries(count: int, rows: int, cols: int) -> tuple[tuple[Transform, Transform], ...]:
    """The first ``count`` symmetries of a ``rows`` x ``cols`` board, each as (forward, inverse)."""
    check_symmetries(count, rows, cols)
    return SYMMETRIES[:count]


def cell_images(cell: tuple[int, int], rows: int, cols: int) -> set[tuple[int, int]]:
    """The cell and its images under every symmetry that maps the ``rows`` x ``cols`` board onto itself."""
    marked = np.zeros((rows, cols), dtype=bool)
    marked[cell] = True
    symmetries = board_symmetries(8 if rows == cols else 4, rows, cols)
    return {(int(r), int(c)) for forward, _ in symmetries for r, c in np.argwhere(forward(marked))}

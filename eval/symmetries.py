"""The board's symmetries, for playing a network averaged over them (``minesweeper eval --symmetries N``).

A Minesweeper position and its mirror images have the same mine probabilities, cell for cell, moved by the
mirror. A trained network only approximately respects that: asking it about every image of the board and
averaging its answers (each moved back) cancels part of its errors, at the cost of one batched forward pass.
The counts are those of the dihedral group's subgroups that a board keeps:

- 1: the board as it is;
- 2: and its rows upside down;
- 4: and its columns mirrored, and both (a half turn): every rectangular board has these four;
- 8: and the four that swap rows and columns (the transpose, the quarter turns, the anti-transpose): a
  square board only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Transform = Callable[[np.ndarray], np.ndarray]

_FLIPS: tuple[tuple[Transform, Transform], ...] = (
    (lambda a: a, lambda a: a),
    (lambda a: a[::-1], lambda a: a[::-1]),
    (lambda a: a[:, ::-1], lambda a: a[:, ::-1]),
    (lambda a: a[::-1, ::-1], lambda a: a[::-1, ::-1]),
)
_TURNS: tuple[tuple[Transform, Transform], ...] = (
    (lambda a: a.T, lambda a: a.T),
    (lambda a: np.rot90(a, 1), lambda a: np.rot90(a, -1)),
    (lambda a: np.rot90(a, -1), lambda a: np.rot90(a, 1)),
    (lambda a: a[::-1, ::-1].T, lambda a: a.T[::-1, ::-1]),
)
SYMMETRY_COUNTS = (1, 2, 4, 8)
"""How many symmetries a network may be averaged over."""


def check_symmetries(count: int, rows: int, cols: int) -> None:
    """ValueError unless ``count`` symmetries exist on a ``rows`` x ``cols`` board."""
    if count not in SYMMETRY_COUNTS:
        raise ValueError(f"symmetries must be one of {', '.join(map(str, SYMMETRY_COUNTS))}, got {count}")
    if count == 8 and rows != cols:
        raise ValueError(f"8 symmetries need a square board; a {rows}x{cols} board has 4 (give 1, 2 or 4)")


def board_symmetries(count: int, rows: int, cols: int) -> tuple[tuple[Transform, Transform], ...]:
    """The first ``count`` symmetries of a ``rows`` x ``cols`` board, each as (forward, inverse) on 2-D arrays
    whose first two axes are the board's."""
    check_symmetries(count, rows, cols)
    return (_FLIPS + _TURNS)[:count]


def averaged_scores(scores_of: Callable[[np.ndarray], np.ndarray], grid: np.ndarray, count: int) -> np.ndarray:
    """Per-cell scores (rows * cols,) of ``grid`` averaged over ``count`` symmetries.

    ``scores_of`` maps a batch of grids (count, rows, cols) to their scores (count, rows * cols) in one call.
    """
    rows, cols = grid.shape
    symmetries = board_symmetries(count, rows, cols)
    batch = np.stack([np.ascontiguousarray(forward(grid)) for forward, _ in symmetries])
    scores = scores_of(batch).reshape(batch.shape)
    return np.mean([inverse(score) for (_, inverse), score in zip(symmetries, scores, strict=True)], axis=0).ravel()

"""Playing a network averaged over the board's symmetries (``minesweeper eval --symmetries N``).

A trained network only approximately respects the board's symmetries (:mod:`mine_env.engine.symmetry`):
asking it about every image of the board and averaging its answers (each moved back) cancels part of its
errors, at the cost of one batched forward pass.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mine_env.engine.symmetry import board_symmetries


def averaged_scores(scores_of: Callable[[np.ndarray], np.ndarray], grid: np.ndarray, count: int) -> np.ndarray:
    """Per-cell scores (rows * cols,) of ``grid`` averaged over ``count`` symmetries.

    ``scores_of`` maps a batch of grids (count, rows, cols) to their scores (count, rows * cols) in one call.
    """
    rows, cols = grid.shape
    symmetries = board_symmetries(count, rows, cols)
    batch = np.stack([np.ascontiguousarray(forward(grid)) for forward, _ in symmetries])
    scores = scores_of(batch).reshape(batch.shape)
    return np.mean([inverse(score) for (_, inverse), score in zip(symmetries, scores, strict=True)], axis=0).ravel()

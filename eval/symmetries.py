"""Playing a network averaged over the board's symmetries (``minesweeper eval --symmetries N``).

A trained network only approximately respects the board's symmetries (:mod:`mine_env.engine.symmetry`):
asking it about every image of the board and averaging its answers (each moved back) cancels part of its
errors, at the cost of one batched forward pass.

Most moves do not need the other images: a distilled network is usually sure of a certainly safe cell, and
right. :func:`gated_scores` asks the board as it is first and the other images only when the network is less
sure than a threshold (``--sure``), so mirrored play costs little more than one pass a move (how the threshold
was chosen, and what it measured: docs/lab/2026-11-26-symmetry-gate.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from mine_env.engine.symmetry import board_symmetries

Scorer = Callable[[np.ndarray], np.ndarray]
"""Maps a batch of grids (N, rows, cols) to their per-cell scores (N, rows * cols) in one call."""


def averaged_scores(scores_of: Scorer, grid: np.ndarray, count: int, first: np.ndarray | None = None) -> np.ndarray:
    """Per-cell scores (rows * cols,) of ``grid`` averaged over ``count`` symmetries.

    ``first``: the scores of the board as it is (the first symmetry, the identity), when already computed; the
    other images then go through ``scores_of`` in one batch without it.
    """
    rows, cols = grid.shape
    symmetries = board_symmetries(count, rows, cols)
    asked = symmetries if first is None else symmetries[1:]
    batch = np.stack([np.ascontiguousarray(forward(grid)) for forward, _ in asked])
    scores = scores_of(batch).reshape(batch.shape)
    images = [inverse(score) for (_, inverse), score in zip(asked, scores, strict=True)]
    if first is not None:
        images.insert(0, first.reshape(rows, cols))
    return np.mean(images, axis=0).ravel()


def sure_logit(sure: float) -> float:
    """The safety logit above which a cell's mine chance is below ``sure`` (0 < sure < 1)."""
    return math.log((1.0 - sure) / sure)


def is_sure(scores: np.ndarray, valid: np.ndarray, sure: float) -> np.ndarray:
    """Whether the network is sure of its pick: the best-scored ``valid`` cell of each row of ``scores`` (safety
    logits, (..., cells), with a bool mask of the same shape) has a mine chance below ``sure``."""
    return np.where(valid, scores, -np.inf).max(axis=-1) > sure_logit(sure)


def gated_scores(scores_of: Scorer, grid: np.ndarray, count: int, valid: np.ndarray, sure: float) -> np.ndarray:
    """The scores of ``grid`` as it is when the network is sure of its pick there, else averaged over ``count``.

    Sure: :func:`is_sure` of the first image's scores over the ``valid`` cells (bool (rows * cols,)). Else the
    other images are asked in one batch and averaged with the first: :func:`averaged_scores` up to float
    rounding (the first image goes through the network apart), which can break an exact tie, such as the empty
    board's corners, the other way.
    """
    first = scores_of(grid[None])[0]
    if is_sure(first, valid, sure):
        return first
    return averaged_scores(scores_of, grid, count, first)

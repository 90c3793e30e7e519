"""Playing a network averaged over the board's symmetries (``minesweeper eval --symmetries N``).

A trained network only approximately respects the board's symmetries (:mod:`mine_env.engine.symmetry`):
asking it about every image of the board and averaging its answers (each moved back) cancels part of its
errors, at the cost of one batched forward pass.

A distilled network's scores are safety logits (``sigmoid(score)`` is its chance that the cell is safe): those
are averaged as chances, not as logits. A mean of logits lets one overconfident image outvote the rest (seven
images sure a cell is safe, at logit +14, and one that gives it a 30% mine chance still average to +12), while
the mean chance keeps the doubt; on the first 2,000 games of intermediate-opening-10k the shipped network won 23
more games that way (docs/RESULTS.md). Other policies' scores (Q-values, action logits) are averaged as they
are.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mine_env.engine.symmetry import board_symmetries


def averaged_scores(
    scores_of: Callable[[np.ndarray], np.ndarray], grid: np.ndarray, count: int, safety_logits: bool = False
) -> np.ndarray:
    """Per-cell scores (rows * cols,) of ``grid`` averaged over ``count`` symmetries.

    ``scores_of`` maps a batch of grids (count, rows, cols) to their scores (count, rows * cols) in one call.
    With ``safety_logits`` the scores are averaged as chances (``sigmoid``) and the logit of the mean chance is
    returned.
    """
    rows, cols = grid.shape
    symmetries = board_symmetries(count, rows, cols)
    batch = np.stack([np.ascontiguousarray(forward(grid)) for forward, _ in symmetries])
    scores = scores_of(batch).reshape(batch.shape).astype(np.float64)
    images = np.stack([inverse(score) for (_, inverse), score in zip(symmetries, scores, strict=True)])
    if not safety_logits:
        return images.mean(axis=0).ravel()
    return mean_chance_logit(images).ravel()


def mean_chance_logit(logits: np.ndarray) -> np.ndarray:
    """The logit of the mean of ``sigmoid(logits)`` over the first axis, computed in log space so that logits
    of a cell that every image is sure of (beyond +-40) keep their order instead of rounding to 1 or 0."""
    log_chance = np.logaddexp.reduce(-np.logaddexp(0.0, -logits), axis=0) - np.log(len(logits))
    log_doubt = np.logaddexp.reduce(-np.logaddexp(0.0, logits), axis=0) - np.log(len(logits))
    return log_chance - log_doubt

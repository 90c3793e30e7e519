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

from mine_env.engine.constants import HIDDEN
from mine_env.engine.symmetry import Transform, board_symmetries

Scorer = Callable[[np.ndarray], np.ndarray]
"""Maps a batch of grids (N, rows, cols) to their per-cell scores (N, rows * cols) in one call."""


def averaged_scores(scores_of: Scorer, grid: np.ndarray, count: int, first: np.ndarray | None = None) -> np.ndarray:
    """Per-cell scores (rows * cols,) of ``grid`` averaged over ``count`` symmetries.

    ``first``: the scores of the board as it is (the first symmetry, the identity), when already computed; the
    other images then go through ``scores_of`` in one batch without it.
    """
    firsts = None if first is None else first.reshape(1, -1)
    return averaged_batch_scores(scores_of, grid[None], count, firsts)[0]


def averaged_batch_scores(scores_of: Scorer, grids: np.ndarray, count: int,
                          first: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """The scores (N, cells) of ``grids`` (N, rows, cols) averaged over ``count`` symmetries, each moved back.

    ``first``: the scores (N, cells) of the grids as they are, when already computed. Every image asked goes
    through ``scores_of`` in one call.
    """
    n, rows, cols = grids.shape
    symmetries = board_symmetries(count, rows, cols)
    asked = symmetries if first is None else symmetries[1:]
    images = [np.ascontiguousarray(forward(grids)) for forward, _ in asked]
    parts = np.split(np.asarray(scores_of(np.concatenate(images))), len(images))
    moved_back = [inverse(part.reshape(image.shape)).reshape(n, -1) for (_, inverse), part, image in
                  zip(asked, parts, images, strict=True)]  # fmt: skip
    averaged = np.mean(moved_back if first is None else [first, *moved_back], axis=0)
    return tie_symmetric_cells(averaged, grids, symmetries)


def tie_symmetric_cells(scores: np.ndarray, grids: np.ndarray,
                        symmetries: tuple[tuple[Transform, Transform], ...]) -> np.ndarray:  # fmt: skip
    """``scores`` (N, cells) of ``grids`` (N, rows, cols) with the cells that a grid's own symmetry makes equal made
    bit-equal.

    Averaged over the symmetries, the cells that one of them maps onto each other on a grid it leaves unchanged (the
    untouched board's corners) tie exactly in exact arithmetic, but the float rounding of the network's pass differs
    with the batch's size and the machine, so the tie broke one way per game and another per batch. Such a grid's
    scores are averaged once more over the symmetries that leave it unchanged, each cell's terms summed in sorted
    order: equal cells get the very same score, and an argmax among them picks the same cell however the batch ran.
    """
    rows, cols = grids.shape[1:]
    others = [forward for forward, _ in symmetries[1:]]
    fixing = np.array([(forward(grids) == grids).all(axis=(1, 2)) for forward in others]).reshape(len(others), -1)
    for index in np.flatnonzero(fixing.any(axis=0)):  # few grids: the symmetric ones
        board = scores[index].reshape(rows, cols)
        images = [forward(board) for forward, fixes in zip(others, fixing[:, index], strict=True) if fixes]
        scores[index] = np.sort(np.stack([board, *images]), axis=0).mean(axis=0).reshape(-1)
    return scores


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
    rounding (the first image goes through the network apart); the cells the grid's own symmetry makes equal stay
    equal (:func:`tie_symmetric_cells`).
    """
    first = scores_of(grid[None])[0]
    if is_sure(first, valid, sure):
        return first
    return averaged_scores(scores_of, grid, count, first)


def gated_batch_scorer(scores_of: Scorer, count: int, sure: float = 0.0) -> Scorer:
    """``scores_of`` over a batch of grids, each grid's scores gated as :func:`gated_scores` gates one grid.

    The batch goes through the network as it is; the grids whose best hidden cell is not sure (:func:`is_sure`;
    every grid when ``sure`` is 0) have their other ``count`` - 1 images asked in one more call, and their scores
    averaged with the first (:func:`averaged_batch_scores`). The hidden cells are the valid ones (grids without
    flag actions). Two calls at most, however many games.
    """
    if count == 1:
        return scores_of

    def scores(grids: np.ndarray) -> np.ndarray:
        first = np.array(scores_of(grids))
        hidden = grids.reshape(len(grids), -1) == HIDDEN
        unsure = np.flatnonzero(~is_sure(first, hidden, sure)) if sure else np.arange(len(grids))
        if unsure.size:
            first[unsure] = averaged_batch_scores(scores_of, grids[unsure], count, first[unsure])
        return first

    return scores

"""Marks: the mines a network is sure of, kept by the player and shown to the network as flags.

A network that reads only the numbers must find every mine again at every move, within its receptive field. A
player that marks the cells the network gives a mine chance above a threshold, and shows them to it as flags on
the next move, keeps what it has found: the board becomes the network's memory, and each move's reasoning
starts from the last one's. The env is not told (no flag actions): the marks live in the player.

A network plays with marks only when trained on positions that show them (``--mark-above`` of
:mod:`train.distill.stream`, and of PPO and MaskablePPO, :mod:`train.sb3.marks`); its card then says the threshold
it plays with.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mine_env.engine.constants import FLAG, HIDDEN


def sure_logit(mark_above: float) -> float:
    """The safety logit below which a cell's mine chance ``sigmoid(-logit)`` is above ``mark_above``."""
    if not 0.5 < mark_above < 1.0:
        raise ValueError(f"a mark threshold is a mine chance between 0.5 and 1, got {mark_above:g}")
    return -float(np.log(mark_above / (1.0 - mark_above)))


def mark_cells(scores: np.ndarray, hidden: np.ndarray, marks: np.ndarray,
               mark_above: float) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Add the hidden cells whose safety logits ``scores`` (N, cells) say a mine chance above ``mark_above`` to
    ``marks`` (bool, N x cells); returns the marks and the cells left to reveal: hidden and unmarked, or every
    hidden cell of a board whose hidden cells are all marked (a player must still move)."""
    marks = marks | (hidden & (scores < sure_logit(mark_above)))
    playable = hidden & ~marks
    stuck = ~playable.any(axis=1)
    playable[stuck] = hidden[stuck]
    return marks, playable


def show_marks(grids: np.ndarray, marks: np.ndarray) -> np.ndarray:
    """The grids (N, rows, cols) with the marked hidden cells (``marks``: N x cells) shown as flags."""
    flat = grids.reshape(len(grids), -1)
    return np.where(marks & (flat == HIDDEN), np.int8(FLAG), flat).reshape(grids.shape)


def score_marked(scorer: Callable[[np.ndarray], np.ndarray], grids: np.ndarray, marks: np.ndarray,
                 mark_above: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """One move's reading of a batch of grids (N, rows, cols) by a player with marks: the safety logits ``scorer``
    gives the grids with their ``marks`` shown, the marks with the newly sure cells added, and the cells left to
    reveal (see :func:`mark_cells`)."""
    scores = np.asarray(scorer(show_marks(grids, marks)), dtype=np.float64)
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    marks, playable = mark_cells(scores, hidden, marks, mark_above)
    return scores, marks, playable

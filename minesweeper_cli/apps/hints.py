"""The solver's mine chances as the play apps show them: which cells get a hint, and how a chance reads.

The terminal game and the window share these rules, so a position reads alike in both: hints sit on the
hidden cells next to a revealed number (the frontier), every other hidden cell shares one chance, and a chance
reads ``0%`` or ``100%`` only when it is certain.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

import numpy as np

from mine_env.engine.constants import FLAG, HIDDEN


class Hint(Enum):
    """What a mine chance says about its cell: certainly safe, maybe a mine, or certainly a mine."""

    SAFE = "safe"
    UNCERTAIN = "uncertain"
    MINE = "mine"


SAMPLE_CHANCE = 0.33
"""The mine chance the legends show as their example of an uncertain cell."""


class FrontierHints(NamedTuple):
    """The mine chances worth showing for one position.

    Attributes:
        chances: The chance of every hidden frontier cell, NaN on every other cell (flags included).
        elsewhere: The chance shared by every hidden cell off the frontier; None if there is none.
    """

    chances: np.ndarray
    elsewhere: float | None


def percent(chance: float) -> str:
    """A mine chance as a whole percentage: ``0%`` and ``100%`` only when certain, else between 1% and 99%."""
    if chance in (0.0, 1.0):
        return f"{chance:.0%}"
    return f"{min(max(round(chance * 100), 1), 99)}%"


def hint_kind(chance: float) -> Hint:
    """What a mine chance says about its cell: only 0 is safe and only 1 a mine."""
    if chance == 0.0:
        return Hint.SAFE
    if chance == 1.0:
        return Hint.MINE
    return Hint.UNCERTAIN


def frontier(grid: np.ndarray) -> np.ndarray:
    """Unrevealed cells (hidden or flagged) next to a revealed number: where the numbers give evidence."""
    revealed = np.pad(grid >= 0, 1)
    rows, cols = grid.shape
    near = np.zeros((rows, cols), dtype=bool)
    for dr in (0, 1, 2):
        for dc in (0, 1, 2):
            near |= revealed[dr : dr + rows, dc : dc + cols]
    return near & ((grid == HIDDEN) | (grid == FLAG))


def frontier_hints(grid: np.ndarray, probabilities: np.ndarray) -> FrontierHints:
    """The hints of a position: the chances of its hidden frontier cells and the one chance of the others.

    Args:
        grid: What the player sees.
        probabilities: The mine chance of every cell (see :func:`mine_env.analysis.probability.mine_probabilities`).
    """
    hidden = grid == HIDDEN
    on_frontier = frontier(grid) & hidden
    elsewhere = hidden & ~on_frontier
    chances = np.where(on_frontier, probabilities, np.nan)
    return FrontierHints(chances, float(probabilities[elsewhere][0]) if elsewhere.any() else None)

"""The oracle's judgement of a move: was it a guess, how risky, could a certainly safe cell have been taken?

One definition for everything that judges moves with the exact count of :mod:`mine_env.analysis.probability`
(flags are not trusted): the evaluation's per-game metrics (guesses, excess risk, avoidable losses) and the
opt-in env wrappers of :mod:`agents.wrappers`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mine_env.analysis.probability import safe_cells_and_probabilities
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import block


class MoveJudgement(NamedTuple):
    """What the oracle says of one valid move.

    Attributes:
        guess: The move could open a mine: a hidden cell that was not certainly safe, or a chord that opens
            one.
        risk: The mine chance of the revealed cell (for a chord, the largest chance among the hidden cells
            it opens: a lower bound of its risk).
        excess_risk: ``risk`` minus the lowest mine chance among the cells that could be revealed (0.0 for
            the safest choice and for any move that is no guess).
        safe_existed: A certainly safe cell was hidden when the move was made.
    """

    guess: bool
    risk: float
    excess_risk: float
    safe_existed: bool

    @property
    def avoidable(self) -> bool:
        """A guess taken while a certainly safe cell was there to take."""
        return self.guess and self.safe_existed


class OracleView:
    """The exact count of one position: its certainly safe cells and mine probabilities, flat.

    Args:
        grid: The position, an observation grid (rows, cols).
        safe: Certainly safe cells, bool (rows, cols).
        probabilities: Mine probability of every cell, float64 (rows, cols).
    """

    def __init__(self, grid: np.ndarray, safe: np.ndarray, probabilities: np.ndarray) -> None:
        self.grid = grid
        self.safe = safe.ravel()
        self.probabilities = probabilities.ravel()

    @classmethod
    def of(cls, grid: np.ndarray, mines: int) -> OracleView:
        """Count ``grid`` with ``mines`` mines in all (flags are not trusted)."""
        safe, probabilities = safe_cells_and_probabilities(grid, mines)
        return cls(grid, safe, probabilities)

    @property
    def safe_exists(self) -> bool:
        """Whether some hidden cell is certainly safe."""
        return bool(self.safe.any())

    def judge(self, action: int, revealable: np.ndarray) -> MoveJudgement:
        """Judge the valid reveal (or chord) ``action`` played in this position.

        Args:
            action: A reveal action, ``0 <= action < rows * cols``, valid in this position.
            revealable: The position's action mask (its first ``rows * cols`` entries are the reveals).
        """
        if self.grid.flat[action] < 0:  # a covered cell: the move opens it
            guess = not self.safe[action]
            risk = float(self.probabilities[action])
        else:  # a chord on a number: it opens the hidden cells around it
            opened = self._chord_opens(action)
            guess = not bool(self.safe[opened].all())
            risk = float(self.probabilities[opened].max(initial=0.0))
        if not guess:
            return MoveJudgement(False, risk, 0.0, self.safe_exists)
        lowest = self.probabilities[revealable[: self.probabilities.size].astype(bool)].min(initial=risk)
        return MoveJudgement(True, risk, float(risk - lowest), self.safe_exists)

    def _chord_opens(self, action: int) -> np.ndarray:
        """The hidden cells around the number at ``action`` (flagged ones stay shut)."""
        rows, cols = self.grid.shape
        r0, r1, c0, c1 = block(*divmod(action, cols), rows, cols)
        window = np.add.outer(np.arange(r0, r1) * cols, np.arange(c0, c1)).ravel()
        return window[self.grid.flat[window] == HIDDEN]

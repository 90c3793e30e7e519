"""The ``standard`` solver policy in plain Python on top of :func:`mine_env.analysis.probability.analyse`.

:class:`agents.solver.SolverAgent` plays in compiled code (:mod:`agents.solver.guess`); this readable version
of its ``standard`` strength is what the tests check the compiled one against. Policy, move by move:

1. first click (nothing revealed yet): the best cell for the rule in force (see :func:`first_click_cell`);
2. any certainly safe cell (exact counting, so never a mine);
3. otherwise a guess among the safest cells (within a relative ``tie_tolerance`` of the lowest mine
   probability), preferring the one whose revealed number most likely gives certain progress (at least one
   new certainly safe cell), then a seeded uniform choice.

Certain-safe cells found by one analysis stay safe for the rest of the game, so they are played in order
without re-counting (:class:`agents.solver.PlannedMovesAgent`, shared with the compiled solver).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.solver.agent import PlannedMovesAgent
from mine_env.analysis.probability import BoardAnalysis, analyse
from mine_env.engine.rules import neighbour_counts


def progress_chance(analysis: BoardAnalysis, cell: tuple[int, int]) -> float:
    """Probability that revealing ``cell`` is safe and yields at least one certainly safe cell.

    Each number the cell may show is added as a constraint and the position re-counted exactly.
    """
    distribution, outcomes = analysis.reveal_outcomes(cell)
    return float(
        sum(
            p
            for p, outcome in zip(distribution, outcomes, strict=True)
            if outcome is not None and outcome.certain_safe.any()
        )
    )


class ReferenceSolver(PlannedMovesAgent):
    """Plays the ``standard`` policy with exact mine probabilities, in plain Python.

    Args:
        seed: seed of the agent's own ``np.random.Generator``, used for the last tie-break.
        tie_tolerance: cells whose mine probability is within this relative distance of the lowest count as
            equally safe.
        max_tie_candidates: at most this many of the equally safe cells get the (costlier) progress
            evaluation; when there are more, those with the fewest hidden neighbours (the likeliest to show
            a 0) are kept.
    """

    name = "solver-reference"

    def __init__(self, seed: int | None = None, *, tie_tolerance: float = 1e-9, max_tie_candidates: int = 12) -> None:
        self._rng = np.random.default_rng(seed)
        self.tie_tolerance = tie_tolerance
        self.max_tie_candidates = max_tie_candidates
        self.reset()

    def plan(self, obs: np.ndarray, info: dict[str, Any], valid: np.ndarray) -> list[int]:
        """Every certainly safe valid cell in increasing order, or else the guess."""
        analysis = analyse(obs, int(info["mines"]))
        valid_mask = np.zeros(obs.size, bool)
        valid_mask[valid] = True
        safe = np.flatnonzero(analysis.certain_safe.ravel() & valid_mask)
        return safe.tolist() if safe.size else [self.choose_guess(analysis, valid)]

    def choose_guess(self, analysis: BoardAnalysis, valid: np.ndarray) -> int:
        """The guess when no valid cell is certainly safe: safest, then most progress, then seeded."""
        probabilities = analysis.probabilities.ravel()[valid]
        lowest = probabilities.min()
        tied = valid[probabilities <= lowest * (1.0 + self.tie_tolerance)]
        if tied.size == 1:
            return int(tied[0])
        candidates = self._shortlist(analysis, tied)
        cols = analysis.grid.shape[1]
        chances = np.array([progress_chance(analysis, divmod(int(cell), cols)) for cell in candidates])
        best = candidates[chances >= chances.max() * (1.0 - self.tie_tolerance)]
        return int(self._rng.choice(best))

    def _shortlist(self, analysis: BoardAnalysis, tied: np.ndarray) -> np.ndarray:
        """At most ``max_tie_candidates`` of the tied cells, fewest hidden neighbours first (seeded order)."""
        if tied.size <= self.max_tie_candidates:
            return tied
        around = neighbour_counts(analysis.hidden).ravel()
        shuffled = self._rng.permutation(tied)
        order = np.argsort(around[shuffled], kind="stable")
        return shuffled[order[: self.max_tie_candidates]]

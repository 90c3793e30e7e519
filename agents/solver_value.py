"""The solver-value agent: the default solver, its guess chosen among its own candidates by a value learnt from
returns.

Where ``strong`` weighs two or more candidates (the cells within its margin of the safest, at most twelve:
:func:`agents.solver.guess.strong_shortlist`) it ranks them by a hand-made score of what each leads to. Here a
head learnt by reinforcement from the returns of ``strong``'s own play-outs
(:func:`train.distill.guess.returns.rollout_shortlist`: each candidate revealed on a copy of the game and played
on by ``strong`` to its end) scores each candidate by the chance its game is won once it is safe; the agent plays
the candidate of highest chance of being safe times that value: one step of policy iteration over the solver.
Everything else (certainly safe cells, the endgame search, forced 50/50s) is ``strong``'s.

The head reads what :class:`agents.guess_value.ValueHead` reads (the 7x7 neighbourhood, the mine chance, density
and hidden share) and, per candidate, what ``strong`` sees in it (:func:`solver_scalars`), so it can learn where
the solver's score is wrong rather than relearn it. It runs in numpy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.guess_value import FEATURES, ValueHead, candidate_features
from agents.solver.agent import SolverAgent
from agents.solver.guess import strong_shortlist

SOLVER_SCALARS = 5
"""What ``strong`` sees in a candidate, as columns: its score, the score over the best candidate's, its progress
chance, whether it is alive (not a dead cell) and whether ``strong`` rates it best."""
SHORTLIST_FEATURES = FEATURES + SOLVER_SCALARS
"""The length of one candidate's feature row: :func:`agents.guess_value.candidate_features` and the solver's."""


def solver_scalars(scores: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """float32 (m, :data:`SOLVER_SCALARS`) from ``strong_shortlist``'s ``scores`` (3, m: alive, score, progress)
    and ``keep`` (m,)."""
    best = scores[1].max()
    columns = (scores[1], scores[1] / best if best > 0 else np.zeros_like(scores[1]), scores[2], scores[0], keep)
    return np.stack(columns, axis=1).astype(np.float32)


def shortlist_features(grid: np.ndarray, cells: np.ndarray, chances: np.ndarray, mines: int,
                       scalars: np.ndarray) -> np.ndarray:  # fmt: skip
    """float32 (len(cells), :data:`SHORTLIST_FEATURES`): each candidate's neighbourhood features, then the solver's
    ``scalars`` (:func:`solver_scalars`)."""
    return np.concatenate([candidate_features(grid, cells, chances, mines), scalars], axis=1)


class SolverValueAgent(SolverAgent):
    """``strong``, but where it weighs candidates, the one of highest safety times learnt value.

    Args:
        seed: seed of the solver's random stream (its candidates' tie-breaks; the learnt pick draws nothing).
        head: the value head's ``.npz`` (:data:`SHORTLIST_FEATURES` inputs). None is shipped: none has beaten the
            solver yet (docs/lab/2026-12-05-a-value-over-the-solvers-candidates.md).
        first_cell: (row, col) of the first click; the solver's first cell for the rule by default.
    """

    name = "solver-value"

    def __init__(self, seed: int | None = None, head: str | Path | None = None,
                 first_cell: tuple[int, int] | None = None) -> None:  # fmt: skip
        if head is None:
            raise ValueError("no solver-value head is shipped: give head=PATH, one trained by `python -m "
                             "train.distill.guess.value --player solver`")  # fmt: skip
        super().__init__(seed, first_cell=first_cell)
        self.head = ValueHead.load(head, SHORTLIST_FEATURES)

    def guess(self, flat: np.ndarray, rows: int, cols: int, mines: int, probability: np.ndarray,
              log_layouts: float) -> int:  # fmt: skip
        decided, candidates, scores, keep, state = strong_shortlist(
            flat, rows, cols, mines, probability, log_layouts, self.settings, self._state
        )
        self._state = np.uint64(state)
        if decided >= 0:
            return int(decided)
        features = shortlist_features(flat.reshape(rows, cols), candidates, probability[candidates], mines,
                                      solver_scalars(scores, keep))  # fmt: skip
        values = (1.0 - probability[candidates]) / (1.0 + np.exp(-self.head.logits(features)))
        return int(candidates[int(np.argmax(values))])

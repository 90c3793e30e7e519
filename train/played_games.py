"""How a network plays a fixed set of games: the share won, and the share of safe cells revealed.

Every method judges its networks so (:mod:`train.sb3.evaluation` its policies, :mod:`train.distill` its plain
networks): board i plays game ``seed + i`` on the batched engine, and the best valid cell by the network's scores
is played, so a network is judged on valid moves only, the way ``eval/`` plays models.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from agents.marks import score_marked
from mine_env.engine.batch import BatchEngine
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec

Scores = Callable[[np.ndarray], np.ndarray]
"""Per-action scores (N, n_actions) of a batch of grids (N, rows, cols): logits, Q-values, safety logits."""


class PolicyEvaluation(NamedTuple):
    """How a policy played a fixed set of games: the share won, the mean share of each board's safe cells it had
    revealed when its game ended (1.0 for a win) and, played with marks, the share of games in which a mark fell on
    a safe cell (such a game is almost surely lost: the cell is not played while another is hidden)."""

    win_rate: float
    safe_fraction: float
    wrong_mark_games: float | None = None

    def beats(self, other: PolicyEvaluation) -> bool:
        """More games won, then more safe cells revealed."""
        return (self.win_rate, self.safe_fraction) > (other.win_rate, other.safe_fraction)

    def record(self) -> dict[str, float]:
        """The measured fields by name (the wrong marks only where marks were played)."""
        return {name: value for name, value in self._asdict().items() if value is not None}


def play_games(scores: Scores, spec: BoardSpec, games: int, seed: int, mark_above: float = 0.0) -> PolicyEvaluation:
    """Play the masked greedy choice of ``scores`` on ``games`` boards, board i game ``seed + i``; with
    ``mark_above``, as a player with marks does (:mod:`agents.marks`)."""
    engine = BatchEngine(spec, games)
    engine.reset(seed)
    finished = np.zeros(games, dtype=bool)
    won = np.zeros(games, dtype=bool)
    safe_revealed = np.zeros(games, dtype=np.int64)
    marks = np.zeros((games, spec.n_cells), dtype=bool)
    wrong_mark = np.zeros(games, dtype=bool)
    while not finished.all():
        grids, valid = engine.grids(), engine.action_masks()
        if mark_above:
            marks[finished] = False
            values, marks, playable = score_marked(scores, grids, marks, mark_above)
            valid = valid & playable
            mines, placed = engine.layouts()
            wrong_mark |= (marks & (mines == 0)).any(axis=1) & placed & ~finished
        else:
            values = scores(grids)
        actions = np.where(valid, values, -np.inf).argmax(axis=1)
        out = engine.step(actions)
        ended = (out.terminated | out.truncated) & ~finished
        won[ended] = out.success[ended]
        safe_revealed[ended] = (out.final_obs[ended] > HIDDEN).sum(axis=1)
        finished |= ended
    n_safe = spec.rows * spec.cols - spec.mines
    wrong_marks = float(wrong_mark.mean()) if mark_above else None
    return PolicyEvaluation(float(won.mean()), float(safe_revealed.mean() / n_safe), wrong_marks)

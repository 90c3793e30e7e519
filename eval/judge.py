"""The oracle metrics of one game (guesses, excess risk, an avoidable loss), tallied move by move.

The judgement of each move is :mod:`agents.oracle`'s; this module only says which moves are judged and
how a game's moves add up to the metrics of :class:`eval.metrics.GameRecord`.
"""

from __future__ import annotations

from agents.episode import Move
from agents.oracle import OracleView


class OracleTally:
    """A :data:`agents.episode.MoveObserver` that judges every valid move of one game with the exact oracle.

    The oracle knows the numbers on the board, not the first-click rule, so a first click that the rule
    makes safe is not judged (nothing is revealed yet: it would look like a guess).

    Args:
        mines: The board's mines.
        rule_protects_first: Whether the first-click rule makes the first click safe.
    """

    def __init__(self, mines: int, rule_protects_first: bool) -> None:
        self.mines = mines
        self.rule_protects_first = rule_protects_first
        self.guesses = 0
        self.excess_risk = 0.0
        self.avoidable_loss = False

    def __call__(self, move: Move) -> None:
        """Count the move as a guess unless the cell was certainly safe; a lost guess beside a safe cell
        was an avoidable loss."""
        if not move.valid or (self.rule_protects_first and move.info["revealed"] == 0):
            return
        judgement = OracleView.of(move.obs, self.mines).judge(move.action, move.info["action_mask"])
        if not judgement.guess:
            return
        self.guesses += 1
        self.excess_risk += judgement.excess_risk
        self.avoidable_loss = move.lost and judgement.avoidable

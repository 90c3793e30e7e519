"""The oracle's grade of every move of a text game, the game's logic score, and the reward schemes.

Each reveal (a chord included) is judged by :class:`agents.oracle.OracleView`, the one judge of the evaluation
(:mod:`eval.judge`), on the exact mine probabilities of the position it was played in (flags not trusted):

- ``safe_available``: a certainly safe hidden cell was there to reveal;
- ``mine_chance``: the chosen cell's exact mine chance (a chord: the largest among the cells it opens);
- ``safest_chance``: the lowest mine chance among the cells the agent could have revealed;
- ``avoidable_risk``: ``mine_chance - safest_chance`` for a guess, else 0: the risk taken beyond the least
  needed. A move with ``avoidable_risk == 0`` is a *logical* move: a certainly safe cell, or, when none
  existed, a safest guess.

The first reveal under the ``safe`` and ``opening`` rules is safe by the rule, so it is graded safe (chance 0)
without asking the oracle, which does not know the rule; :mod:`eval.judge` leaves it out the same way.
A flag put on a hidden cell is graded too (:func:`grade_flag`): a flag on a cell the oracle knows is safe is a
**wrong flag**, an error (a flag on a certain mine, or on a cell that may hold one, is none; taking a flag off
is not graded).

The game's **logic score** is the share of its graded decisions without an error: reveals that took no
avoidable risk, over the graded reveals plus the wrong flags (so flagging right changes nothing, and a wrong
flag counts as one more error); on a no-guess board every reveal can be certainly safe, and a loss there is
always a logic error.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import numpy as np

from agents.oracle import OracleView

RISK_TOLERANCE = 1e-9
"""An avoidable risk at or below this is none (the probabilities are floats)."""


class MoveGrade(NamedTuple):
    """The oracle's grade of one reveal (see the module docstring)."""

    safe_available: bool
    mine_chance: float
    safest_chance: float
    avoidable_risk: float
    guess: bool

    @property
    def logical(self) -> bool:
        """No avoidable risk: a certainly safe cell, or a safest guess when none was safe."""
        return self.avoidable_risk <= RISK_TOLERANCE

    def to_info(self) -> dict[str, Any]:
        """The grade as plain JSON values for ``info["oracle"]``."""
        return {**self._asdict(), "logical": self.logical}


SAFE_BY_RULE = MoveGrade(safe_available=True, mine_chance=0.0, safest_chance=0.0, avoidable_risk=0.0, guess=False)
"""The grade of a first reveal that the first-click rule keeps free of mines."""


class FlagGrade(NamedTuple):
    """The oracle's grade of one flag put on a hidden cell: its exact mine chance, and whether it is wrong."""

    mine_chance: float

    @property
    def wrong(self) -> bool:
        """The cell is certainly safe: the flag is an error."""
        return self.mine_chance <= RISK_TOLERANCE

    def to_info(self) -> dict[str, Any]:
        """The grade as plain JSON values for ``info["oracle"]``."""
        return {"mine_chance": self.mine_chance, "wrong_flag": self.wrong}


def grade_flag(grid: np.ndarray, mines: int, cell: int) -> FlagGrade:
    """Grade a flag put on the hidden cell ``cell`` (a flat index) in the position ``grid``.

    Before the first reveal no cell is known safe (a first-click rule protects the cell the first reveal picks,
    whichever it is), so the oracle's count of the untouched board is the grade then too.
    """
    return FlagGrade(float(OracleView.of(grid, mines).probabilities[cell]))


def grade_reveal(grid: np.ndarray, mines: int, action: int, mask: np.ndarray, protected_first: bool) -> MoveGrade:
    """Grade the valid reveal ``action`` (a flat cell index) in the position ``grid``.

    Args:
        grid: The position the move was played in, int8 (rows, cols).
        mines: Mines on the board.
        action: The flat index of the cell revealed (or of the number chorded).
        mask: The position's action mask (its first ``rows * cols`` entries are the reveals).
        protected_first: The first-click rule keeps the first reveal free of mines.
    """
    if protected_first and not bool((grid >= 0).any()):
        return SAFE_BY_RULE
    judgement = OracleView.of(grid, mines).judge(action, mask)
    safest = judgement.risk - judgement.excess_risk if judgement.guess else 0.0
    return MoveGrade(judgement.safe_existed, judgement.risk, safest, judgement.excess_risk, judgement.guess)


@dataclass
class GameTally:
    """How one text game went so far, move by move: the per-game half of the grading.

    Attributes:
        replies: Replies received (every step).
        invalid_replies: Replies that changed nothing (no move in them, or a move that is not possible now).
        graded_moves: Reveals graded by the oracle.
        logical_moves: Graded moves with no avoidable risk.
        guesses: Graded moves on a cell that was not certainly safe.
        avoidable_risk: The avoidable risk summed over the graded moves.
        safe_missed: Graded moves that guessed while a certainly safe cell was there.
        avoidable_loss: The game was lost on a guess while a certainly safe cell was there.
        flags_graded: Flags put on hidden cells and graded.
        wrong_flags: Graded flags on cells the oracle knew were safe.
    """

    replies: int = 0
    invalid_replies: int = 0
    graded_moves: int = 0
    logical_moves: int = 0
    guesses: int = 0
    avoidable_risk: float = 0.0
    safe_missed: int = 0
    avoidable_loss: bool = False
    flags_graded: int = 0
    wrong_flags: int = 0

    def add_flag(self, grade: FlagGrade) -> None:
        """Count one graded flag."""
        self.flags_graded += 1
        self.wrong_flags += grade.wrong

    def add(self, grade: MoveGrade, lost: bool) -> None:
        """Count one graded move (``lost``: it revealed a mine)."""
        self.graded_moves += 1
        self.logical_moves += grade.logical
        self.guesses += grade.guess
        self.avoidable_risk += grade.avoidable_risk
        missed = grade.guess and grade.safe_available
        self.safe_missed += missed
        self.avoidable_loss = self.avoidable_loss or (lost and missed)

    @property
    def logic_score(self) -> float | None:
        """The share of graded decisions without an error: logical reveals over graded reveals plus wrong flags
        (None before any)."""
        decisions = self.graded_moves + self.wrong_flags
        return self.logical_moves / decisions if decisions else None

    def to_info(self) -> dict[str, Any]:
        """The tally as plain JSON values for ``info["game"]``."""
        return {**asdict(self), "logic_score": self.logic_score}


@dataclass(frozen=True)
class TextRewards:
    """What a step of the text env pays.

    Attributes:
        win: Paid on the move that wins.
        loss: Paid on the move that reveals a mine.
        safe_move: Paid on each reveal of a certainly safe cell (the oracle's grade; 0 in the sparse scheme).
        avoidable_risk: Multiplies the move's avoidable risk (in 0..1) and is paid with it, so a negative value
            is a penalty (0 in the sparse scheme).
        invalid: Paid on a reply that changes nothing.
        wrong_flag: Paid on a flag put on a cell the oracle knows is safe (0 in the sparse scheme).
    """

    win: float = 1.0
    loss: float = -1.0
    safe_move: float = 0.0
    avoidable_risk: float = 0.0
    invalid: float = 0.0
    wrong_flag: float = 0.0

    def pay(self, grade: MoveGrade | None, won: bool, lost: bool, invalid: bool, wrong_flag: bool = False) -> float:
        """The reward of one step."""
        reward = (self.invalid if invalid else 0.0) + (self.wrong_flag if wrong_flag else 0.0)
        if grade is not None:
            reward += self.safe_move * (not grade.guess) + self.avoidable_risk * grade.avoidable_risk
        return reward + self.win * won + self.loss * lost


REWARD_SCHEMES: dict[str, TextRewards] = {
    "sparse": TextRewards(),
    "dense": TextRewards(safe_move=0.1, avoidable_risk=-1.0, invalid=-0.1, wrong_flag=-0.1),
}
"""``sparse``: +1 a win, -1 a loss, 0 otherwise. ``dense``: the same, plus 0.1 for each certainly safe reveal,
minus the avoidable risk of each move (a 30% cell taken beside a certainly safe one: -0.3), and -0.1 for a
reply that changes nothing or a flag on a cell the oracle knows is safe. Other flags pay 0 in both, so no
reward can be farmed."""


def resolve_rewards(reward: str | TextRewards | dict[str, float]) -> TextRewards:
    """A scheme by name, a :class:`TextRewards`, or a dict of its fields; ValueError naming the choices."""
    if isinstance(reward, TextRewards):
        return reward
    if isinstance(reward, str):
        if reward not in REWARD_SCHEMES:
            raise ValueError(f"unknown reward scheme {reward!r}; expected one of {', '.join(REWARD_SCHEMES)}")
        return REWARD_SCHEMES[reward]
    if isinstance(reward, dict):
        try:
            return TextRewards(**reward)
        except TypeError:
            raise ValueError(
                f"unknown reward field in {sorted(reward)}; expected win, loss, safe_move, avoidable_risk, invalid, "
                "wrong_flag"
            ) from None
    raise ValueError(f"reward must be 'sparse', 'dense', a TextRewards or a dict, got {type(reward).__name__}")

"""The oracle metrics of a game, tallied move by move: which moves are judged and how they add up."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.episode import Move
from eval.judge import OracleTally
from mine_env.engine.constants import HIDDEN
from support import grid_from_rows

# (0,1) and (0,2) are certainly safe, (0,0) and (0,3) certainly mines: (1,0) sees one mine among (0,0) and
# (0,1); (1,1) and (1,2) one each among three hidden cells; (1,3) one among (0,2) and (0,3).
TWO_SAFE = ("mines: 2", ". . . .", "1 1 1 1", "0 0 0 0")
# One mine in two cells no number tells apart: a forced 50/50.
FIFTY_FIFTY = ("mines: 1", ". .", "1 1")


def move(position: tuple[str, ...], action: int, *, valid: bool = True, lost: bool = False) -> Move:
    """The move ``action`` in a position written as text (first line ``mines: N``)."""
    grid = grid_from_rows(*position[1:])
    info: dict[str, Any] = {
        "revealed": int(np.count_nonzero(grid >= 0)),
        "action_mask": (grid == HIDDEN).ravel().astype(np.int8),
    }
    return Move(grid, info, action, valid, terminated=lost, won=False)


def mines_of(position: tuple[str, ...]) -> int:
    return int(position[0].removeprefix("mines: "))


def tally_of(position: tuple[str, ...], *moves: Move, protects_first: bool = True) -> OracleTally:
    tally = OracleTally(mines_of(position), protects_first)
    for item in moves:
        tally(item)
    return tally


def test_a_certainly_safe_reveal_is_no_guess() -> None:
    tally = tally_of(TWO_SAFE, move(TWO_SAFE, 1), move(TWO_SAFE, 2))
    assert (tally.guesses, tally.excess_risk, tally.avoidable_loss) == (0, 0.0, False)


def test_a_mine_taken_beside_a_safe_cell_is_an_avoidable_loss_with_all_its_risk_in_excess() -> None:
    tally = tally_of(TWO_SAFE, move(TWO_SAFE, 0, lost=True))
    assert (tally.guesses, tally.excess_risk, tally.avoidable_loss) == (1, 1.0, True)


def test_a_lost_forced_guess_is_not_avoidable_and_has_no_excess_risk() -> None:
    tally = tally_of(FIFTY_FIFTY, move(FIFTY_FIFTY, 1, lost=True))
    assert tally.guesses == 1 and tally.excess_risk == pytest.approx(0.0) and tally.avoidable_loss is False


def test_an_invalid_move_is_not_judged() -> None:
    tally = tally_of(TWO_SAFE, move(TWO_SAFE, 4, valid=False))
    assert (tally.guesses, tally.excess_risk, tally.avoidable_loss) == (0, 0.0, False)


def test_a_first_click_is_judged_only_when_the_rule_does_not_make_it_safe() -> None:
    empty = ("mines: 3", ". . .", ". . .", ". . .")
    assert tally_of(empty, move(empty, 4), protects_first=True).guesses == 0
    unprotected = tally_of(empty, move(empty, 4), protects_first=False)
    assert unprotected.guesses == 1 and unprotected.excess_risk == 0.0  # every cell is as likely a mine

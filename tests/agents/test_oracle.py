"""The oracle's judgement of a move: guess or not, its risk and excess risk, chords, avoidable risks."""

from __future__ import annotations

import numpy as np
import pytest

from agents.oracle import OracleView
from mine_env.engine.constants import FLAG, HIDDEN
from support import grid_from_rows, random_position

# (0,1) and (0,2) certainly safe, (0,0) and (0,3) certainly mines (see tests/eval/test_judge.py).
TWO_SAFE = grid_from_rows(". . . .", "1 1 1 1", "0 0 0 0")
# One mine: (1,0) and (1,2) each need it in the hidden cells they touch, so it is at (0,1), the only one both touch.
ONE_MINE = grid_from_rows(". . .", "1 1 1", "0 0 0")


def revealable(grid: np.ndarray) -> np.ndarray:
    return np.isin(grid, (HIDDEN,)).ravel().astype(np.int8)


def test_a_certainly_safe_cell_is_no_guess_and_a_known_mine_is_all_excess_risk() -> None:
    view = OracleView.of(TWO_SAFE, mines=2)
    assert view.safe_exists and view.safe.tolist()[:4] == [False, True, True, False]
    assert view.judge(1, revealable(TWO_SAFE)) == (False, 0.0, 0.0, True)
    mine = view.judge(0, revealable(TWO_SAFE))
    assert mine == (True, 1.0, 1.0, True) and mine.avoidable


def test_a_forced_guess_is_not_avoidable() -> None:
    grid = grid_from_rows(". .", "1 1")
    judgement = OracleView.of(grid, mines=1).judge(0, revealable(grid))
    assert judgement.guess and judgement.risk == pytest.approx(0.5) and judgement.excess_risk == 0.0
    assert not judgement.safe_existed and not judgement.avoidable


def test_a_chord_risks_the_hidden_cells_it_opens_and_not_the_flagged_ones() -> None:
    chord = 3  # on the 1 at (1,0): it opens (0,0) and (0,1)
    assert OracleView.of(ONE_MINE, mines=1).judge(chord, revealable(ONE_MINE)) == (True, 1.0, 1.0, True)
    flagged = ONE_MINE.copy()
    flagged[0, 1] = FLAG  # the chord now opens (0,0) only, which is safe
    judgement = OracleView.of(flagged, mines=1).judge(chord, revealable(flagged))
    assert not judgement.guess and judgement.risk == 0.0 and not judgement.avoidable


def test_a_reveal_is_a_guess_exactly_when_its_mine_chance_is_above_zero() -> None:
    # The wrappers' avoidable risk (risk > 0 beside a safe cell) and the evaluation's avoidable loss (a guess
    # beside a safe cell) are one judgement because the exact count gives 0.0 to certainly safe cells only.
    rng = np.random.default_rng(5)
    judged = 0
    for _ in range(30):
        _, grid = random_position(rng, 7, 8, 12)
        view = OracleView.of(grid, mines=12)
        for cell in np.flatnonzero(grid.ravel() == HIDDEN):
            judgement = view.judge(int(cell), revealable(grid))
            assert judgement.guess == (judgement.risk > 0.0)
            assert judgement.excess_risk >= 0.0
            judged += 1
    assert judged > 300

"""Marks (agents.marks): the player's record of the mines its network is sure of, shown to it as flags."""

from __future__ import annotations

import numpy as np
import pytest

from agents.marks import mark_cells, show_marks, sure_logit
from mine_env.engine.constants import FLAG, HIDDEN


def test_sure_logit_is_the_chance_threshold() -> None:
    logit = sure_logit(0.99)
    assert 1.0 / (1.0 + np.exp(logit)) == pytest.approx(0.99)  # mine chance sigmoid(-logit)
    for bad in (0.5, 1.0, 0.2):
        with pytest.raises(ValueError, match="mark threshold"):
            sure_logit(bad)


def test_marked_cells_are_shown_as_flags_and_never_played_while_another_is_hidden() -> None:
    grids = np.array([[[HIDDEN, 1], [HIDDEN, HIDDEN]], [[HIDDEN, 2], [2, 2]]], dtype=np.int8)
    hidden = grids.reshape(2, -1) == HIDDEN
    scores = np.array([[-9.0, 5.0, 1.0, 0.5], [-9.0, 5.0, 5.0, 5.0]])  # -9: a mine chance of about 1
    marks, playable = mark_cells(scores, hidden, np.zeros((2, 4), bool), 0.99)
    assert marks.tolist() == [[True, False, False, False], [True, False, False, False]]
    assert playable[0].tolist() == [False, False, True, True]
    assert playable[1].tolist() == [True, False, False, False]  # all hidden cells marked: it must still move
    shown = show_marks(grids, marks)
    assert shown[0, 0, 0] == FLAG and shown[1, 0, 0] == FLAG and (shown[:, 1] == grids[:, 1]).all()
    again, _ = mark_cells(np.zeros((2, 4)), hidden, marks, 0.99)
    assert (again == marks).all()  # a mark stays


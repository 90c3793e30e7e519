"""The hints both play apps show: the frontier, the chance off it, and how a chance reads."""

from __future__ import annotations

import numpy as np
import pytest

from mine_env.engine.constants import FLAG, HIDDEN
from minesweeper_cli.apps.hints import Hint, frontier, frontier_hints, hint_kind, percent

H, F = HIDDEN, FLAG


def test_chances_read_as_percentages_that_say_certain_only_when_certain():
    assert [percent(p) for p in (0.0, 0.001, 0.333, 0.5, 0.999, 1.0)] == ["0%", "1%", "33%", "50%", "99%", "100%"]


@pytest.mark.parametrize(
    ("chance", "kind"),
    [(0.0, Hint.SAFE), (1e-9, Hint.UNCERTAIN), (0.5, Hint.UNCERTAIN), (1 - 1e-9, Hint.UNCERTAIN), (1.0, Hint.MINE)],
)
def test_only_a_certain_chance_is_safe_or_a_mine(chance, kind):
    assert hint_kind(chance) is kind


def test_hints_sit_on_hidden_cells_next_to_numbers_and_the_others_share_one_chance():
    grid = np.array([[0, 1, H, H], [1, 2, F, H], [H, H, H, H]], dtype=np.int8)
    assert frontier(grid).tolist() == [
        [False, False, True, False],
        [False, False, True, False],
        [True, True, True, False],
    ]  # the flag counts as unrevealed, the cells two away do not
    probabilities = np.full(grid.shape, 0.25)
    probabilities[0, 2] = 0.0
    chances, elsewhere = frontier_hints(grid, probabilities)
    shown = ~np.isnan(chances)
    assert shown.tolist() == [
        [False, False, True, False],
        [False, False, False, False],
        [True, True, True, False],
    ]  # no hint on the flag
    assert chances[0, 2] == 0.0 and elsewhere == 0.25


def test_no_hidden_cell_off_the_frontier_leaves_no_shared_chance():
    grid = np.array([[1, H]], dtype=np.int8)
    assert frontier_hints(grid, np.array([[0.0, 1.0]])).elsewhere is None

"""Every outcome of a click counted through the component store: the plain path's floats exactly."""

from __future__ import annotations

import numpy as np

from battle.counting.outcomes import reveal_counts, reveal_counts_stored
from mine_env.analysis.component_store import new_component_store
from mine_env.analysis.counting import count_board
from mine_env.engine.constants import HIDDEN
from support import assert_same_reveal_counts, random_position


def test_reveal_counts_stored_equals_the_plain_path() -> None:
    """Every outcome of every hidden cell, on positions one reveal apart (the store reused between them)."""
    rng = np.random.default_rng(5)
    store = new_component_store(components=6, key_ints=160, sums=64)  # emptied often
    for _ in range(6):
        _, grid = random_position(rng, 8, 8, 12)
        flat = grid.ravel()
        probability = count_board(flat, 8, 8, False, 12).cells.probability
        for cell in np.flatnonzero(flat == HIDDEN):
            expected = reveal_counts(flat, 8, 8, 12, cell, True, True)
            got = reveal_counts_stored(flat, 8, 8, 12, cell, True, True, store, probability)
            assert_same_reveal_counts(got, expected)
    assert store.used[4] > 0  # the small store was emptied on the way, and the counts stayed the same

"""Every number of a click in one dynamic programme: the same floats as counting each number apart."""

from __future__ import annotations

import math

import numpy as np
import pytest

from battle.counting.outcomes import reveal_counts, reveal_counts_stored
from mine_env.analysis.component import count_component, weigh
from mine_env.analysis.component_store import ComponentStore, new_component_store
from mine_env.analysis.counting import count_board
from mine_env.analysis.counting_base import SLOTS
from mine_env.analysis.forward_pass import LocalComponent, forward_pass
from mine_env.analysis.state_table import ROW
from mine_env.engine.constants import HIDDEN
from mine_env.engine.rules import neighbour_counts
from support import assert_same_reveal_counts, chain_board, random_position


def local(sizes: list[int], numbers: list[list[int]], targets: list[int]) -> LocalComponent:
    """A component as the dynamic programme reads it: each box's size and (local) numbers, each number's target."""
    cons = np.zeros((len(sizes), SLOTS), np.int64)
    for q, touching in enumerate(numbers):
        cons[q, : len(touching)] = touching
    n_cons = np.array([len(touching) for touching in numbers], np.int64)
    return LocalComponent(np.array(sizes, np.int64), cons, n_cons, np.array(targets, np.int64))


# Boxes in their order, numbers 0..3 chained through shared boxes (a box of up to 8 cells, up to 3 numbers).
CHAIN = ([2, 3, 1, 3, 8, 2, 4], [[0], [0, 1], [1], [1, 2, 3], [2], [2, 3], [3]], [2, 3, 4, 3])


@pytest.mark.parametrize("open_number", [0, 1, 2, 3])
def test_the_open_programme_gives_each_targets_count(open_number: int) -> None:
    """Each last state of the open programme weighs to what counting with that target gives, bit for bit; a
    target with no last state is one no layout fits."""
    sizes, numbers, targets = CHAIN
    room = sum(size for size, touching in zip(sizes, numbers, strict=True) if open_number in touching)
    high = list(targets)
    high[open_number] = room
    component = local(sizes, numbers, high)
    lows = component.targets.copy()
    lows[open_number] = 0
    forward = forward_pass(component, lows, open_number)
    n_boxes = len(sizes)
    assert forward.fwd_scale[n_boxes] == 0  # small: no cut rescaled
    last = {int(forward.rows[forward.table[s, ROW]]): s
            for s in range(forward.cut_start[n_boxes], forward.cut_start[n_boxes + 1])}  # fmt: skip
    solvable = 0
    for target in range(room + 1):
        alone = list(targets)
        alone[open_number] = target
        expected = count_component(local(sizes, numbers, alone))
        assert (target in last) == expected.solvable
        if target not in last:
            continue
        solvable += 1
        got = weigh(component.sizes, forward, last[target])
        assert (got.lowest, got.log_scale) == (expected.lowest, expected.log_scale)
        np.testing.assert_array_equal(got.weights, expected.weights)
        np.testing.assert_array_equal(got.mine_sums, expected.mine_sums)
        np.testing.assert_array_equal(got.safe_sums, expected.safe_sums)
    assert solvable >= 2  # several targets fit


def tiny_store() -> ComponentStore:
    """A store that fills after a few components, so that it is emptied (and refilled) many times."""
    return new_component_store(components=6, key_ints=160, sums=64)


def assert_every_cell_counts_the_same(grid: np.ndarray, mines: int, store: ComponentStore) -> int:
    """reveal_counts_stored equals the plain path on every hidden cell of ``grid``, bit for bit; returns how many
    cells may show several numbers (what the open programme counts)."""
    rows, cols = grid.shape
    flat = grid.ravel()
    count = count_board(flat, rows, cols, False, mines)
    probability = count.cells.probability
    several = 0
    for cell in np.flatnonzero(flat == HIDDEN):
        expected = reveal_counts(flat, rows, cols, mines, cell, True, True)
        assert_same_reveal_counts(reveal_counts_stored(flat, rows, cols, mines, cell, True, True, store, probability),
                                  expected)  # fmt: skip
        several += int(expected[0][1:].sum()) >= 2
    return several


BATTLE_SEEDS = (0, 1, 2, 3, 4, 6, 10)
"""Seeds of random 16x16/51 positions whose cells the plain path counts in well under a second (a random reveal
can leave a tangle of numbers that takes it many seconds)."""


@pytest.mark.parametrize(("store_maker", "battle_seeds"), [(new_component_store, BATTLE_SEEDS), (tiny_store, (1, 6))])
def test_every_outcome_of_every_cell_is_the_plain_paths(store_maker, battle_seeds: tuple[int, ...]) -> None:  # type: ignore[no-untyped-def]
    """Random positions, small and battle-sized, one store through them all (as an agent keeps one)."""
    rng = np.random.default_rng(2111)
    positions = [(random_position(rng, rows, cols, mines)[1], mines)
                 for rows, cols, mines in [(6, 6, 8), (8, 8, 12), (9, 12, 25)] * 3]  # fmt: skip
    positions += [(random_position(np.random.default_rng(seed), 16, 16, 51)[1], 51) for seed in battle_seeds]
    store = store_maker()
    several = 0
    for grid, mines in positions:
        if count_board(grid.ravel(), grid.shape[0], grid.shape[1], False, mines).status == 0:
            several += assert_every_cell_counts_the_same(grid, mines, store)
    assert several > 50  # the open programme ran on many clicks


def test_a_rescaled_component_is_counted_number_by_number() -> None:
    """A chain of well over 2**100 layouts: the open programme's cuts are rescaled, so each number is counted
    apart (with the plain path's floats all the same)."""
    rng = np.random.default_rng(3)
    grid = chain_board([0] * 60)
    layout = (rng.random(grid.shape) < 0.4) & (grid == HIDDEN)
    grid = chain_board([int(t) for t in neighbour_counts(layout)[1, ::2]])
    mines = int(layout.sum())
    rows, cols = grid.shape
    flat = grid.ravel()
    probability = count_board(flat, rows, cols, False, mines).cells.probability
    store = new_component_store()
    for cell in (1, 59, cols + 1, 2 * cols + 117):  # top and bottom cells of shared columns, the middle row's
        expected = reveal_counts(flat, rows, cols, mines, cell, True, True)
        got = reveal_counts_stored(flat, rows, cols, mines, cell, True, True, store, probability)
        assert int(expected[0][1:].sum()) >= 2
        shown = flat.copy()
        shown[cell] = np.flatnonzero(expected[0][1:])[0]  # a number it may show: its component was rescaled
        assert count_board(shown, rows, cols, False, mines).counts.log_scale.max() > 100 * math.log(2)
        for part in range(3):
            np.testing.assert_array_equal(got[part], expected[part])
        np.testing.assert_array_equal(got[3][expected[0]], expected[3][expected[0]])

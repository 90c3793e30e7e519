"""The compiled engine against the plain reference of :mod:`mine_env.engine.reference`: random numbers, layouts,
counts, rewards and random games, move for move."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine_env.engine import reference as ref
from mine_env.engine import rules as k
from mine_env.engine.board import Board
from mine_env.engine.constants import FIRST_CLICK_RULES, HIDDEN
from mine_env.engine.geometry import RULE_CODES, protected_cells
from mine_env.engine.layout import neighbour_counts, place_mines
from mine_env.engine.rewards import RewardConfig
from mine_env.engine.rng import KEY_LIMIT, draw_below, splitmix64
from mine_env.engine.spec import BoardSpec, max_mines

KEYS = st.integers(0, KEY_LIMIT - 1)


@st.composite
def boards(draw: st.DrawFn) -> BoardSpec:
    """Any board up to 8x8, any rule, any mine count the rule allows."""
    rows, cols = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    first_click = draw(st.sampled_from(FIRST_CLICK_RULES))
    mines = draw(st.integers(0, max_mines(rows, cols, first_click)))
    return BoardSpec(rows, cols, mines, first_click)


def test_splitmix64_gives_the_published_stream_in_both_engines() -> None:
    # The first outputs of SplitMix64 seeded with 1234567, as in Vigna's reference implementation.
    expected = [6457827717110365317, 3203168211198807973, 9817491932198370423]
    state = 1234567
    for value in expected:
        state, bits = splitmix64(np.uint64(state))
        assert int(bits) == value
    plain = 1234567
    for value in expected:
        plain, bits = ref.splitmix64(plain)
        assert bits == value


@settings(deadline=None)
@given(key=KEYS, bound=st.integers(1, 5000))
def test_the_bounded_draw_is_the_same_in_both_engines_and_in_range(key: int, bound: int) -> None:
    state, value = draw_below(np.uint64(key), bound)
    plain_state, plain_value = ref.draw_below(key, bound)
    assert (int(state), value) == (plain_state, plain_value)
    assert 0 <= value < bound


@settings(deadline=None)
@given(spec=boards(), key=KEYS, data=st.data())
def test_the_compiled_layout_equals_the_reference_layout(spec: BoardSpec, key: int, data: st.DataObject) -> None:
    first_cell = data.draw(st.integers(0, spec.n_cells - 1))
    compiled = np.zeros(spec.n_cells, dtype=np.uint8)
    place_mines(
        mines=compiled, cells=np.empty(spec.n_cells, dtype=np.int32), rows=spec.rows, cols=spec.cols,
        n_mines=spec.mines, rule=RULE_CODES[spec.first_click], first_cell=first_cell, key=key,
    )  # fmt: skip
    plain = ref.place_mines(spec.rows, spec.cols, spec.mines, spec.first_click, first_cell, key)
    assert compiled.astype(bool).tolist() == plain
    assert sum(plain) == spec.mines
    assert not any(plain[cell] for cell in protected_cells(spec.rows, spec.cols, spec.first_click, first_cell))


@settings(deadline=None)
@given(spec=boards(), key=KEYS)
def test_the_compiled_counts_equal_the_reference_counts(spec: BoardSpec, key: int) -> None:
    mines = ref.place_mines(spec.rows, spec.cols, spec.mines, "none", None, key)
    counts = neighbour_counts(np.array(mines).reshape(spec.rows, spec.cols))
    assert counts.dtype == np.int8
    assert counts.ravel().tolist() == ref.mine_counts(mines, ref.neighbour_table(spec.rows, spec.cols))


@pytest.mark.parametrize("status", [k.READY, k.PLAYING, k.WON, k.LOST])
@pytest.mark.parametrize("revealed", [k.INVALID, 0, 3])
def test_the_compiled_reward_equals_the_reference_reward(status: int, revealed: int) -> None:
    rewards = RewardConfig(win=2.0, loss=-3.0, progress=0.25, invalid=-0.5)
    compiled = k.step_reward(status, revealed, rewards.values)
    assert compiled == ref.step_reward(k.STATUS_NAMES[status], revealed, rewards)


def interesting_actions(board: Board, mask: np.ndarray, flags: bool) -> list[np.ndarray]:
    """Six pools to draw the next action from: none (any integer, mostly invalid), chords, flags on
    mines (so that chords are satisfied and win), and three times any valid action (so games go deep)."""
    n = board.spec.n_cells
    valid = np.flatnonzero(mask)
    chords = valid[(valid < n) & (board.grid.ravel()[valid % n] > 0)]
    layout = board.layout
    hidden_mines = np.flatnonzero(layout.ravel() & (board.grid.ravel() == HIDDEN)) if layout is not None else valid[:0]
    mine_flags = n + hidden_mines if flags else valid[:0]
    return [valid[:0], chords, mine_flags, valid, valid, valid]


@settings(max_examples=150, deadline=None)
@given(spec=boards(), key=KEYS, flags=st.booleans(), data=st.data())
def test_the_fast_engine_plays_exactly_like_the_reference(
    spec: BoardSpec, key: int, flags: bool, data: st.DataObject
) -> None:
    fast, plain = Board(spec, key), ref.ReferenceBoard(spec, key)
    n_actions = spec.n_cells * (2 if flags else 1)
    for _ in range(data.draw(st.integers(1, 60))):
        mask = fast.action_mask(flags)
        assert mask.tolist() == plain.action_mask(flags)
        candidates = interesting_actions(fast, mask, flags)[data.draw(st.integers(0, 5))]
        if len(candidates):
            action = int(candidates[data.draw(st.integers(0, len(candidates) - 1))])
        else:
            action = data.draw(st.integers(-3, n_actions + 3))
        assert fast.step(action, flags) == plain.step(action, flags)
        assert fast.grid.ravel().tolist() == plain.obs
        assert (fast.status, fast.safe_left, fast.steps) == (plain.status, plain.safe_left, plain.steps)
    layout = fast.layout
    assert (None if layout is None else layout.ravel().tolist()) == plain.layout

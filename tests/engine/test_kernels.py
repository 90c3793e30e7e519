"""The compiled rules against the plain reference: random numbers, layouts, first clicks and random play."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine_env.engine import reference as ref
from mine_env.engine import rules as k
from mine_env.engine.board import KEY_LIMIT, Board
from mine_env.engine.constants import FIRST_CLICK_RULES, HIDDEN, MAX_SIDE
from mine_env.engine.spec import BoardSpec, max_mines

KEYS = st.integers(0, KEY_LIMIT - 1)


def kernel_layout(rows: int, cols: int, mines: int, first_click: str, first_cell: int, key: int) -> np.ndarray:
    """The compiled layout, uint8 (rows * cols,), 1 = mine."""
    out = np.zeros(rows * cols, dtype=np.uint8)
    scratch = np.empty(rows * cols, dtype=np.int32)
    k.place_mines(out, scratch, rows, cols, mines, k.RULE_CODES[first_click], first_cell, key)
    return out


def chi_square_p_value(observed: list[int], expected: float) -> float:
    """Upper tail of Pearson's chi-square for equal expected counts (Wilson-Hilferty normal approximation)."""
    statistic = sum((count - expected) ** 2 / expected for count in observed)
    dof = len(observed) - 1
    z = ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


@st.composite
def boards(draw: st.DrawFn) -> BoardSpec:
    """Any board up to 8x8, any rule, any mine count the rule allows."""
    rows, cols = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    first_click = draw(st.sampled_from(FIRST_CLICK_RULES))
    mines = draw(st.integers(0, max_mines(rows, cols, first_click)))
    return BoardSpec(rows, cols, mines, first_click)


# ----------------------------------------------------------------------------- random numbers
def test_splitmix64_gives_the_published_stream() -> None:
    # The first outputs of SplitMix64 seeded with 1234567, as in Vigna's reference implementation.
    expected = [6457827717110365317, 3203168211198807973, 9817491932198370423]
    state = 1234567
    for value in expected:
        state, bits = k.splitmix64(np.uint64(state))
        assert int(bits) == value
    plain = 1234567
    for value in expected:
        plain, bits = ref.splitmix64(plain)
        assert bits == value


@settings(deadline=None)
@given(key=KEYS, bound=st.integers(1, 5000))
def test_the_bounded_draw_is_the_same_in_both_engines_and_in_range(key: int, bound: int) -> None:
    state, value = k.draw_below(np.uint64(key), bound)
    plain_state, plain_value = ref.draw_below(key, bound)
    assert (int(state), value) == (plain_state, plain_value)
    assert 0 <= value < bound


# ----------------------------------------------------------------------------- layouts
@settings(deadline=None)
@given(spec=boards(), key=KEYS, data=st.data())
def test_the_compiled_layout_equals_the_reference_layout(spec: BoardSpec, key: int, data: st.DataObject) -> None:
    first_cell = data.draw(st.integers(0, spec.n_cells - 1))
    compiled = kernel_layout(spec.rows, spec.cols, spec.mines, spec.first_click, first_cell, key).astype(bool).tolist()
    plain = ref.place_mines(spec.rows, spec.cols, spec.mines, spec.first_click, first_cell, key)
    assert compiled == plain
    assert sum(compiled) == spec.mines
    protected = ref.protected_cells(spec.rows, spec.cols, spec.first_click, first_cell)
    assert not any(compiled[cell] for cell in protected)


@settings(deadline=None)
@given(spec=boards(), key=KEYS)
def test_the_compiled_counts_equal_the_reference_counts(spec: BoardSpec, key: int) -> None:
    mines = ref.place_mines(spec.rows, spec.cols, spec.mines, "none", None, key)
    counts = np.zeros(spec.n_cells, dtype=np.int8)
    k.compute_counts(np.array(mines, dtype=np.uint8), counts, spec.rows, spec.cols)
    assert counts.tolist() == ref.mine_counts(mines, ref.neighbour_table(spec.rows, spec.cols))


@pytest.mark.parametrize("preset", [(9, 9, 10), (16, 16, 40), (16, 30, 99)])
def test_first_click_guarantees_hold_over_many_seeds(preset: tuple[int, int, int]) -> None:
    rows, cols, mines = preset
    rng = np.random.default_rng(2024)
    for _ in range(300):
        key, first = int(rng.integers(KEY_LIMIT)), int(rng.integers(rows * cols))
        safe = Board(BoardSpec(rows, cols, mines, "safe"), key)
        assert safe.step(first, flags=False) >= 1 and safe.status != "lost"
        opening = Board(BoardSpec(rows, cols, mines, "opening"), key)
        opening.step(first, flags=False)
        assert opening.grid.flat[first] == 0 and opening.status != "lost"
        fixed = Board(BoardSpec(rows, cols, mines, "none"), key)
        assert fixed.layout is not None and fixed.layout.sum() == mines


def test_the_layout_is_a_pure_function_of_key_and_first_cell() -> None:
    spec = BoardSpec(16, 16, 40, "opening")
    first = Board(spec, key=99)
    second = Board(spec, key=99)
    first.reveal(5, 5)
    second.reveal(5, 5)
    np.testing.assert_array_equal(first.layout, second.layout)
    elsewhere = Board(spec, key=99)
    elsewhere.reveal(10, 12)
    assert not np.array_equal(first.layout, elsewhere.layout)
    other_key = Board(spec, key=100)
    other_key.reveal(5, 5)
    assert not np.array_equal(first.layout, other_key.layout)


@pytest.mark.parametrize(
    ("first_click", "first_cell", "allowed"), [("safe", 0, 15), ("opening", 0, 12), ("none", -1, 16)]
)
def test_every_allowed_layout_of_a_tiny_board_is_as_likely(first_click: str, first_cell: int, allowed: int) -> None:
    # A 4x4 board with 2 mines: count every layout drawn from 20 000 seeded keys.
    rng = np.random.default_rng(7)
    draws = 20_000
    seen = Counter(
        kernel_layout(4, 4, 2, first_click, first_cell, int(key)).tobytes()
        for key in rng.integers(0, KEY_LIMIT, size=draws)
    )
    assert len(seen) == math.comb(allowed, 2)  # every allowed layout occurs, no other
    assert chi_square_p_value(list(seen.values()), draws / len(seen)) > 1e-4


def test_each_allowed_cell_is_equally_likely_to_hold_a_mine() -> None:
    # Beginner under the opening rule, first click in the centre: 72 allowed cells, 10 mines each time.
    rng = np.random.default_rng(11)
    frequency = np.zeros(81, dtype=np.int64)
    for key in rng.integers(0, KEY_LIMIT, size=10_000):
        frequency += kernel_layout(9, 9, 10, "opening", 40, int(key))
    protected = sorted(ref.protected_cells(9, 9, "opening", 40))
    assert frequency[protected].sum() == 0
    allowed = np.delete(frequency, protected)
    assert chi_square_p_value(allowed.tolist(), 10_000 * 10 / 72) > 1e-4


# ----------------------------------------------------------------------------- random play
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


@pytest.mark.parametrize("status", [k.READY, k.PLAYING, k.WON, k.LOST])
@pytest.mark.parametrize("revealed", [k.INVALID, 0, 3])
def test_the_compiled_reward_equals_the_reference_reward(status: int, revealed: int) -> None:
    rewards = ref.RewardConfig(win=2.0, loss=-3.0, progress=0.25, invalid=-0.5)
    compiled = k.step_reward(status, revealed, rewards.win, rewards.loss, rewards.progress, rewards.invalid)
    assert compiled == ref.step_reward(k.STATUS_NAMES[status], revealed, rewards)


@pytest.mark.parametrize(("rows", "cols"), [(MAX_SIDE, MAX_SIDE), (1, MAX_SIDE), (MAX_SIDE, 1)])
def test_the_flood_fill_reaches_every_corner_of_the_largest_boards(rows: int, cols: int) -> None:
    board = Board(BoardSpec(rows, cols, 0, "safe"), key=0)
    assert board.reveal(rows - 1, cols - 1) == rows * cols
    assert board.status == "won" and (board.grid == 0).all()

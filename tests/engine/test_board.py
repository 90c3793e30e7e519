"""The board engine on the hand board: counts, flood fill, flags, chords, win, loss, copies and errors.

Every scripted game below plays the hand board of conftest.py:

      0 1 2 3 4          counts:  0 1 2 3 4
   0  * . . . .                0  * 2 1 1 0
   1  . . * . .                1  1 2 * 1 0
   2  . . . . .                2  0 1 1 2 1
   3  . . . . *                3  0 0 0 1 *
"""

from __future__ import annotations

import pickle
from collections.abc import Callable

import numpy as np
import pytest

from mine_env import FLAG, HIDDEN, MINE
from mine_env.engine import rules as k
from mine_env.engine.board import Board
from mine_env.engine.spec import BoardSpec
from support import HAND_COUNTS, HAND_MINE_CELLS, grid_from_rows


def test_every_count_of_the_hand_board_matches_the_hand_count(hand_board: Board) -> None:
    assert hand_board.layout is not None
    assert sorted(map(tuple, np.argwhere(hand_board.layout))) == sorted(HAND_MINE_CELLS)
    np.testing.assert_array_equal(hand_board.counts, HAND_COUNTS)
    assert hand_board.status == "playing"
    assert hand_board.safe_left == 17


def test_revealing_a_zero_opens_its_whole_region(hand_board: Board) -> None:
    assert hand_board.reveal(3, 0) == 10
    expected = grid_from_rows(
        ". . . . .",
        "1 2 . . .",
        "0 1 1 2 .",
        "0 0 0 1 .",
    )
    np.testing.assert_array_equal(hand_board.grid, expected)
    assert hand_board.safe_left == 7


def test_revealing_a_number_opens_only_that_cell(hand_board: Board) -> None:
    assert hand_board.reveal(0, 1) == 1
    assert hand_board.grid[0, 1] == 2
    assert (hand_board.grid == HIDDEN).sum() == 19


def test_the_flood_fill_does_not_open_flagged_cells(hand_board: Board) -> None:
    # A flag on the zero (3,1) cuts the region: (3,2) is reachable only through it.
    hand_board.toggle_flag(3, 1)
    assert hand_board.reveal(3, 0) == 5
    expected = grid_from_rows(
        ". . . . .",
        "1 2 . . .",
        "0 1 . . .",
        "0 F . . .",
    )
    np.testing.assert_array_equal(hand_board.grid, expected)


def test_a_satisfied_chord_reveals_the_other_neighbours(hand_board: Board) -> None:
    hand_board.reveal(0, 4)  # opens (0,3) (0,4) (1,3) (1,4) (2,3) (2,4)
    hand_board.toggle_flag(1, 2)
    assert hand_board.chord(1, 3) == 2  # (0,2) and (2,2)
    expected = grid_from_rows(
        ". . 1 1 0",
        ". . F 1 0",
        ". . 1 2 1",
        ". . . . .",
    )
    np.testing.assert_array_equal(hand_board.grid, expected)
    assert hand_board.status == "playing"


def test_a_chord_with_a_wrong_flag_opens_the_mine_and_loses(hand_board: Board) -> None:
    hand_board.reveal(0, 4)
    hand_board.toggle_flag(0, 2)  # wrong: the mine next to (1,3) is (1,2)
    assert hand_board.chord(1, 3) == 0
    assert hand_board.status == "lost"
    assert hand_board.grid[1, 2] == MINE
    assert hand_board.grid[2, 2] == HIDDEN  # the chord stops at the mine


def test_flags_toggle_on_and_off_and_cannot_go_on_revealed_cells(hand_board: Board) -> None:
    hand_board.toggle_flag(2, 2)
    assert hand_board.grid[2, 2] == FLAG
    hand_board.toggle_flag(2, 2)
    assert hand_board.grid[2, 2] == HIDDEN
    hand_board.reveal(2, 2)
    with pytest.raises(ValueError, match="revealed, so it cannot carry a flag"):
        hand_board.toggle_flag(2, 2)
    assert hand_board.step(k.INVALID) == k.INVALID


def test_revealing_every_safe_cell_wins(hand_board: Board) -> None:
    for row, col in ((3, 0), (0, 4), (0, 1)):
        hand_board.reveal(row, col)
        assert hand_board.status == "playing"
    assert hand_board.reveal(0, 2) == 1
    assert hand_board.status == "won"
    assert hand_board.is_over
    assert hand_board.safe_left == 0


def test_revealing_a_mine_loses_and_shows_it(hand_board: Board) -> None:
    assert hand_board.reveal(1, 2) == 0
    assert hand_board.status == "lost"
    assert hand_board.grid[1, 2] == MINE
    assert (hand_board.grid == HIDDEN).sum() == 19


@pytest.mark.parametrize("action", [-1, -100, 40, 41, 10_000])
def test_actions_off_the_board_change_nothing(hand_board: Board, action: int) -> None:
    before = hand_board.export_state()
    assert hand_board.step(action, flags=True) == k.INVALID
    np.testing.assert_array_equal(hand_board.grid, before.obs.reshape(4, 5))
    assert hand_board.steps == 0


def test_revealing_a_revealed_cell_or_flagging_without_flags_changes_nothing(hand_board: Board) -> None:
    hand_board.reveal(0, 1)
    grid = hand_board.grid
    assert hand_board.step(1, flags=False) == k.INVALID  # (0,1) is already revealed
    assert hand_board.step(20 + 7, flags=False) == k.INVALID  # flag actions do not exist without flags
    np.testing.assert_array_equal(hand_board.grid, grid)
    assert hand_board.steps == 1


def test_a_finished_game_takes_no_more_actions(hand_board: Board) -> None:
    hand_board.reveal(0, 0)
    grid = hand_board.grid
    assert all(hand_board.step(action) == k.INVALID for action in range(40))
    assert not hand_board.action_mask().any()
    np.testing.assert_array_equal(hand_board.grid, grid)
    with pytest.raises(ValueError, match="the game is over"):
        hand_board.reveal(3, 0)


def test_the_action_mask_lists_reveals_chords_and_flag_toggles(hand_board: Board) -> None:
    hand_board.reveal(0, 4)
    hand_board.toggle_flag(1, 2)
    mask = hand_board.action_mask(flags=True)
    assert mask.dtype == np.int8 and mask.shape == (40,)
    reveals, toggles = mask[:20].reshape(4, 5), mask[20:].reshape(4, 5)
    hidden = hand_board.grid == HIDDEN
    chordable = np.zeros((4, 5), dtype=bool)
    chordable[0, 3] = chordable[1, 3] = True  # the numbers with all their flags placed and hidden neighbours left
    np.testing.assert_array_equal(reveals, hidden | chordable)
    np.testing.assert_array_equal(toggles, hidden | (hand_board.grid == FLAG))
    np.testing.assert_array_equal(hand_board.action_mask(flags=False).reshape(4, 5), hidden)


def test_a_copy_plays_on_without_touching_the_original(hand_board: Board) -> None:
    hand_board.reveal(3, 0)
    hand_board.toggle_flag(0, 0)
    copy = hand_board.copy()
    copy.reveal(0, 4)
    assert copy.safe_left == hand_board.safe_left - 5
    assert hand_board.grid[0, 4] == HIDDEN
    restored = Board.restore(hand_board.export_state())
    for board in (restored, pickle.loads(pickle.dumps(hand_board))):
        np.testing.assert_array_equal(board.grid, hand_board.grid)
        np.testing.assert_array_equal(board.layout, hand_board.layout)
        assert (board.status, board.safe_left, board.steps) == (hand_board.status, hand_board.safe_left, 2)
        assert board.reveal(0, 4) == 5


def test_the_text_format_round_trips_a_game_in_progress(hand_board: Board) -> None:
    hand_board.reveal(3, 0)
    hand_board.toggle_flag(0, 0)
    hand_board.toggle_flag(0, 3)  # a wrong flag: written as F, not +
    text = hand_board.to_text()
    again = Board.from_text(text)
    assert again.spec == hand_board.spec
    np.testing.assert_array_equal(again.grid, hand_board.grid)
    np.testing.assert_array_equal(again.layout, hand_board.layout)
    assert (again.status, again.safe_left) == (hand_board.status, hand_board.safe_left)
    assert again.to_text() == text


def test_the_text_keeps_the_first_click_rule_unless_told_otherwise() -> None:
    board = Board(BoardSpec(5, 6, 7, "opening"), key=3)
    board.reveal(2, 2)
    text = board.to_text()
    assert "first_click: opening" in text
    assert Board.from_text(text).spec == board.spec
    assert Board.from_text(text, first_click="safe").spec.first_click == "safe"


def test_finished_games_round_trip_their_status(hand_board: Board) -> None:
    lost = hand_board.copy()
    lost.reveal(3, 4)
    assert Board.from_text(lost.to_text()).status == "lost"
    for row, col in ((3, 0), (0, 4), (0, 1), (0, 2)):
        hand_board.reveal(row, col)
    assert Board.from_text(hand_board.to_text()).status == "won"


@pytest.mark.parametrize("first_click", ["safe", "opening"])
def test_the_layout_is_placed_by_the_first_reveal(first_click: str) -> None:
    board = Board(BoardSpec(9, 9, 10, first_click), key=11)
    assert board.layout is None and board.counts is None and board.status == "ready"
    board.toggle_flag(0, 0)  # flags may go down before the layout exists
    board.reveal(4, 4)
    assert board.layout is not None and board.layout.sum() == 10


def test_the_none_rule_fixes_the_layout_before_any_click() -> None:
    board = Board(BoardSpec(9, 9, 10, "none"), key=11)
    assert board.status == "playing"
    assert board.layout is not None and board.layout.sum() == 10


def test_new_game_starts_over_with_a_new_key() -> None:
    board = Board(BoardSpec(5, 5, 4, "safe"), key=1)
    board.reveal(0, 0)
    board.new_game(2)
    assert board.status == "ready" and board.steps == 0 and board.key == 2
    assert (board.grid == HIDDEN).all()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda b: b.reveal(4, 0), r"cell \(4, 0\) is outside the 4x5 board"),
        (lambda b: b.reveal(0, -1), r"cell \(0, -1\) is outside"),
        (lambda b: b.chord(0, 1), r"cell \(0, 1\) cannot be chorded"),
        (lambda b: b.new_game(-1), r"layout key must lie in \[0, 2\*\*63\)"),
        (lambda b: b.new_game(2**63), r"layout key must lie in \[0, 2\*\*63\)"),
    ],
)
def test_public_moves_explain_what_is_wrong(hand_board: Board, call: Callable[[Board], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(hand_board)


def test_revealing_a_flagged_or_revealed_cell_is_refused(hand_board: Board) -> None:
    hand_board.toggle_flag(2, 2)
    with pytest.raises(ValueError, match=r"cell \(2, 2\) is not hidden and unflagged"):
        hand_board.reveal(2, 2)
    hand_board.reveal(0, 1)
    with pytest.raises(ValueError, match=r"cell \(0, 1\) is not hidden"):
        hand_board.reveal(0, 1)


def test_from_layout_wants_a_two_dimensional_bool_array() -> None:
    with pytest.raises(ValueError, match="a layout must be a 2-D bool array"):
        Board.from_layout(np.zeros((3, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="a layout must be a 2-D bool array"):
        Board.from_layout(np.zeros(9, dtype=bool))
    board = Board.from_layout(np.eye(3, dtype=bool))
    assert board.spec == BoardSpec(3, 3, 3, "none")
    np.testing.assert_array_equal(board.counts, grid_from_rows("1 2 1", "2 2 2", "1 2 1"))


def test_a_position_without_a_layout_cannot_be_played() -> None:
    with pytest.raises(ValueError, match="has no known layout"):
        Board.from_text("mines: 1\n. . .\n1 1 .\n")


def test_the_grid_view_is_read_only_and_follows_the_game(hand_board: Board) -> None:
    view = hand_board.grid_view
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0] = 3
    hand_board.reveal(0, 1)
    assert view[0, 1] == 2

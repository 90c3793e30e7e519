"""The plain-text board format: what it reads, what it writes back, and the errors that say what is wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mine_env.engine.textformat import TextBoard, format_board, parse_board, read_board, write_board
from support import HAND_BOARD_TEXT, HAND_MINE_CELLS, grid_from_rows

POSITION = """\
# a corner of a beginner game
mines: 10
first_click: opening
. . 1 0 0
. F 1 0 0
1 1 1 0 0
"""


def test_a_position_reads_as_the_player_sees_it() -> None:
    board = parse_board(POSITION)
    expected = grid_from_rows(
        ". . 1 0 0",
        ". F 1 0 0",
        "1 1 1 0 0",
    )
    np.testing.assert_array_equal(board.grid, expected)
    assert board.grid.dtype == np.int8
    assert (board.mines, board.layout, board.first_click) == (10, None, "opening")


def test_a_full_board_knows_its_layout_and_counts_its_mines() -> None:
    board = parse_board(HAND_BOARD_TEXT.replace("mines: 3\n", ""))
    assert board.mines == 3
    assert board.layout is not None
    assert sorted(map(tuple, np.argwhere(board.layout))) == sorted(HAND_MINE_CELLS)
    assert (board.grid == -1).all()


def test_spaces_between_cells_are_optional_and_comments_are_ignored() -> None:
    spaced = parse_board("mines: 1\n. 1\n. 1   # trailing comment\n")
    packed = parse_board("mines: 1\n\n.1\n.1\n")
    np.testing.assert_array_equal(spaced.grid, packed.grid)


def test_flagged_mines_shown_mines_and_wrong_flags_round_trip() -> None:
    text = "mines: 3\n+ X F\n3 3 2\n. * .\n"
    board = parse_board(text)
    np.testing.assert_array_equal(board.layout, [[True, True, False], [False, False, False], [False, True, False]])
    assert format_board(board.grid, board.mines, board.layout) == text


def test_positions_round_trip_through_format_board() -> None:
    board = parse_board(POSITION)
    again = parse_board(format_board(board.grid, board.mines, first_click=board.first_click))
    np.testing.assert_array_equal(again.grid, board.grid)
    assert (again.mines, again.first_click) == (board.mines, board.first_click)


def test_files_round_trip_and_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "board.txt"
    board = parse_board(HAND_BOARD_TEXT)
    write_board(path, board.grid, board.mines, board.layout)
    again = read_board(path)
    assert isinstance(again, TextBoard)
    np.testing.assert_array_equal(again.layout, board.layout)
    bad = tmp_path / "bad.txt"
    bad.write_text("mines: 1\n. ?\n")
    with pytest.raises(ValueError, match=r"bad\.txt: line 2: unknown cell character"):
        read_board(bad)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mines: 1\n. . ?\n", r"line 2: unknown cell character\(s\) '\?'"),
        ("mines: 1\n. . .\n. .\n", "line 3: row has 2 cells, the first row has 3"),
        (". . .\n1 1 .\n", "needs a 'mines: N' header line"),
        ("* 1 .\n1 2 .\n", r"cell \(1, 1\) shows 2 but the layout gives 1 mines around it"),
        ("* 0\n", r"cell \(0, 1\) shows 0 but the layout gives 1"),
        ("mines: 2\n* 1\n", "header says mines: 2 but the grid marks 1 mines"),
        ("mines: two\n. .\n", "mines must be an integer, got 'two'"),
        ("size: 3\n. .\n", "line 1: unknown header 'size'"),
        ("mines: 1\n. .\nmines: 2\n", "line 3: header line 'mines: 2' after the grid has started"),
        ("mines: 1\nfirst_click: lucky\n. .\n", "unknown first_click 'lucky'"),
        ("mines: 3\n. .\n", "mines: 3 does not fit a board of 2 cells"),
        ("mines: 0\nX .\n", "mines: 0 does not fit a board of 2 cells with 1 shown"),
        ("# only a comment\n\n", "no grid found"),
    ],
)
def test_malformed_boards_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_board(text)

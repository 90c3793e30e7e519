"""The cross-check of the reader: numbers against the layout a finished game shows."""

from __future__ import annotations

import numpy as np

from screen_bot.cells import EXPLODED, WRONG_FLAG
from screen_bot.crosscheck import layout_complete, misread_cells
from screen_bot.game import solver_view, status
from support import grid_from_rows

# A lost game: the mine hit (X) and the other mine (*) shown, as the program draws them at the end.
#   X 1 .        mines at (0, 0) and (2, 2)
#   1 2 1
#   . 1 *
PLAYED = grid_from_rows(". 1 .", "1 2 1", ". 1 .")


def final_of_a_loss() -> np.ndarray:
    final = grid_from_rows(". 1 .", "1 2 1", ". 1 X")
    final[0, 0] = EXPLODED
    return final


def test_a_board_read_right_has_no_misread_cell() -> None:
    assert misread_cells(PLAYED, final_of_a_loss(), won=False) == []
    assert layout_complete(final_of_a_loss(), won=False, mines=2)


def test_a_wrong_number_is_a_misread_cell() -> None:
    played = PLAYED.copy()
    played[1, 1] = 3
    assert misread_cells(played, final_of_a_loss(), won=False) == [(1, 1)]


def test_an_open_cell_on_a_mine_is_a_misread_cell() -> None:
    played = PLAYED.copy()
    played[0, 0] = 0  # read as an open zero, yet the program shows the mine there
    assert (0, 0) in misread_cells(played, final_of_a_loss(), won=False)


def test_a_wrong_flag_is_a_misread_cell() -> None:
    final = final_of_a_loss()
    final[0, 2] = WRONG_FLAG
    assert (0, 2) in misread_cells(PLAYED, final, won=False)


def test_a_won_game_takes_the_covered_cells_as_the_mines() -> None:
    final = grid_from_rows("F 1 0", "1 2 1", "0 1 .")  # mines at (0, 0) and (2, 2): one flagged, one covered
    assert misread_cells(grid_from_rows(". 1 0", "1 2 1", "0 1 ."), final, won=True) == []
    assert misread_cells(grid_from_rows(". 1 0", "1 2 1", "0 2 ."), final, won=True) == [(2, 1)]
    assert layout_complete(final, won=True, mines=2)
    assert not layout_complete(final, won=True, mines=3)


def test_status_reads_the_end_of_a_game() -> None:
    assert status(final_of_a_loss(), 2, needs_flags=False) == "lost"
    assert status(grid_from_rows(". 1 0", "1 1 0", "0 0 0"), 1, needs_flags=False) == "won"
    assert status(grid_from_rows(". 1 0", "1 1 0", "0 0 0"), 1, needs_flags=True) == "flag"
    assert status(grid_from_rows("F 1 0", "1 1 0", "0 0 0"), 1, needs_flags=True) == "won"
    assert status(grid_from_rows(". . 0", "1 1 0", "0 0 0"), 1, needs_flags=False) == "playing"


def test_the_solver_sees_flags_as_covered_cells() -> None:
    view = solver_view(grid_from_rows("F 1", "1 1"))
    assert view[0, 0] == -1 and view.dtype == np.int8

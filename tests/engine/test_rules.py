"""The rules of play beyond the hand board of test_board.py: the flood fill on the largest boards, and the game
API that compiled drivers (the solver) play through. (Random games against the plain reference, move for move,
are in test_reference.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from mine_env.engine import rules as k
from mine_env.engine.board import Board
from mine_env.engine.constants import FIRST_CLICK_RULES, HIDDEN, MAX_SIDE
from mine_env.engine.spec import BoardSpec


@pytest.mark.parametrize(("rows", "cols"), [(MAX_SIDE, MAX_SIDE), (1, MAX_SIDE), (MAX_SIDE, 1)])
def test_the_flood_fill_reaches_every_corner_of_the_largest_boards(rows: int, cols: int) -> None:
    board = Board(BoardSpec(rows, cols, 0, "safe"), key=0)
    assert board.reveal(rows - 1, cols - 1) == rows * cols
    assert board.status == "won" and (board.grid == 0).all()


@pytest.mark.parametrize("first_click", FIRST_CLICK_RULES)
def test_a_compiled_driver_plays_the_games_of_the_board(first_click: str) -> None:
    # The solver's compiled driver plays through new_game_arrays, open_game, reveal_cell, game_status and
    # safe_left: the same games as a Board with the same key and first reveal.
    spec, key = BoardSpec(9, 9, 10, first_click), 12345
    board = Board(spec, key)
    game = k.new_game_arrays(spec.n_cells)
    revealed = k.open_game(
        game, rows=spec.rows, cols=spec.cols, n_mines=spec.mines, rule=k.RULE_CODES[first_click], key=key, first_cell=40
    )
    assert revealed == board.reveal(4, 4)
    for cell in np.flatnonzero(~board.layout.ravel()):  # every safe cell, in order, while the game lasts
        if board.is_over:
            break
        if board.grid.flat[cell] == HIDDEN:
            assert k.reveal_cell(game, spec.rows, spec.cols, int(cell)) == board.step(int(cell), flags=False)
            assert (k.game_status(game.meta), k.safe_left(game.meta)) == (board.status_code, board.safe_left)
    assert board.status == "won"
    assert game.obs.tolist() == board.grid.ravel().tolist()


def test_a_replayed_game_starts_again_from_its_first_click_on_the_layout_it_holds() -> None:
    # replay_game is how a driver that edits a layout (the no-guess generator) plays it again, through the
    # engine's API rather than its status slots: the same position as the first click of a fresh game.
    spec, key = BoardSpec(9, 9, 10, "opening"), 777
    game = k.new_game_arrays(spec.n_cells)
    first = k.open_game(game, spec.rows, spec.cols, spec.mines, k.RULE_CODES["opening"], key, 40)
    opened = game.obs.copy()
    for cell in np.flatnonzero(game.mines == 0):
        k.reveal_cell(game, spec.rows, spec.cols, int(cell))
    assert k.game_status(game.meta) == k.WON
    assert k.replay_game(game, spec.rows, spec.cols, spec.mines, 40) == first
    assert game.obs.tolist() == opened.tolist()
    assert (k.game_status(game.meta), k.safe_left(game.meta)) == (k.PLAYING, spec.n_cells - spec.mines - first)

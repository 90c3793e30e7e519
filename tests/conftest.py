"""Shared fixtures: a hand-built board whose every count was worked out by hand, and helpers to play it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import mine_env  # registers the env ids
from mine_env.board import Board

# The hand board, 4 rows x 5 columns, 3 mines (*):
#
#       0 1 2 3 4
#    0  * . . . .
#    1  . . * . .
#    2  . . . . .
#    3  . . . . *
HAND_BOARD_TEXT = """\
mines: 3
* . . . .
. . * . .
. . . . .
. . . . *
"""
HAND_ROWS, HAND_COLS, HAND_MINES = 4, 5, 3
HAND_MINE_CELLS = ((0, 0), (1, 2), (3, 4))

# Mines around every cell, counted by hand from the picture above (a mine does not count itself).
HAND_COUNTS = np.array(
    [
        [0, 2, 1, 1, 0],
        [1, 2, 0, 1, 0],
        [0, 1, 1, 2, 1],
        [0, 0, 0, 1, 0],
    ],
    dtype=np.int8,
)


def grid_from_rows(*rows: str) -> np.ndarray:
    """An expected grid written as text rows: ``.`` hidden, ``F`` flag, ``X`` shown mine, digits revealed."""
    codes = {".": mine_env.HIDDEN, "F": mine_env.FLAG, "X": mine_env.MINE}
    return np.array([[codes[ch] if ch in codes else int(ch) for ch in row.split()] for row in rows], dtype=np.int8)


def cell(row: int, col: int, cols: int = HAND_COLS) -> int:
    """The flat reveal action of a cell."""
    return row * cols + col


def flag(row: int, col: int, rows: int = HAND_ROWS, cols: int = HAND_COLS) -> int:
    """The flat flag-toggle action of a cell (flags enabled)."""
    return rows * cols + row * cols + col


@pytest.fixture
def hand_board() -> Board:
    """The hand board, nothing revealed yet (its layout is known, so any first click plays it)."""
    return Board.from_text(HAND_BOARD_TEXT)


def make_hand_env(**kwargs: Any) -> gym.Env:
    """A ``gym.make`` env of the hand board's size, reset, with the hand board put in its place."""
    env = gym.make("Minesweeper-v0", rows=HAND_ROWS, cols=HAND_COLS, mines=HAND_MINES, first_click="none", **kwargs)
    env.reset(seed=0)
    env.unwrapped.board = Board.from_text(HAND_BOARD_TEXT)
    return env


@pytest.fixture
def hand_env() -> Iterator[gym.Env]:
    """The hand board in a Gymnasium env with flags enabled."""
    env = make_hand_env(flags=True)
    yield env
    env.close()

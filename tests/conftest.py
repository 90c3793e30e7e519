"""Fixtures shared by every test: the hand board (see :mod:`support`) on its own and in an env."""

from __future__ import annotations

import os
from collections.abc import Iterator

import gymnasium as gym
import pytest

from mine_env.engine.board import Board
from support import HAND_BOARD_TEXT, make_hand_env

# The compile notice goes to stderr wherever it goes; which test compiles first depends on the tests chosen, so
# the tests (and the processes they start) run without it and the notice's own tests ask for it.
os.environ.setdefault("MINESWEEPER_RL_COMPILE_NOTICE", "0")


@pytest.fixture
def hand_board() -> Board:
    """The hand board, nothing revealed yet (its layout is known, so any first click plays it)."""
    return Board.from_text(HAND_BOARD_TEXT)


@pytest.fixture
def hand_env() -> Iterator[gym.Env]:
    """The hand board in a Gymnasium env with flags enabled."""
    env = make_hand_env(flags=True)
    yield env
    env.close()

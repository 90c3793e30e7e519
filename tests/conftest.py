"""Fixtures shared by every test: the hand board (see :mod:`support`) on its own and in an env, a private Ray
instance for the RLlib tests (tests/train and tests/battle); the slow tests of ``tests/slow_tests.txt`` marked
``slow`` (``make test-fast`` leaves them out)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from mine_env.engine.board import Board
from support import HAND_BOARD_TEXT, make_hand_env

ROOT = Path(__file__).resolve().parents[1]
SLOW_TESTS = Path(__file__).with_name("slow_tests.txt")


def slow_tests() -> frozenset[str]:
    """The ``path::function`` names of tests/slow_tests.txt."""
    lines = (line.strip() for line in SLOW_TESTS.read_text().splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test listed in tests/slow_tests.txt as ``slow``, whatever its parameters."""
    slow = slow_tests()
    for item in items:
        name = f"{item.path.relative_to(ROOT).as_posix()}::{getattr(item, 'originalname', item.name)}"
        if name in slow:
            item.add_marker(pytest.mark.slow)
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


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    """A one-CPU local Ray instance for one test module, shut down after it."""
    import ray

    ray.init(address="local", num_cpus=1, include_dashboard=False, object_store_memory=100 * 1024**2,
             configure_logging=False, log_to_driver=False)  # fmt: skip
    yield ray
    ray.shutdown()

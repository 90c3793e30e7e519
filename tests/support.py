"""Helpers every test module may import (``from support import ...``): the hand board, positions, envs.

The one home of shared test helpers; ``conftest.py`` only turns some of them into fixtures.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import mine_env  # registers the env ids
from agents.base import Agent
from agents.episode import play_episode
from battle.players import make_battle_agent, seat_observation
from battle.rules import BattleGame, BattleSpec
from mine_env.engine.board import Board
from mine_env.engine.constants import FLAG, HIDDEN
from mine_env.engine.rules import neighbour_counts
from mine_env.env import MinesweeperEnv

REPO = Path(__file__).resolve().parents[1]

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


def make_hand_env(**kwargs: Any) -> gym.Env:
    """A ``gym.make`` env of the hand board's size, reset, with the hand board put in its place."""
    env = gym.make("Minesweeper-v0", rows=HAND_ROWS, cols=HAND_COLS, mines=HAND_MINES, first_click="none", **kwargs)
    env.reset(seed=0)
    env.unwrapped.board = Board.from_text(HAND_BOARD_TEXT)
    return env


def random_position(
    rng: np.random.Generator, rows: int, cols: int, mines: int
) -> tuple[np.ndarray, np.ndarray]:
    """(layout, observation) with a random share of the safe cells revealed."""
    layout = np.zeros(rows * cols, bool)
    layout[rng.choice(rows * cols, mines, replace=False)] = True
    layout = layout.reshape(rows, cols)
    revealed = (rng.random((rows, cols)) < rng.uniform(0.2, 0.8)) & ~layout
    grid = np.where(revealed, neighbour_counts(layout), HIDDEN).astype(np.int8)
    return layout, grid


def random_play_grids(rows: int, cols: int, mines: int, games: int, moves: int) -> np.ndarray:
    """The observations of ``games`` seeded games (opening rule), each played with up to ``moves`` random valid
    moves: positions from the opening to a few moves in, stacked (N, rows, cols)."""
    env = MinesweeperEnv(rows=rows, cols=cols, mines=mines, first_click="opening")
    rng = np.random.default_rng(0)
    found = []
    for seed in range(games):
        obs, info = env.reset(seed=seed)
        for _ in range(moves):
            found.append(obs.copy())
            obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if terminated or truncated:
                break
    return np.stack(found)


def info_for(grid: np.ndarray, mines: int, first_click: str = "opening") -> dict[str, Any]:
    """The env's info for an observation: every hidden cell is a valid reveal."""
    mask = np.isin(grid, (HIDDEN, FLAG)).ravel().astype(np.int8)
    return {"mines": mines, "action_mask": mask, "first_click": first_click}


def play(agent: Agent, env: gym.Env, seed: int) -> tuple[bool, list[int]]:
    """One game through the env with the project's one play loop: (won, actions taken)."""
    actions: list[int] = []
    episode = play_episode(env, agent, seed, observer=lambda move: actions.append(move.action))
    return episode.won, actions


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``minesweeper`` with argv in this process; returns (exit status, stdout, stderr)."""
    from minesweeper_cli.main import main  # here, not at the top: most tests never run the command

    try:
        status = main(argv)
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ---------------------------------------------------------------------- the full-screen commands in tmux
def command_env() -> dict[str, str]:
    """The environment of the commands the tests start: this checkout first on the import path."""
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


class TmuxGame:
    """``minesweeper ARGS`` (``["play", ...]``) running in a private, detached tmux server of a fixed size.

    A test types keys and mouse clicks into it with ``send-keys`` and reads the screen with ``capture-pane``.
    """

    def __init__(self, args: list[str], width: int = 100, height: int = 32) -> None:
        self.socket = f"ms-test-{uuid.uuid4().hex[:8]}"
        command = shlex.join([sys.executable, "-m", "minesweeper_cli.main", *args])
        size = ["-x", str(width), "-y", str(height)]
        self._tmux("new-session", "-d", *size, f"{command}; echo EXITED $?; sleep 60", env=command_env())

    def _tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        command = ["tmux", "-L", self.socket, "-f", "/dev/null", *args]  # -f: no user config in the way
        result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=10, check=True)
        return result.stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        self._tmux("send-keys", *(["-l"] if literal else []), *keys)

    def click(self, y: int, x: int, button: int) -> None:
        """A mouse press and release at screen (y, x), in the X10 encoding the terminal reports."""
        self.keys(f"\x1b[M{chr(32 + button - 1)}{chr(33 + x)}{chr(33 + y)}", literal=True)
        self.keys(f"\x1b[M{chr(32 + 3)}{chr(33 + x)}{chr(33 + y)}", literal=True)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p")

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        """The screen once it shows ``text``; fails with the last screen after ``timeout`` seconds."""
        return self.wait_until(lambda screen: text in screen, repr(text), timeout)

    def wait_until(self, shows: Callable[[str], bool], what: str, timeout: float = 30.0) -> str:
        """The screen once ``shows(screen)`` holds (``what`` names it in the failure), polled: a capture may catch
        the terminal between two lines of one redraw, so a test that reads two places of the screen waits for
        both."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if shows(screen):
                return screen
            if time.monotonic() > deadline:
                pytest.fail(f"{what} did not appear within {timeout} s; the screen was:\n{screen}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10)


needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)")


def chain_board(targets: list[int]) -> np.ndarray:
    """3 rows: numbers on the middle row at even columns, everything else hidden.

    Number k sees its own box (2 cells above and below it) and the 3-cell columns it shares with numbers
    k - 1 and k + 1, so the whole board is one long component with many layouts.
    """
    grid = np.full((3, 2 * len(targets) - 1), HIDDEN, np.int8)
    grid[1, ::2] = targets
    return grid


def assert_same_reveal_counts(got: tuple, expected: tuple) -> None:
    """Two results of the outcome counts (``reveal_counts`` and a stored path's) are the same, bit for bit, on every
    outcome some layout fits (the per-cell rows of the others are unset)."""
    consistent = expected[0]
    np.testing.assert_array_equal(got[0], consistent)
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[2], expected[2])
    np.testing.assert_array_equal(got[3][consistent], expected[3][consistent])
    np.testing.assert_array_equal(got[4][consistent], expected[4][consistent])


def battle_game_actions(spec: BattleSpec, key: int, names: tuple[str, str], **options: Any) -> list[int]:
    """Every action of one battle game of the agents ``names`` (layout and agents seeded by ``key``), the agents made
    with ``options`` (``store_components``, ``compiled``)."""
    game = BattleGame(spec, key)
    players = [make_battle_agent(name, key, **options) for name in names]
    actions = []
    while not game.is_over:
        action = players[game.mover].act(*seat_observation(game, game.mover))
        actions.append(action)
        game.play(action)
    return actions


def resume_training(algo: str, run_dir: Path, *options: str) -> None:
    """``minesweeper train ALGO --resume RUN_DIR [options]``, which must succeed (the training extra imported
    here, not by every test that imports this module)."""
    import argparse

    from minesweeper_cli import train as train_cli

    parser = argparse.ArgumentParser()
    train_cli.register(parser.add_subparsers())
    args = parser.parse_args(["train", algo, "--resume", str(run_dir), *options])
    assert args.func(args) == 0


TINY_SB3_RUN = {
    "rows": 4, "cols": 5, "mines": 3, "num_envs": 4, "channels": 8, "layers": 2, "value_hidden": 8,
    "eval_games": 10, "eval_every": 64, "checkpoint_every": 64, "progress_bar": False, "steps": 256,
}  # fmt: skip
"""A training run of a few seconds on a 4x5 board, what the checkpoint and weight-average tests train."""
TINY_SB3_ALGO = {
    # DQN: epsilon decays over the whole run and the target network is copied every 32 steps, so the halves differ
    "dqn": {"learning_starts": 32, "batch_size": 16, "buffer_size": 100, "target_update_interval": 32},
    "ppo": {"n_steps": 16, "batch_size": 32},
    # the residual trunk with the mine head: its labels come from the games in progress, restored with them
    # and its replay: the positions kept and the generator it draws (and mirrors) with come back from the checkpoint
    "maskable_ppo": {"n_steps": 16, "batch_size": 32, "dilations": "1,2", "pooled": "1", "mine_coef": 0.5,
                     "mine_replay": 100, "mine_replay_steps": 2, "mine_replay_mirror": 4},
}  # fmt: skip
"""Each algorithm's update settings for :data:`TINY_SB3_RUN`."""


def tiny_sb3_run(algo: str, tmp_path: Path, name: str, **overrides: object) -> Path:
    """Train :data:`TINY_SB3_RUN` with ``algo``'s :data:`TINY_SB3_ALGO` settings and ``overrides`` into
    ``tmp_path/name``; returns the run directory."""
    from train.sb3 import dqn, maskable_ppo, ppo
    from train.sb3.training import train

    algorithm = {"dqn": dqn.ALGORITHM, "ppo": ppo.ALGORITHM, "maskable_ppo": maskable_ppo.ALGORITHM}[algo]
    options = TINY_SB3_RUN | TINY_SB3_ALGO[algo] | {"runs_dir": str(tmp_path), "run_name": name} | overrides
    return train(algorithm, algorithm.config_class(**options))

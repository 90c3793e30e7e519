"""A replay of past rollouts' boards and true mines, for extra steps of PPO's mine head (``--mine-replay``).

The mine head's labels are the layout's true mines: unlike a return, they do not go stale when the policy changes.
PPO uses each rollout for ``n_epochs`` passes and throws it away, so every minibatch of the head comes from the few
games of one rollout, their consecutive positions nearly alike, where DQN's replay draws each of its minibatches
from a hundred thousand steps' positions. :class:`MineReplay`
keeps the last ``capacity`` positions of the games whose mines were placed (the board as the policy saw it, int8,
and its mines, uint8: 2 bytes a cell) and draws uniform minibatches from them with a generator of its own; the
update adds ``--mine-replay-steps`` gradient steps of the head's loss alone on such minibatches
(:meth:`train.sb3.mine_head.MineHeadAlgorithm.train`).

With ``--mine-replay-late W`` a late position (under a tenth of its safe cells still hidden, the endgame, where most
hidden cells are mines) is drawn W times as often as another: games end before their endgame more often than not, so
the endgame is a small share of any replay, and it is where an RL run's head misses the most certainly safe cells.

With ``--mine-replay-mirror N`` each drawn position is shown under one of N of the board's symmetries
(:mod:`mine_env.engine.symmetry`), its mines moved with it: a mirrored position is as likely a game as the position
itself, but a run's own games are not spread evenly over the images (its first click, for one, is one cell), so a
network that learns only them need not score a position and its mirror image alike (``minesweeper eval
--symmetries`` plays a network averaged over the images instead).

A checkpoint keeps the replay beside it (:func:`mine_replay_file`, an ``.npz``) with its generator's state, so a resumed
run draws the very minibatches an unbroken one does. A resumed run may change the capacity: the newest positions are
kept.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from mine_env.engine.constants import FLAG, HIDDEN
from mine_env.engine.symmetry import SYMMETRIES, check_symmetries

LATE_FRACTION = 0.1
"""A position is late when under this share of its safe cells is still hidden (the share of
``train.distill.data.LATE_FRACTION``, by which the studies count the stages; the two trainers do not import each
other)."""


def late_positions(boards: np.ndarray, mines: np.ndarray) -> np.ndarray:
    """Which positions (boards (N, cells) as the policy saw them, their mines) are late, bool (N,)."""
    covered = (boards == HIDDEN) | (boards == FLAG)
    safe_hidden = (covered & (mines == 0)).sum(axis=1)
    n_safe = mines.shape[1] - mines.sum(axis=1, dtype=np.int64)
    return safe_hidden < LATE_FRACTION * n_safe


class MineReplay:
    """A ring of the last ``capacity`` positions (flattened boards) with their true mines; ``late_weight`` is how
    many times as often a late position is drawn as another (1: uniform). :meth:`mirror` shows the draws under the
    board's symmetries."""

    def __init__(self, capacity: int, cells: int, seed: int, late_weight: float = 1.0) -> None:
        if capacity < 1:
            raise ValueError(f"a mine replay holds at least 1 position, got {capacity}")
        self.capacity = capacity
        self.boards = np.zeros((capacity, cells), dtype=np.int8)
        self.mines = np.zeros((capacity, cells), dtype=np.uint8)
        self.late = np.zeros(capacity, dtype=np.bool_)
        self.late_weight = float(late_weight)
        self.pos = 0
        self.size = 0
        self.rng = np.random.default_rng(seed)
        self.symmetries = 1
        self.board: tuple[int, int] = (1, cells)

    def mirror(self, symmetries: int, rows: int, cols: int) -> None:
        """Show each drawn position under one of the first ``symmetries`` of a ``rows`` x ``cols`` board's symmetries,
        chosen uniformly by the replay's generator (1: as it is, and no draw is made)."""
        if rows * cols != self.boards.shape[1]:
            raise ValueError(f"the replay holds boards of {self.boards.shape[1]} cells, not {rows}x{cols}")
        check_symmetries(symmetries, rows, cols)
        self.symmetries, self.board = symmetries, (rows, cols)

    def add(self, boards: np.ndarray, mines: np.ndarray, known: np.ndarray) -> None:
        """Keep the positions (N, cells) whose games had their mines placed (``known``, bool (N,)), oldest first."""
        boards, mines = boards[known], mines[known]
        if len(boards) > self.capacity:
            boards, mines = boards[-self.capacity :], mines[-self.capacity :]
        rows = (self.pos + np.arange(len(boards))) % self.capacity
        self.boards[rows] = boards
        self.mines[rows] = mines
        self.late[rows] = late_positions(boards, mines)
        self.pos = int((self.pos + len(boards)) % self.capacity)
        self.size = min(self.size + len(boards), self.capacity)

    def sample(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``count`` positions drawn with replacement (uniformly, or the late ones ``late_weight`` times as often):
        boards (count, cells) int8, mines uint8."""
        if self.size == 0:
            raise ValueError("the mine replay is empty: add a rollout before drawing from it")
        if self.late_weight == 1.0:
            rows = self.rng.integers(0, self.size, size=count)
        else:
            weights = np.where(self.late[: self.size], self.late_weight, 1.0)
            rows = self.rng.choice(self.size, size=count, p=weights / weights.sum())
        if self.symmetries == 1:
            return self.boards[rows], self.mines[rows]
        return self._mirrored(self.boards[rows], self.mines[rows])

    def _mirrored(self, boards: np.ndarray, mines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The positions (N, cells), each with its mines under one of :attr:`symmetries` drawn for it."""
        images = self.rng.integers(0, self.symmetries, size=len(boards))
        for image in range(1, self.symmetries):
            chosen = images == image
            forward = SYMMETRIES[image][0]
            for array in (boards, mines):
                array[chosen] = forward(array[chosen].reshape(-1, *self.board)).reshape(int(chosen.sum()), -1)
        return boards, mines

    def chronological(self) -> tuple[np.ndarray, np.ndarray]:
        """The positions held, oldest first."""
        rows = (self.pos - self.size + np.arange(self.size)) % self.capacity
        return self.boards[rows], self.mines[rows]

    def resized(self, capacity: int) -> MineReplay:
        """This replay with room for ``capacity`` positions (the newest kept), drawing on with the same generator."""
        if capacity == self.capacity:
            return self
        replay = MineReplay(capacity, self.boards.shape[1], 0, self.late_weight)
        boards, mines = self.chronological()
        replay.add(boards, mines, np.ones(len(boards), dtype=np.bool_))
        replay.rng, replay.symmetries, replay.board = self.rng, self.symmetries, self.board
        return replay

    def save(self, path: Path) -> None:
        """Write the replay and its generator's state to ``path`` (.npz), replacing it only once complete."""
        partial = path.with_name(f"partial-{path.name}")
        with open(partial, "wb") as file:
            np.savez_compressed(
                file, boards=self.boards[: self.size], mines=self.mines[: self.size], capacity=self.capacity,
                pos=self.pos, rng=json.dumps(self.rng.bit_generator.state),
            )  # fmt: skip
        os.replace(partial, path)

    @classmethod
    def load(cls, path: Path, capacity: int) -> MineReplay:
        """The replay saved at ``path``, with room for ``capacity`` positions (the newest kept where fewer)."""
        with np.load(path) as saved:
            boards, mines = saved["boards"], saved["mines"]
            replay = cls(int(saved["capacity"]), boards.shape[1], 0)
            replay.boards[: len(boards)], replay.mines[: len(mines)] = boards, mines
            replay.late[: len(boards)] = late_positions(boards, mines)
            replay.size, replay.pos = len(boards), int(saved["pos"])
            replay.rng.bit_generator.state = json.loads(str(saved["rng"]))
        return replay.resized(capacity)


def mine_replay_file(checkpoint: Path) -> Path:
    """Where a checkpoint's mine replay is written: ``latest_mine_replay.npz`` beside ``latest.zip``."""
    return checkpoint.with_name(f"{checkpoint.stem}_mine_replay.npz")

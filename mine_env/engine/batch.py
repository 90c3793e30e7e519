"""A batch of boards stepped in one compiled call: the engine behind the vector envs.

:class:`BatchEngine` holds N boards as stacked arrays and plays one action on each per :meth:`step`,
with the very kernels of :mod:`mine_env.engine.rules` that the single board uses, and resets a finished board
in the same call (same-step autoreset). It knows nothing of Gymnasium or stable-baselines3, so both
vector adapters (:mod:`mine_env.vector` and the training adapter) sit on it.

Seeding follows the single env exactly: board ``i`` after ``reset(seed)`` plays the same games as a
:class:`~mine_env.env.MinesweeperEnv` reset with ``seed + i`` and then reset without a seed, because both
draw one layout key per game from ``np.random.default_rng(seed + i)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from mine_env.engine import rules as k
from mine_env.engine.board import KEY_LIMIT
from mine_env.engine.constants import HIDDEN
from mine_env.engine.rewards import RewardConfig
from mine_env.engine.spec import BoardSpec

KEY_BLOCK = 256
"""Layout keys drawn at once per board; drawing a block equals drawing them one by one. Blocks are large
because each ``Generator.integers`` call costs ~20 us whatever its size, more than the draws themselves."""


@dataclass
class BatchStep:
    """What one batched step returns; arrays of length N (``final_obs`` is (N, n_cells))."""

    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    success: np.ndarray
    final_obs: np.ndarray


@njit(cache=True)
def _reset_board(obs, mines, counts, meta, stack, keys, key_pos, i, rows, cols, n_mines, rule):  # type: ignore[no-untyped-def]
    k.new_game(obs[i], mines[i], counts[i], meta[i], n_mines)
    meta[i, k.META_KEY] = keys[i, key_pos[i]]
    key_pos[i] += 1
    if rule == k.RULE_NONE:
        k.start_game(mines[i], counts[i], meta[i], stack, rows, cols, n_mines, rule, -1)


@njit(cache=True)
def _reset_all(obs, mines, counts, meta, stack, keys, key_pos, elapsed, rows, cols, n_mines, rule):  # type: ignore[no-untyped-def]
    for i in range(obs.shape[0]):
        _reset_board(obs, mines, counts, meta, stack, keys, key_pos, i, rows, cols, n_mines, rule)
        elapsed[i] = 0


@njit(cache=True)
def _step_all(  # type: ignore[no-untyped-def]
    obs, mines, counts, meta, stack, keys, key_pos, elapsed, actions,
    rows, cols, n_mines, rule, flags, max_steps, win, loss, progress, invalid,
    rewards, terminated, truncated, success, final_obs,
):  # fmt: skip
    for i in range(obs.shape[0]):
        revealed = k.apply_action(
            obs[i], mines[i], counts[i], meta[i], stack, rows, cols, n_mines, rule, flags, actions[i]
        )
        status = meta[i, k.META_STATUS]
        rewards[i] = k.step_reward(status, revealed, win, loss, progress, invalid)
        elapsed[i] += 1
        done = status == k.WON or status == k.LOST
        terminated[i] = done
        truncated[i] = (not done) and elapsed[i] >= max_steps
        success[i] = status == k.WON
        if done or truncated[i]:
            final_obs[i, :] = obs[i]
            _reset_board(obs, mines, counts, meta, stack, keys, key_pos, i, rows, cols, n_mines, rule)
            elapsed[i] = 0


@njit(cache=True)
def _fill_masks(obs, meta, rows, cols, flags, out):  # type: ignore[no-untyped-def]
    for i in range(obs.shape[0]):
        k.fill_action_mask(obs[i], meta[i], rows, cols, flags, out[i])


class BatchEngine:
    """N boards of one spec, stepped together with same-step autoreset."""

    def __init__(
        self, spec: BoardSpec, num_boards: int, flags: bool = False, rewards: RewardConfig | None = None,
        max_steps: int | None = None,
    ) -> None:  # fmt: skip
        if num_boards < 1:
            raise ValueError(f"num_boards must be at least 1, got {num_boards}")
        self.spec = spec
        self.num_boards = num_boards
        self.flags = bool(flags)
        self.rewards = rewards or RewardConfig()
        self.max_steps = 4 * spec.n_cells if max_steps is None else int(max_steps)
        self.n_actions = spec.n_cells * (2 if self.flags else 1)
        self._rule = k.RULE_CODES[spec.first_click]
        shape = (num_boards, spec.n_cells)
        self.obs = np.full(shape, HIDDEN, dtype=np.int8)
        self.mines = np.zeros(shape, dtype=np.uint8)
        self.counts = np.zeros(shape, dtype=np.int8)
        self.meta = np.zeros((num_boards, k.META_SIZE), dtype=np.int64)
        self.stack = np.empty(spec.n_cells, dtype=np.int32)  # scratch shared by the boards, which run in turn
        self.elapsed = np.zeros(num_boards, dtype=np.int64)
        self._keys = np.zeros((num_boards, KEY_BLOCK), dtype=np.int64)
        self._key_pos = np.zeros(num_boards, dtype=np.int64)
        self._rngs: list[np.random.Generator] = []
        self._out = BatchStep(
            rewards=np.zeros(num_boards, dtype=np.float64),
            terminated=np.zeros(num_boards, dtype=np.bool_),
            truncated=np.zeros(num_boards, dtype=np.bool_),
            success=np.zeros(num_boards, dtype=np.bool_),
            final_obs=np.full(shape, HIDDEN, dtype=np.int8),
        )

    def reset(self, seed: int | None = None) -> None:
        """Start a new game on every board; board i's keys come from ``default_rng(seed + i)``."""
        if seed is not None or not self._rngs:
            self._rngs = [np.random.default_rng(None if seed is None else seed + i) for i in range(self.num_boards)]
            self._key_pos[:] = KEY_BLOCK
        self._refill_keys()
        s = self.spec
        _reset_all(self.obs, self.mines, self.counts, self.meta, self.stack, self._keys, self._key_pos, self.elapsed,
                   s.rows, s.cols, s.mines, self._rule)  # fmt: skip

    def step(self, actions: np.ndarray) -> BatchStep:
        """Play ``actions[i]`` on board i; finished boards start a new game at once.

        The returned arrays are reused by the next call: copy what you keep.
        """
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_boards,):
            raise ValueError(f"expected {self.num_boards} actions, got an array of shape {actions.shape}")
        s, r, out = self.spec, self.rewards, self._out
        _step_all(
            self.obs, self.mines, self.counts, self.meta, self.stack, self._keys, self._key_pos, self.elapsed,
            actions, s.rows, s.cols, s.mines, self._rule, self.flags, self.max_steps,
            r.win, r.loss, r.progress, r.invalid,
            out.rewards, out.terminated, out.truncated, out.success, out.final_obs,
        )  # fmt: skip
        self._refill_keys()
        return out

    def action_masks(self) -> np.ndarray:
        """Valid actions, bool (N, n_actions)."""
        if not self.flags:
            playing = self.meta[:, k.META_STATUS] <= k.PLAYING
            return (self.obs == HIDDEN) & playing[:, None]
        out = np.empty((self.num_boards, self.n_actions), dtype=np.int8)
        _fill_masks(self.obs, self.meta, self.spec.rows, self.spec.cols, self.flags, out)
        return out.astype(bool)

    def grids(self) -> np.ndarray:
        """A copy of every board's grid, int8 (N, rows, cols)."""
        return self.obs.reshape(self.num_boards, self.spec.rows, self.spec.cols).copy()

    def _refill_keys(self) -> None:
        for i in np.flatnonzero(self._key_pos >= KEY_BLOCK):
            self._keys[i] = self._rngs[i].integers(0, KEY_LIMIT, size=KEY_BLOCK)
            self._key_pos[i] = 0

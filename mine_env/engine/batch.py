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

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from mine_env.engine import rules as k
from mine_env.engine.constants import HIDDEN
from mine_env.engine.layout_source import LayoutSource, first_reveals
from mine_env.engine.rewards import RewardConfig, RewardValues
from mine_env.engine.rng import draw_layout_keys
from mine_env.engine.spec import BoardSpec

KEY_BLOCK = 256
"""Layout keys drawn at once per board; drawing a block equals drawing them one by one. Blocks are large
because each ``Generator.integers`` call costs ~20 us whatever its size, more than the draws themselves."""


class BatchStep(NamedTuple):
    """What one batched step returns; arrays of length N (``final_obs`` is (N, n_cells)). ``invalid``: the
    action changed nothing (it was in the action space but not valid in its position)."""

    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    success: np.ndarray
    final_obs: np.ndarray
    invalid: np.ndarray


class BatchBoards(NamedTuple):
    """The state of N boards: each board's :class:`~mine_env.engine.rules.Game` arrays stacked (row i is
    board i; the flood-fill scratch ``stack`` is shared, the boards run in turn), the layout keys drawn ahead
    for each board with the position of the next one, and the steps each board's game has lasted."""

    obs: np.ndarray
    mines: np.ndarray
    counts: np.ndarray
    meta: np.ndarray
    stack: np.ndarray
    keys: np.ndarray
    key_pos: np.ndarray
    elapsed: np.ndarray


class BatchSettings(NamedTuple):
    """What every board of a batch plays by: the rules, flag actions on or off, the step limit of a game and
    the rewards."""

    rules: k.Rules
    flags: bool
    max_steps: int
    rewards: RewardValues


@njit(cache=True, inline="always")
def _next_key(keys: np.ndarray, key_pos: np.ndarray, i: int) -> int:
    """Board i's next layout key (the engine refills each board's block of keys between calls)."""
    key = keys[i, key_pos[i]]
    key_pos[i] += 1
    return key


@njit(cache=True)
def _reset_all(boards: BatchBoards, rules: k.Rules) -> None:
    """Start every board's next game."""
    obs, mines, counts, meta, stack = boards.obs, boards.mines, boards.counts, boards.meta, boards.stack
    keys, key_pos, elapsed = boards.keys, boards.key_pos, boards.elapsed
    for i in range(obs.shape[0]):
        k.new_game(obs[i], mines[i], counts[i], meta[i], stack, rules, _next_key(keys, key_pos, i))
        elapsed[i] = 0


@njit(cache=True)
def _step_all(boards: BatchBoards, settings: BatchSettings, actions: np.ndarray, out: BatchStep) -> None:
    """Play ``actions[i]`` on board i and write the outcomes into ``out``; a game that ends is reset at once.

    The arrays are taken out of the tuples once, before the loop, and each board's rows passed to the rules as
    views: a tuple of them per board (or the batch's tuple passed on inside the loop) would add reference
    counting to every board's step (see :mod:`mine_env.engine.rules`).
    """
    obs, mines, counts, meta, stack = boards.obs, boards.mines, boards.counts, boards.meta, boards.stack
    keys, key_pos, elapsed = boards.keys, boards.key_pos, boards.elapsed
    rules, flags, max_steps, rewards = settings.rules, settings.flags, settings.max_steps, settings.rewards
    earned, terminated, truncated, success = out.rewards, out.terminated, out.truncated, out.success
    final_obs, invalid = out.final_obs, out.invalid
    for i in range(obs.shape[0]):
        revealed = k.apply_action(obs[i], mines[i], counts[i], meta[i], stack, rules, flags, actions[i])
        invalid[i] = revealed == k.INVALID
        status = meta[i, k.META_STATUS]
        earned[i] = k.step_reward(status, revealed, rewards)
        elapsed[i] += 1
        done = status == k.WON or status == k.LOST
        terminated[i] = done
        truncated[i] = (not done) and elapsed[i] >= max_steps
        success[i] = status == k.WON
        if done or truncated[i]:
            for cell in range(obs.shape[1]):  # not a slice assignment, whose shape checks take seconds to compile
                final_obs[i, cell] = obs[i, cell]
            k.new_game(obs[i], mines[i], counts[i], meta[i], stack, rules, _next_key(keys, key_pos, i))
            elapsed[i] = 0


@njit(cache=True)
def _start_on(boards: BatchBoards, rules: k.Rules, which: np.ndarray, layouts: np.ndarray) -> None:
    """Start the games of boards ``which`` on ``layouts`` (row j for board ``which[j]``)."""
    mines, counts, meta = boards.mines, boards.counts, boards.meta
    for j in range(which.shape[0]):
        i = which[j]
        k.start_game_on(mines[i], counts[i], meta[i], layouts[j], rules.rows, rules.cols)


@njit(cache=True)
def _fill_masks(boards: BatchBoards, rules: k.Rules, flags: bool, out: np.ndarray) -> None:
    """Write every board's valid-action mask into row i of ``out``."""
    obs, meta = boards.obs, boards.meta
    for i in range(obs.shape[0]):
        k.fill_action_mask(obs[i], meta[i], rules.rows, rules.cols, flags, out[i])


class BatchEngine:
    """N boards of one spec, stepped together with same-step autoreset.

    With a ``layout_source`` (:mod:`mine_env.engine.layout_source`), the games a step's first reveals start
    are dealt the source's layouts, all in one call of the source, before the step plays.
    """

    def __init__(
        self, spec: BoardSpec, num_boards: int, flags: bool = False, rewards: RewardConfig | None = None,
        max_steps: int | None = None, layout_source: LayoutSource | None = None,
    ) -> None:  # fmt: skip
        if num_boards < 1:
            raise ValueError(f"num_boards must be at least 1, got {num_boards}")
        self.spec = spec
        self.layout_source = layout_source
        self.num_boards = num_boards
        self._rewards = rewards or RewardConfig()
        self.n_actions = spec.n_cells * (2 if flags else 1)
        self._settings = BatchSettings(
            rules=k.Rules(spec.rows, spec.cols, spec.mines, k.RULE_CODES[spec.first_click]),
            flags=bool(flags),
            max_steps=4 * spec.n_cells if max_steps is None else int(max_steps),
            rewards=self._rewards.values,
        )
        shape = (num_boards, spec.n_cells)
        self._boards = BatchBoards(
            obs=np.full(shape, HIDDEN, dtype=np.int8),
            mines=np.zeros(shape, dtype=np.uint8),
            counts=np.zeros(shape, dtype=np.int8),
            meta=np.zeros((num_boards, k.META_SIZE), dtype=np.int64),
            stack=np.empty(spec.n_cells, dtype=np.int32),
            keys=np.zeros((num_boards, KEY_BLOCK), dtype=np.int64),
            key_pos=np.zeros(num_boards, dtype=np.int64),
            elapsed=np.zeros(num_boards, dtype=np.int64),
        )
        self._rngs: list[np.random.Generator] = []
        self._out = BatchStep(
            rewards=np.zeros(num_boards, dtype=np.float64),
            terminated=np.zeros(num_boards, dtype=np.bool_),
            truncated=np.zeros(num_boards, dtype=np.bool_),
            success=np.zeros(num_boards, dtype=np.bool_),
            final_obs=np.full(shape, HIDDEN, dtype=np.int8),
            invalid=np.zeros(num_boards, dtype=np.bool_),
        )

    @property
    def rewards(self) -> RewardConfig:
        """What a step earns."""
        return self._rewards

    @property
    def flags(self) -> bool:
        """Whether flag (and chord) actions are on."""
        return self._settings.flags

    @property
    def max_steps(self) -> int:
        """Steps after which a game that has not ended is truncated."""
        return self._settings.max_steps

    def reset(self, seed: int | None = None) -> None:
        """Start a new game on every board; board i's keys come from ``default_rng(seed + i)``."""
        if seed is not None or not self._rngs:
            self._rngs = [np.random.default_rng(None if seed is None else seed + i) for i in range(self.num_boards)]
            self._boards.key_pos[:] = KEY_BLOCK
        self._refill_keys()
        _reset_all(self._boards, self._settings.rules)

    def step(self, actions: Any) -> BatchStep:
        """Play ``actions[i]`` on board i; finished boards start a new game at once.

        ``actions`` must be N integers in ``0..n_actions-1`` (see :meth:`checked_actions`); an action of that
        range that is not valid now changes nothing and earns the invalid reward. The returned arrays are
        reused by the next call: copy what you keep.
        """
        actions = self.checked_actions(actions)
        if self.layout_source is not None:
            self._deal(actions)
        _step_all(self._boards, self._settings, actions, self._out)
        self._refill_keys()
        return self._out

    def checked_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as int64 (N,) if they are N integer actions in ``0..n_actions-1``, else a ValueError
        naming them and the space.

        Two numpy operations on the hot path: a dtype and shape test, then one maximum over the actions viewed
        as unsigned (a negative action views as a number larger than any valid one).
        """
        try:
            array = np.asarray(actions)
        except ValueError:  # a ragged nesting of sequences
            raise self._action_error(f"actions {actions!r} are", f"{self.num_boards} integers") from None
        if array.shape != (self.num_boards,) or array.dtype.kind not in "iu":
            raise self._action_error(
                f"actions {_shown(array)} ({array.dtype} array of shape {array.shape}) are",
                f"an integer array of shape ({self.num_boards},)",
            )
        array = array.astype(np.int64, copy=False)
        unsigned = array.view(np.uint64)
        if unsigned.max() >= self.n_actions:
            board = int(np.argmax(unsigned >= self.n_actions))
            action = np.asarray(actions)[board].item()
            expected = f"integers from 0 to {self.n_actions - 1}"
            raise self._action_error(f"action {action!r} of board {board} is", expected)
        return array

    def _action_error(self, what: str, expected: str) -> ValueError:
        """The error of :meth:`checked_actions`: ``what`` (the actions and a verb) is not in the space."""
        space = f"the action space of {self.num_boards} boards, each Discrete({self.n_actions})"
        return ValueError(f"{what} not in {space}: expected {expected}")

    def action_masks(self) -> np.ndarray:
        """Valid actions, bool (N, n_actions)."""
        boards = self._boards
        if not self.flags:
            # fill_action_mask without flags (a hidden cell of a game still on), vectorised: 8x faster.
            playable = boards.meta[:, k.META_STATUS] <= k.PLAYING
            return (boards.obs == HIDDEN) & playable[:, None]
        out = np.empty((self.num_boards, self.n_actions), dtype=np.bool_)
        _fill_masks(boards, self._settings.rules, self.flags, out)
        return out

    def grids(self) -> np.ndarray:
        """A copy of every board's grid, int8 (N, rows, cols)."""
        return self._boards.obs.reshape(self.num_boards, self.spec.rows, self.spec.cols).copy()

    def layouts(self) -> tuple[np.ndarray, np.ndarray]:
        """Every board's mines, uint8 (N, n_cells), and whether its game has them yet, bool (N,): a game under
        the ``opening`` or ``safe`` rule places them at its first reveal. Training labels only (an auxiliary
        loss on the true mines); never part of an observation."""
        boards = self._boards
        return boards.mines.copy(), boards.meta[:, k.META_STATUS] == k.PLAYING

    def state(self) -> dict[str, Any]:
        """Everything that decides the boards' future: their games, their layout keys drawn ahead and each
        board's generator; :meth:`set_state` on an engine of the same spec continues exactly from here."""
        arrays = {name: getattr(self._boards, name).copy() for name in BatchBoards._fields if name != "stack"}
        return {"boards": arrays, "rngs": [rng.bit_generator.state for rng in self._rngs]}

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue from a :meth:`state` of an engine with the same spec and number of boards."""
        for name, array in state["boards"].items():
            target = getattr(self._boards, name)
            if target.shape != array.shape:
                raise ValueError(f"engine state for {name} has shape {array.shape}, this engine {target.shape}")
            target[...] = array
        self._rngs = []
        for saved in state["rngs"]:
            rng = np.random.default_rng()
            rng.bit_generator.state = saved
            self._rngs.append(rng)

    def _deal(self, actions: np.ndarray) -> None:
        """Deal the layout source's layouts to the boards whose action is their game's first reveal."""
        boards = self._boards
        starting = first_reveals(boards.obs, boards.meta, actions, self.spec.n_cells)
        if starting.size:
            layouts = self.layout_source(boards.meta[starting, k.META_KEY], actions[starting])
            _start_on(boards, self._settings.rules, starting, layouts)

    def _refill_keys(self) -> None:
        boards = self._boards
        for i in np.flatnonzero(boards.key_pos >= KEY_BLOCK):
            boards.keys[i] = draw_layout_keys(self._rngs[i], KEY_BLOCK)
            boards.key_pos[i] = 0


def _shown(array: np.ndarray) -> str:
    """A batch of actions as a short text: its first values only when it is long."""
    return np.array2string(array, threshold=8, separator=", ") if array.dtype != object else repr(array.tolist())

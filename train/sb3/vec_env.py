"""A stable-baselines3 ``VecEnv`` on the native batched engine (:class:`mine_env.engine.batch.BatchEngine`).

All N boards step in one numba call, so the Python cost per step is one call plus the info dicts SB3
wants. It follows SB3's conventions: same-step autoreset with ``infos[i]["terminal_observation"]``,
``"TimeLimit.truncated"`` and ``"is_success"`` at episode ends, and ``env_method("action_masks")``
returning one bool mask per board, which is what sb3-contrib's ``get_action_masks`` stacks for
MaskablePPO. Observations are the int8 grids (N, rows, cols); the networks one-hot them inside.
With ``keep_layouts`` it keeps the boards' layouts before each step (:meth:`BatchVecEnv.layouts_before_step`):
the labels of the auxiliary mine head (:mod:`train.sb3.mine_head`) for the observations the step acted on, never seen
by a policy; without it a step copies nothing more than it did.

Seeding matches SB3 and the single env: after ``seed(s)`` and ``reset()``, board i plays the games of
a :class:`~mine_env.env.MinesweeperEnv` reset with seed ``s + i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from mine_env.engine.batch import BatchEngine
from mine_env.engine.rewards import RewardConfig
from mine_env.engine.spec import BoardSpec
from mine_env.env import grid_space


class BatchVecEnv(VecEnv):
    """N Minesweeper boards (flags off) as one SB3 vector env; see the module docstring."""

    def __init__(
        self, spec: BoardSpec, num_envs: int, rewards: RewardConfig | None = None, max_steps: int | None = None,
        keep_layouts: bool = False,
    ) -> None:  # fmt: skip
        self.engine = BatchEngine(spec, num_envs, flags=False, rewards=rewards, max_steps=max_steps)
        self.board_spec = spec
        self.render_mode = None
        super().__init__(num_envs, grid_space(spec.rows, spec.cols), gym.spaces.Discrete(spec.n_cells))
        self._actions = np.zeros(num_envs, dtype=np.int64)
        self.keep_layouts = keep_layouts
        self._layouts = self.engine.layouts() if keep_layouts else None

    def reset(self) -> np.ndarray:
        """New games on every board, seeded by the last :meth:`seed` call if any (then forgotten)."""
        self.engine.reset(self._seeds[0])
        self._reset_seeds()
        return self.engine.grids()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(-1)  # checked by the engine: N integer actions in range

    def step_wait(self) -> VecEnvStepReturn:
        if self.keep_layouts:
            self._layouts = self.engine.layouts()
        out = self.engine.step(self._actions)
        obs = self.engine.grids()
        ended = out.terminated | out.truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        shape = (self.board_spec.rows, self.board_spec.cols)
        for i in np.flatnonzero(ended):
            infos[i] = {
                "terminal_observation": out.final_obs[i].reshape(shape).copy(),
                "TimeLimit.truncated": bool(out.truncated[i]),
                "is_success": bool(out.success[i]),
            }
        return obs, out.rewards.astype(np.float32), ended.copy(), infos

    def layouts_before_step(self) -> tuple[np.ndarray, np.ndarray]:
        """The mines of the games as they were before the last step (uint8 (N, n_cells)), and which of those
        games had their mines placed (bool (N,)): the true mines behind the observations that step acted on."""
        if self._layouts is None:
            raise ValueError("this env keeps no layouts: build it with keep_layouts=True (the mine head's labels)")
        return self._layouts

    def action_masks(self) -> np.ndarray:
        """Valid actions of every board, bool (N, n_actions)."""
        return self.engine.action_masks()

    def close(self) -> None:
        """Nothing to release: the boards are plain arrays."""

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"BatchVecEnv has no per-board attribute to set ({attr_name!r})")

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """Only ``action_masks`` is a per-board method here: returns one bool mask per requested board."""
        if method_name != "action_masks":
            raise AttributeError(f"BatchVecEnv boards have no method {method_name!r}; only 'action_masks'")
        masks = self.engine.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]

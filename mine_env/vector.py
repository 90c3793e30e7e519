"""The native Gymnasium vector env: N boards in one :class:`~mine_env.engine.batch.BatchEngine`.

``gym.make_vec("Minesweeper-v0", num_envs=N, vectorization_mode="vector_entry_point", **kwargs)`` returns
it. It autoresets in the same step: when board i ends, the returned observation is already its next
game, and ``info["final_obs"][i]`` (with ``info["_final_obs"][i]`` True) holds the last observation of
the finished one.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mine_env.boards import layout_source
from mine_env.engine.batch import BatchEngine
from mine_env.engine.constants import DEFAULT_BOARDS, DEFAULT_FIRST_CLICK
from mine_env.engine.rewards import RewardConfig
from mine_env.engine.spec import BoardSpec
from mine_env.env import OBS_MODES, check_env_options, grid_space, planes_space, resolve_rewards, to_planes
from mine_env.rendering import render_ansi, render_rgb


class MinesweeperVectorEnv(VectorEnv):
    """N Minesweeper boards stepped in one compiled call; same kwargs as the single env.

    With ``boards="no_guess"`` the boards whose action is a first reveal get their no-guess layouts in one
    compiled call before the step, the same layouts as the single env's for the same seed and first cell.

    Observations are batched versions of the single env's (``obs_mode`` "grid" or "planes"); masks come
    from :meth:`action_masks` (bool (N, n_actions)). Board i after ``reset(seed=s)`` plays exactly the
    games of a single env reset with ``seed=s + i``.

    Actions are N integers in ``0..n_actions-1`` (a list or an integer array); anything else (a float or
    bool array, a wrong length, an action out of range) raises ValueError naming it and the space. An action
    of the space that is not valid now changes nothing, earns the invalid reward and sets
    ``info["invalid_action"][i]`` (bool (N,), with ``info["_invalid_action"]`` all True, Gymnasium's layout).
    """

    metadata: ClassVar[dict[str, Any]] = {  # type: ignore[misc]  # (an instance variable of VectorEnv)
        "render_modes": ["ansi", "rgb_array"],
        "autoreset_mode": AutoresetMode.SAME_STEP,
    }

    def __init__(
        self,
        num_envs: int,
        preset: str | None = None,
        rows: int | None = None,
        cols: int | None = None,
        mines: int | None = None,
        first_click: str = DEFAULT_FIRST_CLICK,
        obs_mode: str = "grid",
        flags: bool = False,
        rewards: RewardConfig | dict[str, float] | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
        cell_px: int = 24,
        boards: str = DEFAULT_BOARDS,
    ) -> None:
        spec = BoardSpec.from_options(preset, rows, cols, mines, first_click)
        source = layout_source(boards, spec)
        self.boards = boards
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if obs_mode not in ("grid", "planes"):
            raise ValueError(f"the vector env supports obs_mode 'grid' or 'planes', got {obs_mode!r} (of {OBS_MODES})")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; expected one of {self.metadata['render_modes']}")
        check_env_options(flags, max_steps, cell_px)
        self.engine = BatchEngine(spec, int(num_envs), flags, resolve_rewards(rewards), max_steps, source)
        self.num_envs = self.engine.num_boards
        self.obs_mode = obs_mode
        self.render_mode = render_mode
        self.cell_px = int(cell_px)
        self.single_observation_space = (
            planes_space(spec.rows, spec.cols) if obs_mode == "planes" else grid_space(spec.rows, spec.cols)
        )
        self.single_action_space = spaces.Discrete(self.engine.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._every_board = np.ones(self.num_envs, dtype=np.bool_)
        self._every_board.flags.writeable = False  # shared by every step's info, so nobody may change it

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game on every board (board i seeded with ``seed + i``)."""
        self.engine.reset(seed)
        return self._observation(self.engine.grids()), {}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one action per board; finished boards restart in the same step."""
        out = self.engine.step(actions)
        done = out.terminated | out.truncated
        info: dict[str, Any] = {
            "is_success": out.success.copy(),
            "_is_success": done,
            "invalid_action": out.invalid.copy(),
            "_invalid_action": self._every_board,
        }
        if done.any():
            spec = self.engine.spec
            # A copy: the engine reuses its buffer on the next step, and callers may keep this info.
            final_grids = out.final_obs.reshape(self.num_envs, spec.rows, spec.cols).copy()
            info["final_obs"] = self._observation(final_grids)
            info["_final_obs"] = done
        return (
            self._observation(self.engine.grids()),
            out.rewards.copy(),
            out.terminated.copy(),
            out.truncated.copy(),
            info,
        )

    def action_masks(self) -> np.ndarray:
        """Valid actions, bool (N, n_actions)."""
        return self.engine.action_masks()

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]  # one board, not a tuple of all
        """The first board, as text or an RGB image."""
        grid = self.engine.grids()[0]
        if self.render_mode == "ansi":
            return render_ansi(grid)
        if self.render_mode == "rgb_array":
            return render_rgb(grid, cell_px=self.cell_px)
        return None

    def _observation(self, grids: np.ndarray) -> np.ndarray:
        return to_planes(grids) if self.obs_mode == "planes" else grids

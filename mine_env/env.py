"""The Gymnasium environment: a thin adapter over :class:`mine_env.engine.board.Board`."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import logger, spaces

from mine_env.boards import layout_source
from mine_env.engine import rules as k
from mine_env.engine.board import Board
from mine_env.engine.constants import DEFAULT_BOARDS, DEFAULT_FIRST_CLICK, FLAG, HIDDEN, MINE
from mine_env.engine.rewards import RewardConfig
from mine_env.engine.rng import draw_layout_key
from mine_env.engine.spec import BoardSpec
from mine_env.rendering import PygameWindow, render_ansi, render_rgb

OBS_MODES = ("grid", "planes", "dict")
PLANE_CODES: tuple[int, ...] = (HIDDEN, FLAG, MINE, 0, 1, 2, 3, 4, 5, 6, 7, 8)
"""Observation code shown by each one-hot plane of the ``planes`` mode, in channel order."""
_PLANE_CODES = np.array(PLANE_CODES, dtype=np.int8).reshape(-1, 1, 1)


_step_reward = getattr(k.step_reward, "py_func", k.step_reward)  # the plain function without the JIT
"""The reward rule of :func:`mine_env.engine.rules.step_reward`, called as Python: on scalars and a NamedTuple, a
compiled call's dispatch costs more than the arithmetic."""


def grid_space(rows: int, cols: int) -> spaces.Box:
    """The default observation space: int8 codes, -3..8."""
    return spaces.Box(low=MINE, high=8, shape=(rows, cols), dtype=np.int8)


def planes_space(rows: int, cols: int) -> spaces.Box:
    """The one-hot observation space: float32 (len(PLANE_CODES), rows, cols), channel-first."""
    return spaces.Box(low=0.0, high=1.0, shape=(len(PLANE_CODES), rows, cols), dtype=np.float32)


def to_planes(grid: np.ndarray) -> np.ndarray:
    """One-hot planes of a grid (rows, cols) or a batch of grids (..., rows, cols), channel before rows."""
    return (grid[..., None, :, :] == _PLANE_CODES).astype(np.float32)


def action_space_error(action: Any, n_actions: int, flags: bool) -> ValueError:
    """The error for an action outside ``Discrete(n_actions)``: it names the action, its type and the space."""
    expected = f"an integer from 0 to {n_actions - 1}"
    if flags:
        half = n_actions // 2
        expected += f" (0..{half - 1} reveal a cell, {half}..{n_actions - 1} toggle its flag)"
    elif isinstance(action, int | np.integer) and n_actions <= action < 2 * n_actions:
        expected += " (flag actions need flags=True)"
    return ValueError(
        f"action {action!r} ({type(action).__name__}) is not in the action space Discrete({n_actions}): "
        f"expected {expected}"
    )


def checked_action(action: Any, n_actions: int, flags: bool = False) -> int:
    """``action`` as a Python int if ``Discrete(n_actions)`` holds it, else the ValueError of
    :func:`action_space_error`.

    Python ints, numpy integer scalars and 0-d integer arrays are actions (SB3 passes numpy ones); bools,
    floats (even 3.0), strings, sequences, None and arrays of any other shape are not. A numpy integer is
    turned into an int before it is compared: comparing numpy scalars costs more than the conversion.
    """
    if isinstance(action, np.integer) or (isinstance(action, np.ndarray) and action.shape == ()
                                          and action.dtype.kind in "iu"):  # fmt: skip
        value = int(action)
    elif isinstance(action, int) and not isinstance(action, bool):
        value = action
    else:
        raise action_space_error(action, n_actions, flags)
    if not 0 <= value < n_actions:
        raise action_space_error(action, n_actions, flags)
    return value


MIN_CELL_PX = 8
"""The smallest cell the renderer can draw a digit in (:func:`mine_env.rendering.render_rgb` refuses less)."""


def check_env_options(flags: Any, max_steps: Any, cell_px: Any) -> None:
    """ValueError for options of the wrong kind, which ``bool()`` and ``int()`` would otherwise take silently
    (``flags="no"`` is true, ``max_steps=2.5`` is 2)."""
    if not isinstance(flags, bool | np.bool_):
        raise ValueError(f"flags must be True or False, got {flags!r}")
    if max_steps is not None and (not _is_integer(max_steps) or max_steps < 1):
        raise ValueError(f"max_steps must be an integer of at least 1 (or None for 4 * rows * cols), got {max_steps!r}")
    if not _is_integer(cell_px) or cell_px < MIN_CELL_PX:
        raise ValueError(f"cell_px must be an integer of at least {MIN_CELL_PX} to draw the digits, got {cell_px!r}")


def _is_integer(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def resolve_rewards(rewards: RewardConfig | dict[str, float] | None) -> RewardConfig:
    """Accept a RewardConfig, a dict of its fields, or None for the defaults."""
    if rewards is None:
        return RewardConfig()
    if isinstance(rewards, RewardConfig):
        return rewards
    if isinstance(rewards, dict):
        try:
            return RewardConfig(**rewards)
        except TypeError as error:
            raise ValueError(
                f"unknown reward option in {sorted(rewards)}: expected win, loss, progress, invalid"
            ) from error
    raise ValueError(f"rewards must be a RewardConfig or a dict, got {type(rewards).__name__}")


class MinesweeperEnv(gym.Env):
    """Minesweeper as a Gymnasium environment.

    ## Description
    The classic game on any board: reveal every cell without a mine. A revealed cell shows how many of
    its eight neighbours hold a mine; revealing a zero opens its whole zero region (flood fill).

    ## Action Space
    ``Discrete(rows * cols)``: action ``a`` reveals cell ``(a // cols, a % cols)``. With ``flags=True``,
    ``Discrete(2 * rows * cols)``: the upper half toggles the flag on cell ``a - rows * cols``, and
    revealing a revealed number whose flags are all placed chords it (reveals its other neighbours).
    Valid actions: ``info["action_mask"]`` (``np.int8``, 1 = valid) and :meth:`action_masks` (bool,
    the MaskablePPO convention). An action of the space that is not valid now (a revealed cell, a flag on
    a revealed cell) never raises: the board does not change, the step earns ``rewards.invalid`` and
    ``info["invalid_action"]`` is True. An action outside the space (out of range, a bool, a float, a
    string, a sequence, None, an array that is not 0-d) raises ValueError naming the action and the space.
    Python ints, numpy integer scalars and 0-d integer arrays are actions. No action is valid once the
    game is over.

    ## Observation Space
    - ``obs_mode="grid"`` (default): ``np.int8`` (rows, cols): -1 hidden, -2 flagged, -3 a shown mine
      (the one that lost), 0..8 a revealed count.
    - ``"planes"``: ``np.float32`` (12, rows, cols), one-hot planes for CNNs, in the order of
      :data:`PLANE_CODES` (hidden, flag, mine, 0..8).
    - ``"dict"``: ``{"observation": grid, "action_mask": np.int8 (n_actions,)}`` for networks that mask.

    ## Rewards
    +1.0 on the winning step, -1.0 on the losing step, 0.0 otherwise; all configurable through
    ``rewards`` (:class:`~mine_env.engine.rewards.RewardConfig`), including a progress shaping per newly
    revealed safe cell. Flag toggles earn nothing, so no reward can be farmed.

    ## Starting State
    Every cell hidden (the grid all -1, every reveal action valid). No mine is placed yet: ``reset`` draws
    the episode's layout key from ``self.np_random``, and the first reveal places the mines under the
    ``first_click`` rule (with ``first_click="none"``, at reset), so the layout is a pure function of the
    seed and the first cell.

    ## Episode End
    ``terminated`` when every safe cell is revealed (win) or a mine is revealed (loss). ``truncated``
    only when ``max_steps`` steps (valid or not) have been played without an end. Stepping a finished
    game (terminated or truncated) without a reset is a no-op (reward 0.0, the same end again,
    ``invalid_action`` True) that logs
    Gymnasium's warning once per game, as Gymnasium's own envs do (CartPole): a warning rather than
    ``ResetNeeded``, because the step is well defined and raising would break loops that step once more.

    ## Info
    ``mines`` (total), ``action_mask``, ``first_click`` (the rule), ``revealed`` (safe cells revealed),
    ``flags`` (flags placed), ``is_success`` (True on the winning step), ``invalid_action`` (True when the
    step's action was not valid now and changed nothing; False on reset). Never the layout.

    ## Arguments
    - ``preset``: "beginner" (9x9, 10 mines), "intermediate" (16x16, 40), "expert" (16x30, 99).
    - ``rows``, ``cols``, ``mines``: any board; each one given overrides the preset's (``preset="expert",
      rows=9`` plays 9x30 with 99 mines), and the beginner preset fills in when there is none.
    - ``first_click``: "opening" (default: the first revealed cell and its neighbours are mine-free, so
      it opens a zero), "safe" (the first revealed cell is mine-free), "none" (layout fixed at reset).
    - ``boards``: "random" (default: uniform layouts under the rule) or "no_guess": layouts that logic
      alone clears from the first click, using the mine count (docs/NO_GUESS.md); they need
      ``first_click="opening"`` and at most a quarter of the cells outside the first click's block as mines,
      and cost a generation at each game's first reveal (about 1.3 ms on expert).
    - ``obs_mode``: "grid", "planes" or "dict". ``flags``: enable flag and chord actions.
    - ``rewards``: a RewardConfig or dict of its fields. ``max_steps``: the step limit (default
      ``4 * rows * cols``). ``render_mode``: "ansi", "rgb_array" or "human" (pygame). ``cell_px``: the
      size of a cell in pixels for images.

    ## Rules and where they depart from the classic game
    Mines are placed when the first cell is revealed, uniformly over every layout the rule allows, as a
    pure function of the episode's seed and that first cell: two agents given one seed that open the
    same first cell play the same board. Windows' original rule moved a mine from the first cell to the
    top-left corner; ``safe`` instead draws uniformly among layouts that spare the first cell. The flood
    fill does not open flagged cells. A lost game shows the mine that was hit; the other mines appear in
    renders only. There is no timer and no question-mark state.

    ## Version History
    - v0: first release.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 8}  # type: ignore[misc]  # (an instance variable of gym.Env)

    def __init__(
        self,
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
        self.spec_board = BoardSpec.from_options(preset, rows, cols, mines, first_click)
        source = layout_source(boards, self.spec_board)
        self.boards = boards
        if obs_mode not in OBS_MODES:
            raise ValueError(f"unknown obs_mode {obs_mode!r}; expected one of {', '.join(OBS_MODES)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; expected one of {self.metadata['render_modes']}")
        check_env_options(flags, max_steps, cell_px)
        n_cells = self.spec_board.n_cells
        self.max_steps = 4 * n_cells if max_steps is None else int(max_steps)
        self.obs_mode = obs_mode
        self.flags = bool(flags)
        self._rewards = resolve_rewards(rewards)
        self._reward_values = self._rewards.values
        self.render_mode = render_mode
        self.cell_px = int(cell_px)
        self.n_actions = n_cells * (2 if self.flags else 1)
        self.action_space = spaces.Discrete(self.n_actions)
        self.observation_space = self._make_observation_space()
        self.board = Board(self.spec_board, layout_source=source)
        # Read on every step: plain attributes cost less than properties of the spec.
        self._mines, self._n_safe = self.spec_board.mines, self.spec_board.n_safe
        self._first_click = self.spec_board.first_click
        self._elapsed = 0
        self._warned_over = False
        self._window: PygameWindow | None = None

    def _make_observation_space(self) -> spaces.Space:
        rows, cols = self.spec_board.rows, self.spec_board.cols
        if self.obs_mode == "planes":
            return planes_space(rows, cols)
        if self.obs_mode == "dict":
            mask = spaces.Box(low=0, high=1, shape=(self.n_actions,), dtype=np.int8)
            return spaces.Dict({"observation": grid_space(rows, cols), "action_mask": mask})
        return grid_space(rows, cols)

    @property
    def rewards(self) -> RewardConfig:
        """What a step earns (fixed at construction)."""
        return self._rewards

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start a new game; its layout key is the one draw from ``self.np_random`` per episode."""
        super().reset(seed=seed)
        self.board.new_game(draw_layout_key(self.np_random))
        self._elapsed = 0
        self._warned_over = False
        return self._outcome(success=False, invalid=False)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play one action; see the class docstring for rewards, invalid actions and episode end."""
        if type(action) is not int or not 0 <= action < self.n_actions:  # the common case in one cheap test
            action = checked_action(action, self.n_actions, self.flags)
        board = self.board
        if board.is_over or self._elapsed >= self.max_steps:  # terminated, or truncated at max_steps
            return self._step_after_the_end()
        revealed = board.step(action, self.flags)
        status = board.status_code
        reward = float(_step_reward(status, revealed, self._reward_values))
        self._elapsed += 1
        terminated = status == k.WON or status == k.LOST
        truncated = not terminated and self._elapsed >= self.max_steps
        obs, info = self._outcome(success=status == k.WON, invalid=revealed == k.INVALID)
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Valid actions as a bool array (n_actions,), as MaskablePPO expects."""
        return self.board.action_mask(self.flags).astype(bool)

    def render(self) -> str | np.ndarray | None:
        """Draw the board in the env's ``render_mode`` (mines shown once the game is over)."""
        board = self.board
        layout = board.layout if board.is_over else None
        if self.render_mode == "ansi":
            return render_ansi(board.grid, layout)
        if self.render_mode in ("rgb_array", "human"):
            frame = render_rgb(board.grid, layout, self.cell_px)
            if self.render_mode == "rgb_array":
                return frame
            if self._window is None:
                self._window = PygameWindow(fps=self.metadata["render_fps"])
            self._window.show(frame)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    # ------------------------------------------------------------------ helpers
    def _step_after_the_end(self) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """A step on a finished game (terminated, or truncated at ``max_steps``): nothing changes; the end is
        returned again, with Gymnasium's warning once per game."""
        terminated = self.board.is_over
        if not self._warned_over:
            self._warned_over = True
            which = "terminated" if terminated else "truncated"
            logger.warn(
                f"You are calling 'step()' even though this environment has already returned {which} = True. "
                f"You should always call 'reset()' once you receive '{which} = True': this step changes nothing."
            )
        obs, info = self._outcome(success=False, invalid=True)
        return obs, 0.0, terminated, not terminated, info

    def _outcome(self, success: bool, invalid: bool) -> tuple[Any, dict[str, Any]]:
        """The observation and info of the board as it is now (and the frame, in human mode)."""
        board = self.board
        grid = board.grid
        mask = board.action_mask(self.flags)
        if self.render_mode == "human":
            self.render()
        info = {
            "mines": self._mines,
            "action_mask": mask,
            "first_click": self._first_click,
            "revealed": self._n_safe - board.safe_left,
            "flags": int(np.count_nonzero(grid == FLAG)) if self.flags else 0,
            "is_success": success,
            "invalid_action": invalid,
        }
        if self.obs_mode == "planes":
            return to_planes(grid), info
        if self.obs_mode == "dict":
            return {"observation": grid, "action_mask": mask.copy()}, info
        return grid, info

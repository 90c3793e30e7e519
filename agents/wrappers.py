"""Opt-in wrappers that give a policy the exact solver's knowledge (the oracle).

Nothing here is on by default, so "no solver help" is every result's default; a result that uses one of
these wrappers says so. Each wrapper asks the oracle (:mod:`agents.oracle`, on the exact count of
:mod:`mine_env.analysis.probability`) about the position the agent sees (flags are not trusted), once per step.
They read the env through its public attributes and do not import it: the env sits above the agents.

Examples:
    >>> import gymnasium as gym
    >>> env = SafeCellMask(gym.make("Minesweeper-v0"))
    >>> obs, info = env.reset(seed=0)
    >>> int(info["action_mask"].sum())  # before the first click every hidden cell is allowed
    81
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import RecordConstructorArgs

from agents.base import Agent
from agents.oracle import OracleView
from agents.random_agent import allowed_reveals
from mine_env.analysis.deduction import certain_moves
from mine_env.engine.constants import HIDDEN


def _minesweeper(env: gym.Env) -> Any:
    """The Minesweeper env under the wrappers: one with a ``board`` (its ``grid_view`` and ``status``), a
    ``spec_board``, an ``obs_mode`` and ``action_masks()``, as :class:`mine_env.env.MinesweeperEnv` has."""
    base = env.unwrapped
    has_board = hasattr(getattr(base, "board", None), "grid_view")
    if not has_board or not all(hasattr(base, name) for name in ("spec_board", "obs_mode", "action_masks")):
        raise ValueError(f"the oracle wrappers need a MinesweeperEnv, got {type(base).__name__}")
    return base


def _oracle(env: gym.Env) -> OracleView:
    """The exact count of the position in ``env``."""
    base = _minesweeper(env)
    return OracleView.of(base.board.grid_view, base.spec_board.mines)


class SafeCellMask(gym.Wrapper, RecordConstructorArgs):
    """Whenever a certainly safe cell exists, only revealing such cells is allowed.

    ``info["action_mask"]``, the ``action_mask`` of a dict observation and :meth:`action_masks` all carry
    the narrowed mask; when no cell is certainly safe (a guess is due) the env's own mask stands.
    """

    def __init__(self, env: gym.Env) -> None:
        RecordConstructorArgs.__init__(self)
        super().__init__(env)
        _minesweeper(env)
        self._cached: tuple[bytes, np.ndarray] | None = None

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return self._narrow(obs, info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        obs, info = self._narrow(obs, info)
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The narrowed mask as bool (n_actions,)."""
        return self._safe_mask(_minesweeper(self.env).action_masks().astype(np.int8)).astype(bool)

    def _narrow(self, obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        mask = self._safe_mask(info["action_mask"])
        info = {**info, "action_mask": mask}
        if isinstance(obs, dict) and "action_mask" in obs:
            obs = {**obs, "action_mask": mask.copy()}
        return obs, info

    def _safe_mask(self, mask: np.ndarray) -> np.ndarray:
        """The narrowed mask, counted once per position: ``step`` and ``action_masks`` both ask for it."""
        board = _minesweeper(self.env).board
        if board.status != "playing":
            return mask
        position = board.grid_view.tobytes()
        if self._cached is None or self._cached[0] != position:
            self._cached = (position, self._narrowed(mask))
        return self._cached[1].copy()

    def _narrowed(self, mask: np.ndarray) -> np.ndarray:
        safe = _oracle(self.env).safe
        n_cells = safe.size
        revealable_safe = safe & (mask[:n_cells] == 1)  # a flagged safe cell cannot be revealed
        if not revealable_safe.any():
            return mask.copy()
        narrowed = np.zeros_like(mask)
        narrowed[:n_cells] = revealable_safe
        return narrowed


class SafeCellsFirst(Agent):
    """An agent under the oracle's safe-cell mask (:class:`SafeCellMask`), from the agent's side: whenever the
    position has a certainly safe cell it is played, and ``agent`` chooses only when a guess is due (and the first
    click).

    Under :class:`SafeCellMask` the agent would choose among the safe cells; every order of revealing them reaches
    the same position once none is left, so the games are those, with the agent asked only for its guesses.
    """

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = f"{agent.name} +safe-mask"

    def reset(self) -> None:
        self.agent.reset()

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        flat = np.ascontiguousarray(obs, dtype=np.int8).ravel()
        if (flat == HIDDEN).all():  # the first click is the agent's
            return self.agent.act(obs, info)
        rows, cols = obs.shape
        cells, _, _, _ = certain_moves.py_func(flat, rows, cols, int(info["mines"]))
        playable = allowed_reveals(cells, info)
        return int(playable[0]) if playable.size else self.agent.act(obs, info)


class MineProbabilityObservation(gym.ObservationWrapper, RecordConstructorArgs):
    """Adds the exact mine probability of every cell to the observation.

    With ``obs_mode="planes"`` it becomes one more channel (the last); otherwise the observation becomes a
    dict with a ``"mine_probability"`` entry, float32 (rows, cols), beside the env's own (``"observation"``,
    and ``"action_mask"`` in dict mode). Revealed cells have 0.0. Before the first click every cell has
    mines / cells: the first-click rule's guarantee is not part of the count.
    """

    def __init__(self, env: gym.Env) -> None:
        RecordConstructorArgs.__init__(self)
        super().__init__(env)
        base = _minesweeper(env)
        rows, cols = base.spec_board.rows, base.spec_board.cols
        plane = spaces.Box(low=0.0, high=1.0, shape=(rows, cols), dtype=np.float32)
        inner = env.observation_space
        if base.obs_mode == "planes":
            assert isinstance(inner, spaces.Box)
            shape = (inner.shape[0] + 1, *inner.shape[1:])
            self.observation_space = spaces.Box(low=0.0, high=1.0, shape=shape, dtype=np.float32)
        elif isinstance(inner, spaces.Dict):
            self.observation_space = spaces.Dict({**inner.spaces, "mine_probability": plane})
        else:
            self.observation_space = spaces.Dict({"observation": inner, "mine_probability": plane})

    def observation(self, observation: Any) -> Any:
        base = _minesweeper(self.env)
        plane = _oracle(self.env).probabilities.astype(np.float32).reshape(base.board.grid_view.shape)
        if base.obs_mode == "planes":
            return np.concatenate([observation, plane[None]], axis=0)
        if isinstance(observation, dict):
            return {**observation, "mine_probability": plane}
        return {"observation": observation, "mine_probability": plane}


class AvoidableRiskInfo(gym.Wrapper, RecordConstructorArgs):
    """Says in ``info`` whether each move took a risk it could have avoided.

    ``info["move_risk"]`` is the mine chance of the revealed cell before the move (for a chord, the largest
    mine chance among the cells it opens: a lower bound of its risk; 0.0 for flag toggles and invalid
    actions) and ``info["avoidable_risk"]`` is True when the move was a guess (not certainly safe) while a
    certainly safe cell existed: :attr:`agents.oracle.MoveJudgement.avoidable`, the judgement the
    evaluation's avoidable losses use.
    """

    def __init__(self, env: gym.Env) -> None:
        RecordConstructorArgs.__init__(self)
        super().__init__(env)
        _minesweeper(env)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        risk, avoidable = self._judge(int(action))
        obs, reward, terminated, truncated, info = self.env.step(action)
        info = {**info, "move_risk": risk, "avoidable_risk": avoidable}
        return obs, reward, terminated, truncated, info

    def _judge(self, action: int) -> tuple[float, bool]:
        """(the move's risk, whether it was avoidable) for a valid reveal or chord; (0.0, False) otherwise."""
        base = _minesweeper(self.env)
        mask = base.action_masks()
        reveal_action = 0 <= action < base.spec_board.n_cells
        if base.board.status != "playing" or not reveal_action or not mask[action]:
            return 0.0, False
        judgement = _oracle(self.env).judge(action, mask)
        return judgement.risk, judgement.avoidable

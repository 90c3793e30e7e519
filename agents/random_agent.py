"""The floor every other policy must beat: a uniformly random valid reveal."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from mine_env.engine.geometry import cells_where, is_revealed


def valid_reveals(obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
    """Flat indices of the reveal actions the env's mask allows (flag actions, if any, are ignored)."""
    n_cells = obs.size
    valid = np.flatnonzero(np.asarray(info["action_mask"])[:n_cells])
    if valid.size == 0:
        raise ValueError("no valid reveal action: the action mask allows none (is the game over?)")
    return valid


def allowed_reveals(cells: np.ndarray, info: dict[str, Any]) -> np.ndarray:
    """The cells of ``cells`` whose reveal the env's mask allows (a flagged cell is no move), in their order: what
    ``np.intersect1d(cells, valid_reveals(obs, info))`` gives for increasing ``cells``, without its sort, which was
    a third of a certain-cells-first agent's time a move."""
    return cells[np.asarray(info["action_mask"])[cells].astype(bool)]


def follows(previous: np.ndarray | None, obs: np.ndarray) -> bool:
    """Whether ``obs`` can be a later position of the game ``previous`` was seen in.

    Revealed numbers never change within a game, so any revealed cell of ``previous`` that differs in
    ``obs`` means a new game (one started without calling ``reset``); agents then drop their memory.
    """
    if previous is None or previous.shape != obs.shape:
        return previous is None
    revealed = cells_where(previous, is_revealed)
    return bool(np.array_equal(previous[revealed], obs[revealed]))


class RandomAgent(Agent):
    """Reveals a cell chosen uniformly among the valid reveal actions.

    Args:
        seed: seed of the agent's own ``np.random.Generator`` (None: fresh entropy).
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        """A uniformly random valid reveal."""
        return int(self._rng.choice(valid_reveals(obs, info)))

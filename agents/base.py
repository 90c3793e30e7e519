"""The one interface every policy implements, learned or rule-based."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np


class Agent(ABC):
    """A Minesweeper policy that plays on the env's own observations.

    ``act`` receives the observation grid (``np.int8`` array of shape (rows, cols) with the codes of
    :mod:`mine_env.engine.constants`) and the step's ``info`` dict, which carries at least ``"mines"`` (the
    total mine count) and ``"action_mask"`` (``np.int8``, 1 = valid). It returns a flat action index:
    ``a`` reveals cell ``(a // cols, a % cols)``.
    """

    name: str = "agent"

    def reset(self) -> None:  # noqa: B027  (an optional hook: stateless agents need not override it)
        """Forget anything remembered from the previous game (called before each game)."""

    @abstractmethod
    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        """Choose the next action for this position."""

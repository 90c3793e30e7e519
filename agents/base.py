"""The one interface every policy implements, learned or rule-based, and the optional compiled-games capability."""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

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

    def plays_compiled_games(self) -> bool:
        """Whether :meth:`CompiledGames.play_compiled` plays exactly the games :meth:`act` would.

        By default: when some class of this agent defines ``play_compiled`` and no class below it (this
        agent's own class, a subclass of the defining one) defines any method, since a method there may
        change how the agent acts while the compiled games would not follow. A subclass that changes how
        it acts and still plays the same compiled games says so by overriding this method.
        """
        for cls in type(self).__mro__:
            if "play_compiled" in vars(cls):
                return True
            if any(inspect.isfunction(value) or isinstance(value, classmethod | staticmethod | property)
                   for value in vars(cls).values()):  # fmt: skip
                return False
        return False


@runtime_checkable
class CompiledGames(Protocol):
    """An agent that can also play whole games in compiled code, without the env (far faster)."""

    def play_compiled(
        self, rows: int, cols: int, mines: int, rule: str, keys: np.ndarray, seeds: Iterable[int],
        boards: str = "random", first_cells: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
        """Game ``g`` on the layout key ``keys[g]`` with agent seed ``seeds[g]``, played as the env would
        (with ``boards="no_guess"``, as the env of that ``boards`` would); ``first_cells[g]``, when given, is
        revealed first on the agent's behalf.

        Returns:
            (won, safe cells revealed, moves made), one entry per game.
        """
        ...

    def first_click(self, rows: int, cols: int, rule: str) -> tuple[int, int]:
        """The cell (row, col) every compiled game of this board and rule opens on."""
        ...


def compiled_player(agent: Agent) -> CompiledGames | None:
    """The agent as a player of compiled games when it has them and declares them its own
    (:meth:`Agent.plays_compiled_games`), else None."""
    if isinstance(agent, CompiledGames) and agent.plays_compiled_games():
        return agent
    return None

"""Reward settings: what a step earns, kept apart so that every env reads one definition."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class RewardValues(NamedTuple):
    """The four rewards as compiled kernels take them (see :class:`RewardConfig` for their meaning)."""

    win: float
    loss: float
    progress: float
    invalid: float


@dataclass(frozen=True)
class RewardConfig:
    """What a step earns (the rule itself is :func:`mine_env.engine.rules.step_reward`).

    Only revealing safe cells, winning and losing earn anything, so no reward can be farmed: a flag
    toggle earns 0.0, and a revealed cell can be revealed only once.

    Args:
        win: Reward on the step that reveals the last safe cell.
        loss: Reward on the step that reveals a mine.
        progress: Shaping per safe cell newly revealed on a step that neither wins nor loses
            (0.0 by default: the plain win/loss signal). ``1 / n_safe`` spreads at most 1.0 over a game.
        invalid: Reward for an invalid action (a revealed cell, a cell outside the board, any action
            after the game ended); the board does not change. Set it negative to penalise.
    """

    win: float = 1.0
    loss: float = -1.0
    progress: float = 0.0
    invalid: float = 0.0

    def __post_init__(self) -> None:
        for name in ("win", "loss", "progress", "invalid"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"reward {name} must be a number, got {value!r}")
            object.__setattr__(self, name, float(value))

    @property
    def values(self) -> RewardValues:
        """These rewards as :func:`mine_env.engine.rules.step_reward` takes them."""
        return RewardValues(self.win, self.loss, self.progress, self.invalid)

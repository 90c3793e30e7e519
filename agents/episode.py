"""The one play loop: an agent plays one seeded game of a Minesweeper env to its end.

Every place that plays whole games through the env (the evaluation runner, ``minesweeper games``) plays
them here, so a game means the same thing everywhere: reset with the seed, ask the agent, step, until the
game ends. The env is any Gymnasium env with the Minesweeper info keys (``action_mask``, ``revealed``,
``is_success``; :class:`mine_env.env.MinesweeperEnv` and its wrappers); this module does not import it.

An optional observer sees every move with the position it was played in, for example to judge it with the
exact oracle (:mod:`eval.judge`); its time is not counted as the game's.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import gymnasium as gym

from agents.base import Agent


class Move(NamedTuple):
    """One move of a game, as an observer sees it after the env has played it.

    Attributes:
        obs: The observation the agent acted on.
        info: Its info (``info["action_mask"]`` is the mask of that position, before the move).
        action: The action played.
        valid: Whether the action was valid in that position (an invalid one changes nothing).
        terminated: Whether the move ended the game.
        won: Whether the move won it.
    """

    obs: Any
    info: dict[str, Any]
    action: int
    valid: bool
    terminated: bool
    won: bool

    @property
    def lost(self) -> bool:
        """Whether the move lost the game (revealed a mine)."""
        return self.terminated and not self.won


MoveObserver = Callable[[Move], None]
"""Called after every move of a game with that move."""


class Episode(NamedTuple):
    """How one game went.

    Attributes:
        won: Whether every safe cell was revealed.
        steps: Moves played, invalid ones included.
        invalid_moves: Moves that were not valid in their position (they change nothing).
        safe_revealed: Safe cells revealed at the end.
        seconds: Time spent by the agent and the env from the reset on (the observer's left out).
        first_action: The first cell played: under a first-click rule it places the mines, so two agents
            that open on different cells play different layouts of the same seed.
    """

    won: bool
    steps: int
    invalid_moves: int
    safe_revealed: int
    seconds: float
    first_action: int


def play_episode(
    env: gym.Env, agent: Agent, seed: int | None, *, observer: MoveObserver | None = None, name: str | None = None,
    opening: int | None = None,
) -> Episode:
    """Reset ``env`` with ``seed``, ``reset()`` the agent, and let it play until the game ends or is cut off.

    Args:
        env: A Minesweeper env (its info carries ``action_mask``, ``revealed`` and ``is_success``).
        agent: The player; each action must be an integer index into ``env.action_space``.
        seed: The env's reset seed: the layout is a pure function of it and the first cell revealed.
        observer: Called with every :class:`Move` after the env played it; its time is not the game's.
        name: The agent's name in error messages (default ``agent.name``).
        opening: An action played first on the agent's behalf (its ``act`` is first called on the position
            after it), so that every agent plays the same layout under a first-click rule; None: the agent opens.

    Raises:
        ValueError: the agent returned something that is not an action of the env, naming the agent.
    """
    name = agent.name if name is None else name
    n_actions = int(env.action_space.n)
    agent.reset()
    steps = invalid = 0
    first_action = -1
    observed = 0.0
    start = time.perf_counter()
    obs, info = env.reset(seed=seed)
    while True:
        chosen = opening if steps == 0 and opening is not None else agent.act(obs, info)
        action = checked_action(chosen, n_actions, name)
        valid = bool(info["action_mask"][action])
        if steps == 0:
            first_action = action
        next_obs, _, terminated, truncated, next_info = env.step(action)
        steps += 1
        invalid += not valid
        if observer is not None:
            tick = time.perf_counter()
            observer(Move(obs, info, action, valid, terminated, bool(next_info["is_success"])))
            observed += time.perf_counter() - tick
        obs, info = next_obs, next_info
        if terminated or truncated:
            break
    seconds = time.perf_counter() - start - observed
    return Episode(bool(info["is_success"]), steps, invalid, int(info["revealed"]), seconds, first_action)


def checked_action(action: Any, n_actions: int, name: str) -> int:
    """The agent's action as a Python int in ``0..n_actions - 1``, or a ValueError naming the agent."""
    try:
        index = operator.index(action)
    except TypeError:
        raise ValueError(f"agent {name!r} returned {action!r}; an action must be an integer index") from None
    if not 0 <= index < n_actions:
        raise ValueError(f"agent {name!r} returned action {index}, outside 0..{n_actions - 1}")
    return index

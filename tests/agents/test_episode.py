"""The one play loop: a seeded game to its end, its record, the observer's view of every move, bad actions."""

from __future__ import annotations

import time
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agents.base import Agent
from agents.episode import Move, play_episode
from agents.random_agent import RandomAgent


class Scripted(Agent):
    """Plays its script, then the safe cells it peeks at in the env's layout (a cheat that always wins)."""

    name = "scripted"

    def __init__(self, env: gym.Env, script: tuple[int, ...] = ()) -> None:
        self.env = env
        self.script = script

    def reset(self) -> None:
        self.moves = list(self.script)

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        if self.moves:
            return self.moves.pop(0)
        safe_hidden = (obs.ravel() < 0) & ~self.env.unwrapped.board.layout.ravel()
        return int(np.flatnonzero(safe_hidden)[0])


def layout_env(seed: int) -> tuple[gym.Env, np.ndarray]:
    """A 5x5 env with 4 mines and no first-click rule (the layout is dealt at reset), and that layout."""
    env = gym.make("Minesweeper-v0", rows=5, cols=5, mines=4, first_click="none")
    env.reset(seed=seed)
    return env, env.unwrapped.board.layout.ravel()


def test_a_won_game_is_recorded_and_every_move_is_observed_with_its_position() -> None:
    env, layout = layout_env(seed=2)
    safe = int(np.flatnonzero(~layout)[0])
    moves: list[Move] = []
    episode = play_episode(env, Scripted(env, script=(safe, safe)), seed=2, observer=moves.append)
    assert episode.won and episode.safe_revealed == 21 and episode.invalid_moves == 1
    assert episode.steps == len(moves) and [m.action for m in moves[:2]] == [safe, safe]
    assert (moves[0].obs == -1).all() and moves[0].info["action_mask"].sum() == 25  # before the first move
    assert [m.valid for m in moves[:2]] == [True, False]  # the second reveal of the same cell changes nothing
    assert moves[-1].won and moves[-1].terminated and not any(m.terminated for m in moves[:-1])


def test_a_lost_game_ends_on_the_mine() -> None:
    env, layout = layout_env(seed=4)
    mine = int(np.flatnonzero(layout)[0])
    moves: list[Move] = []
    episode = play_episode(env, Scripted(env, script=(mine,)), seed=4, observer=moves.append)
    assert not episode.won and episode.steps == 1 and episode.safe_revealed == 0
    (only,) = moves
    assert only.lost and only.valid and only.action == mine


def test_the_same_seed_gives_the_same_game_and_the_agent_is_reset_before_it() -> None:
    env = gym.make("Minesweeper-v0")
    first = [play_episode(env, RandomAgent(seed=1), seed) for seed in range(5)]
    again = [play_episode(env, RandomAgent(seed=1), seed) for seed in range(5)]
    assert [e[:4] for e in first] == [e[:4] for e in again]
    scripted, layout = layout_env(seed=4)
    agent = Scripted(scripted, script=(int(np.flatnonzero(layout)[0]),))  # its script loses at once
    assert [play_episode(scripted, agent, seed=4).steps for _ in range(2)] == [1, 1]


def test_an_opening_is_played_for_the_agent_which_acts_from_the_next_position_on() -> None:
    env, layout = layout_env(seed=2)
    safe = np.flatnonzero(~layout)
    moves: list[Move] = []
    agent = Scripted(env, script=(int(safe[1]),))
    episode = play_episode(env, agent, seed=2, observer=moves.append, opening=int(safe[0]))
    assert episode.first_action == moves[0].action == safe[0] and moves[1].action == safe[1]
    assert episode.won and (moves[1].obs.ravel()[safe[0]] >= 0)  # the agent first saw the opened cell


def test_the_observers_time_is_not_the_games() -> None:
    env, _ = layout_env(seed=3)
    episode = play_episode(env, Scripted(env), seed=3, observer=lambda move: time.sleep(0.05))
    assert episode.steps >= 1 and episode.seconds < 0.05


@pytest.mark.parametrize(("action", "match"), [(1.5, "must be an integer"), (25, r"outside 0\.\.24"), (-1, "outside")])
def test_an_action_that_is_not_the_envs_names_the_agent(action: Any, match: str) -> None:
    env, _ = layout_env(seed=0)
    with pytest.raises(ValueError, match=match) as error:
        play_episode(env, Scripted(env, script=(action,)), seed=0, name="my-agent")
    assert "'my-agent'" in str(error.value)

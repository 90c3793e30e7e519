"""Whole solver games in compiled code make the very moves the agent makes through the env."""

from __future__ import annotations

import numpy as np
import pytest

from agents.solver import SolverAgent
from eval.runner import GamePlayer, resolve_agents
from eval.suites import Suite
from mine_env.engine.board import layout_key
from mine_env.engine.constants import PRESETS
from mine_env.env import MinesweeperEnv

SETTINGS = {
    "fast": "solver-fast",
    "standard": "solver-standard",
    "strong": "solver",
}


@pytest.mark.slow
@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize(("preset", "rule"), [("beginner", "safe"), ("beginner", "opening"), ("intermediate", "none")])
def test_compiled_games_make_the_same_moves_as_games_through_the_env(setting: str, preset: str, rule: str) -> None:
    rows, cols, mines = PRESETS[preset]
    games = 12 if preset == "beginner" else 4
    suite = Suite(name="t", rows=rows, cols=cols, mines=mines, first_click=rule, games=games, base_seed=9)
    agents = resolve_agents([SETTINGS[setting]], suite.spec())
    compiled = GamePlayer(suite, agents, oracle=False).play_games(0, range(games))
    through_env = GamePlayer(suite, agents, oracle=True).play_games(0, range(games))
    for a, b in zip(compiled, through_env, strict=True):
        assert (a.won, a.steps, a.safe_revealed) == (b.won, b.steps, b.safe_revealed)


def test_a_given_first_cell_is_clicked_first_through_the_env_and_in_compiled_games() -> None:
    env = MinesweeperEnv(rows=9, cols=9, mines=10, first_click="opening")
    expected = []
    for game in range(6):
        agent = SolverAgent(seed=game, first_cell=(1, 6))
        obs, info = env.reset(seed=100 + game)
        assert agent.act(obs, info) == 1 * 9 + 6
        agent.reset()
        steps, done = 0, False
        while not done:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            steps, done = steps + 1, terminated or truncated
        expected.append((bool(info["is_success"]), int(info["revealed"]), steps))
    keys = np.array([layout_key(100 + game) for game in range(6)], dtype=np.int64)
    won, revealed, steps = SolverAgent(first_cell=(1, 6)).play_compiled(9, 9, 10, "opening", keys, range(6))
    assert list(zip(won.tolist(), revealed.tolist(), steps.tolist(), strict=True)) == expected
    assert SolverAgent(first_cell=None).first_click(9, 9, "opening") == (2, 2)

"""The three baseline agents: validity, determinism, certainty claims, first clicks and whole games."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mine_env  # noqa: F401  (registers the env ids)
from agents import Agent, RandomAgent, RuleAgent, SolverAgent
from agents.probability import analyse
from agents.random_agent import allowed_reveals, valid_reveals
from agents.solver import first_click_cell
from agents.solver.reference import progress_chance
from mine_env.engine.constants import HIDDEN
from support import info_for, play, random_position

AGENT_CLASSES = (RandomAgent, RuleAgent, SolverAgent)


# ----------------------------------------------------------------------------------------------------------
# Valid actions and determinism.
# ----------------------------------------------------------------------------------------------------------


def test_allowed_reveals_are_the_cells_the_mask_allows_as_an_intersection_gives_them() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 60))
        info = {"action_mask": rng.random(2 * n) < 0.7}  # reveal actions, then flag actions
        info["action_mask"][0] = True
        cells = np.flatnonzero(rng.random(n) < 0.4)
        expected = np.intersect1d(cells, valid_reveals(np.zeros(n), info))
        np.testing.assert_array_equal(allowed_reveals(cells, info), expected)


@pytest.mark.parametrize("agent_class", AGENT_CLASSES)
def test_agents_return_valid_reveals(agent_class: type[Agent]) -> None:
    rng = np.random.default_rng(0)
    agent = agent_class(seed=1)
    for _ in range(40):
        rows, cols = rng.integers(2, 10, size=2)
        mines = int(rng.integers(1, rows * cols // 3 + 2))
        _, grid = random_position(rng, int(rows), int(cols), min(mines, rows * cols - 1))
        if not (grid == HIDDEN).any():
            continue
        agent.reset()
        info = info_for(grid, min(mines, rows * cols - 1))
        action = agent.act(grid, info)
        assert isinstance(action, int)
        assert info["action_mask"][action] == 1


@pytest.mark.parametrize("agent_class", AGENT_CLASSES)
def test_seeded_agents_repeat_their_games(agent_class: type[Agent]) -> None:
    env = gym.make("Minesweeper-v0", preset="beginner", first_click="safe")
    runs = [[play(agent_class(seed=5), env, seed) for seed in range(3)] for _ in range(2)]
    assert runs[0] == runs[1]


def test_an_empty_mask_is_refused() -> None:
    grid = np.full((3, 3), HIDDEN, np.int8)
    info = {"mines": 1, "action_mask": np.zeros(9, np.int8), "first_click": "safe"}
    with pytest.raises(ValueError, match="no valid reveal"):
        RandomAgent(seed=0).act(grid, info)


# ----------------------------------------------------------------------------------------------------------
# Certainty.
# ----------------------------------------------------------------------------------------------------------


def test_solver_takes_a_certainly_safe_cell_whenever_there_is_one() -> None:
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(150):
        layout, grid = random_position(rng, 8, 8, 12)
        if not (grid == HIDDEN).any():
            continue
        analysis = analyse(grid, 12)
        row, col = divmod(SolverAgent(seed=0).act(grid, info_for(grid, 12)), 8)
        hidden_p = np.where(grid == HIDDEN, analysis.probabilities, np.inf)
        if analysis.certain_safe.any():
            assert analysis.certain_safe[row, col]
            assert not layout[row, col]
            checked += 1
        else:
            assert hidden_p[row, col] <= hidden_p.min() * (1 + 1e-9)
    assert checked > 20


@pytest.mark.parametrize("agent_class", [RuleAgent, SolverAgent])
def test_memory_is_dropped_when_a_new_game_starts_without_reset(agent_class: type[Agent]) -> None:
    rng = np.random.default_rng(4)
    agent = agent_class(seed=0)
    moves = 0
    for _ in range(60):
        _, grid = random_position(rng, 8, 8, 10)
        if not (grid == HIDDEN).any():
            continue
        action = agent.act(grid, info_for(grid, 10))  # no reset between unrelated positions
        if agent_class is RuleAgent:
            certain = RuleAgent(seed=0).deduce(grid)[0]
        else:
            certain = set(np.flatnonzero(analyse(grid, 10).certain_safe).tolist())
        if certain:
            assert action in certain
            moves += 1
    assert moves > 10


def test_progress_chance_counts_a_zero_as_progress() -> None:
    analysis = analyse(np.full((5, 5), HIDDEN, np.int8), 2)
    corner_zero = analysis.value_distribution((0, 0))[1]
    assert progress_chance(analysis, (0, 0)) >= corner_zero > 0.0


# ----------------------------------------------------------------------------------------------------------
# First clicks.
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "cols", "rule", "expected"),
    [
        (9, 9, "safe", (0, 0)),
        (9, 9, "none", (0, 0)),
        (9, 9, "opening", (2, 2)),
        (16, 16, "opening", (2, 2)),
        (16, 30, "opening", (3, 3)),
        (30, 16, "opening", (3, 3)),
        (2, 2, "opening", (1, 1)),
        (1, 5, "opening", (0, 2)),
    ],
)
def test_solver_first_click(rows: int, cols: int, rule: str, expected: tuple[int, int]) -> None:
    assert first_click_cell(rows, cols, rule) == expected
    grid = np.full((rows, cols), HIDDEN, np.int8)
    action = SolverAgent(seed=0).act(grid, info_for(grid, 1, first_click=rule))
    assert divmod(action, cols) == expected


def test_unknown_first_click_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="first-click rule"):
        first_click_cell(9, 9, "lucky")


# ----------------------------------------------------------------------------------------------------------
# Whole games through the env.
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.statistical
@pytest.mark.parametrize(
    ("agent_class", "low", "high"), [(RandomAgent, 0, 2), (RuleAgent, 30, 50), (SolverAgent, 41, 50)]
)
def test_win_rates_on_beginner_opening(agent_class: type[Agent], low: int, high: int) -> None:
    env = gym.make("Minesweeper-v0", preset="beginner", first_click="opening")
    agent = agent_class(seed=0)
    wins = sum(play(agent, env, seed)[0] for seed in range(50))
    assert low <= wins <= high

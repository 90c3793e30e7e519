"""The oracle wrappers: what they allow is truly safe, what they show is the exact count."""

from __future__ import annotations

import ast
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mine_env
from agents import wrappers
from agents.base import Agent
from agents.probability import mine_probabilities
from agents.wrappers import AvoidableRiskInfo, MineProbabilityObservation, SafeCellMask, SafeCellsFirst


def _opened(env: gym.Env, seed: int) -> tuple[np.ndarray, dict]:
    """Reset with ``seed`` and open the centre cell (a zero under the opening rule)."""
    env.reset(seed=seed)
    obs, _, _, _, info = env.step(40)
    return obs, info


def test_safe_cell_mask_allows_only_safe_cells_when_one_exists() -> None:
    env = SafeCellMask(gym.make("Minesweeper-v0"))
    checked = 0
    for seed in range(20):
        obs, info = _opened(env, seed)
        layout = env.unwrapped.board.layout.ravel()
        allowed = np.flatnonzero(info["action_mask"])
        hidden = np.flatnonzero(obs.ravel() == mine_env.HIDDEN)
        assert set(allowed) <= set(hidden)
        if len(allowed) < len(hidden):  # narrowed: a certain-safe cell exists
            assert not layout[allowed].any()
            assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
            checked += 1
    assert checked >= 10


def test_safe_cell_mask_keeps_the_full_mask_before_the_first_click() -> None:
    env = SafeCellMask(gym.make("Minesweeper-v0"))
    _, info = env.reset(seed=1)
    assert info["action_mask"].sum() == 81


def test_safe_cell_mask_narrows_dict_observations_too() -> None:
    env = SafeCellMask(gym.make("Minesweeper-v0", obs_mode="dict"))
    for seed in range(10):
        env.reset(seed=seed)
        obs, _, _, _, info = env.step(40)
        assert np.array_equal(obs["action_mask"], info["action_mask"])


def test_mine_probability_plane_is_the_exact_count() -> None:
    env = MineProbabilityObservation(gym.make("Minesweeper-v0", obs_mode="planes"))
    env.reset(seed=3)
    obs, *_ = env.step(40)
    assert obs.shape == (13, 9, 9) and obs.dtype == np.float32
    grid = env.unwrapped.board.grid
    np.testing.assert_allclose(obs[-1], mine_probabilities(grid, 10), atol=1e-7)


def test_mine_probability_on_grid_observations_is_a_dict() -> None:
    env = MineProbabilityObservation(gym.make("Minesweeper-v0"))
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observation", "mine_probability"}
    np.testing.assert_allclose(obs["mine_probability"], np.full((9, 9), 10 / 81), rtol=1e-6)
    assert env.observation_space.contains(obs)


def test_avoidable_risk_flags_a_guess_taken_beside_a_safe_cell() -> None:
    env = AvoidableRiskInfo(gym.make("Minesweeper-v0"))
    for seed in range(30):
        obs, _ = _opened(env, seed)
        probabilities = mine_probabilities(obs, 10)
        hidden = obs == mine_env.HIDDEN
        if not (hidden & (probabilities == 0.0)).any():
            continue
        risky = int(np.flatnonzero((hidden & (probabilities > 0.0)).ravel())[0])
        _, _, _, _, info = env.step(risky)
        assert info["avoidable_risk"] is True
        assert info["move_risk"] == pytest.approx(probabilities.ravel()[risky])
        return
    pytest.fail("no seed gave a position with a certain-safe cell")


def test_avoidable_risk_is_false_for_safe_moves_and_invalid_actions() -> None:
    env = AvoidableRiskInfo(gym.make("Minesweeper-v0"))
    _opened(env, 0)
    _, _, _, _, info = env.step(40)  # already revealed: invalid
    assert info["move_risk"] == 0.0 and info["avoidable_risk"] is False


@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")
@pytest.mark.parametrize("wrapper", [SafeCellMask, MineProbabilityObservation, AvoidableRiskInfo])
def test_wrapped_envs_pass_the_checker(wrapper) -> None:  # type: ignore[no-untyped-def]
    check_env(wrapper(gym.make("Minesweeper-v0").unwrapped), skip_render_check=True)


def test_wrappers_reject_other_envs() -> None:
    with pytest.raises(ValueError, match="need a MinesweeperEnv"):
        SafeCellMask(gym.make("CartPole-v1"))


def test_safe_cell_mask_never_allows_revealing_a_flagged_safe_cell() -> None:
    env = SafeCellMask(gym.make("Minesweeper-v0", flags=True))
    for seed in range(20):
        _opened(env, seed)
        safe = np.flatnonzero(env.action_masks()[:81])
        if len(safe) == np.count_nonzero(env.unwrapped.board.grid == mine_env.HIDDEN):
            continue  # not narrowed: no certain-safe cell here
        for cell in safe:  # flag every safe cell: none of them may stay allowed for a reveal
            _, _, _, _, info = env.step(81 + int(cell))
        assert not info["action_mask"][safe].any()
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        return
    pytest.fail("no seed gave a position with a certain-safe cell")


def test_the_wrappers_read_the_env_without_importing_it() -> None:
    # The env sits above the agents: the wrappers reach it through the wrapped env's public attributes.
    tree = ast.parse(Path(wrappers.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not imported & {"mine_env.env", "mine_env.vector", "mine_env"}


class _LowestCell(Agent):
    """Plays the lowest valid cell, and counts how often it was asked."""

    name = "lowest"

    def __init__(self) -> None:
        self.asked = 0

    def act(self, obs: np.ndarray, info: dict) -> int:
        self.asked += 1
        return int(np.flatnonzero(info["action_mask"])[0])


def test_safe_cells_first_plays_the_games_of_the_safe_cell_mask() -> None:
    """An agent under SafeCellsFirst in the plain env ends each game as it does in the env under SafeCellMask (the
    safe cells may be revealed in another order, never another guess), and is asked only for its first click
    and its guesses."""
    masked_env, plain_env = SafeCellMask(gym.make("Minesweeper-v0")), gym.make("Minesweeper-v0")
    inner = _LowestCell()
    wrapped = SafeCellsFirst(inner)
    assert wrapped.name == "lowest +safe-mask"
    asked_less = 0
    for seed in range(15):
        games = []
        for env, agent in ((masked_env, _LowestCell()), (plain_env, wrapped)):
            obs, info = env.reset(seed=seed)
            agent.reset()
            moves, done = [], False
            while not done:
                action = agent.act(obs, info)
                moves.append(action)
                obs, _, done, _, info = env.step(action)
            games.append((obs.tobytes(), info["is_success"], len(moves)))
        assert games[0][:2] == games[1][:2]
        asked_less += inner.asked < games[1][2]
        inner.asked = 0
    assert asked_less >= 10

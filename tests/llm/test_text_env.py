"""``Minesweeper-Text-v0``: the Gymnasium API, the same games as ``Minesweeper-v0``, bad input of every kind
answered in info, and the oracle's grades and rewards."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mine_env  # noqa: F401  (registers the ids)
from agents.oracle import OracleView
from agents.registry import make_agent
from mine_llm.grading import REWARD_SCHEMES, SAFE_BY_RULE, GameTally, TextRewards, grade_reveal, resolve_rewards
from mine_llm.policies import agent_move
from mine_llm.prompt import parse_observation
from mine_llm.text_env import MinesweeperTextEnv
from support import REPO, command_env, grid_from_rows


def small(**kwargs: object) -> MinesweeperTextEnv:
    return MinesweeperTextEnv(rows=5, cols=5, mines=3, **kwargs)


def test_the_registered_id_passes_gymnasiums_checks() -> None:
    env = gym.make("Minesweeper-Text-v0", rows=5, cols=5, mines=3)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["game"]["replies"] == 0


def test_importing_mine_env_does_not_import_the_text_env() -> None:
    code = "import sys, mine_env, gymnasium as g; print('mine_llm' in sys.modules, 'Minesweeper-Text-v0' in g.registry)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=command_env(),
                         check=True).stdout  # fmt: skip
    assert out.split() == ["False", "True"]


RULES_AND_BOARDS = [("opening", "random"), ("safe", "random"), ("opening", "no_guess")]


@pytest.mark.parametrize(("first_click", "boards"), RULES_AND_BOARDS)
def test_a_seed_plays_the_same_game_as_minesweeper_v0(first_click: str, boards: str) -> None:
    """The solver's moves, read from the text, give the very grids of the grid env after every move."""
    text_env = MinesweeperTextEnv(preset="beginner", first_click=first_click, boards=boards)
    grid_env = gym.make("Minesweeper-v0", preset="beginner", first_click=first_click, boards=boards)
    for seed in (0, 1, 2):
        observation, _ = text_env.reset(seed=seed)
        grid, info = grid_env.reset(seed=seed)
        agent = make_agent("solver", seed)
        terminated = False
        while not terminated:
            move = agent_move(agent, observation)
            row, col = (int(part) for part in move.split()[1:])
            observation, _, terminated, _, text_info = text_env.step(move)
            grid, _, grid_terminated, _, info = grid_env.step(row * 9 + col)
            assert np.array_equal(parse_observation(observation).grid, grid)
            assert (terminated, text_info["is_success"], text_info["revealed"]) == (
                grid_terminated, info["is_success"], info["revealed"])  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("hello there", "no move found in 'hello there'"),
        ("", "empty reply"),
        (None, "a reply must be text"),
        (["reveal", 1, 1], "got list"),
        ("reveal 5 0", "cell (5, 0) is off the board: rows 0-4, columns 0-4"),
        ("flag -1 2", "cell (-1, 2) is off the board"),
        ("reveal 2 2", "cell (2, 2) is already open"),
        ("flag 2 2", "cell (2, 2) is open: only a hidden cell takes a flag"),
        ('{"action": "reveal", "row": "two", "col": 1}', "row must be an integer"),
    ],
)  # fmt: skip
def test_bad_input_changes_nothing_and_says_why(reply: object, error: str) -> None:
    env = small(reward="dense")
    env.reset(seed=3)
    before, _, _, _, _ = env.step("reveal 2 2")  # opens a zero under the opening rule
    grid = parse_observation(before).grid
    observation, reward, terminated, truncated, info = env.step(reply)
    assert info["invalid_action"] and error in info["error"] and "\n" not in info["error"]
    assert f"Last move: invalid, nothing changed: {info['error']}" in observation
    assert np.array_equal(parse_observation(observation).grid, grid)
    assert (reward, terminated, truncated) == (-0.1, False, False)
    assert info["oracle"] is None and info["game"]["invalid_replies"] == 1 and info["game"]["replies"] == 2


def test_flags_play_through_text_and_are_graded_by_the_oracle() -> None:
    env = small(reward="dense")
    env.reset(seed=3)
    observation, *_ = env.step("reveal 2 2")
    board = parse_observation(observation).grid
    view = OracleView.of(board, 3)
    hidden = board.ravel() == -1
    safe = divmod(int(np.flatnonzero(hidden & view.safe)[0]), 5)
    unsure = divmod(int(np.flatnonzero(hidden & ~view.safe)[0]), 5)
    observation, reward, _, _, info = env.step({"action": "flag", "row": unsure[0], "col": unsure[1]})
    assert info["move"] == {"action": "flag", "row": unsure[0], "col": unsure[1]} and reward == 0.0
    assert info["oracle"] == {"mine_chance": pytest.approx(view.probabilities[unsure[0] * 5 + unsure[1]]),
                              "wrong_flag": False}  # fmt: skip
    assert "placed a flag" in info["last_move"] and "2 left to flag" in observation
    _, _, _, _, info = env.step(f"reveal {unsure[0]} {unsure[1]}")
    assert "is flagged: take the flag off with" in info["error"]
    _, _, _, _, info = env.step(f"unflag {unsure[0]} {unsure[1]}")
    assert "took the flag off" in info["last_move"] and info["oracle"] is None
    assert info["game"]["logic_score"] == 1.0 and info["game"]["wrong_flags"] == 0
    _, reward, _, _, info = env.step(f"flag {safe[0]} {safe[1]}")  # the oracle knows this cell is safe
    assert info["oracle"] == {"mine_chance": 0.0, "wrong_flag": True} and reward == pytest.approx(-0.1)
    assert info["game"]["flags_graded"] == 2 and info["game"]["wrong_flags"] == 1
    assert info["game"]["logic_score"] == pytest.approx(1 / 2)  # one logical reveal, one wrong flag
    no_flags = small(flags=False)
    no_flags.reset(seed=3)
    assert "flags are off" in no_flags.step("flag 0 0")[4]["error"]


def test_steps_after_the_end_and_the_step_limit() -> None:
    env = small(max_steps=3)
    env.reset(seed=0)
    for _ in range(2):
        _, _, _, truncated, _ = env.step("nonsense")
        assert not truncated
    _, _, terminated, truncated, info = env.step("nonsense")
    assert truncated and not terminated and info["game"]["replies"] == 3
    won = small()
    observation, _ = won.reset(seed=0)
    agent = make_agent("solver", 0)
    terminated = False
    while not terminated:
        observation, reward, terminated, _, info = won.step(agent_move(agent, observation))
    assert info["is_success"] and reward == 1.0 and "Status: won" in observation
    observation, reward, terminated, truncated, info = won.step("reveal 0 0")
    assert (reward, terminated, truncated, info["is_success"]) == (0.0, True, False, False)
    assert info["error"] == "the game is over: reset to play again"


def test_the_oracle_grades_a_safe_cell_a_needless_guess_and_a_forced_one() -> None:
    # One mine, somewhere in (0, 2) or (1, 2): column 3 is certainly safe.
    grid = grid_from_rows("0 1 . .", "0 1 . .")
    mask = (grid.ravel() == -1).astype(np.int8)
    safe = grade_reveal(grid, 1, 3, mask, protected_first=False)
    assert safe == (True, 0.0, 0.0, 0.0, False) and safe.logical
    needless = grade_reveal(grid, 1, 2, mask, protected_first=False)
    assert needless.guess and needless.safe_available and not needless.logical
    assert needless.mine_chance == pytest.approx(0.5) and needless.avoidable_risk == pytest.approx(0.5)
    forced = grade_reveal(grid_from_rows("0 1 .", "0 1 ."), 1, 2, np.array([0, 0, 1, 0, 0, 1], np.int8), False)
    assert forced.guess and not forced.safe_available and forced.logical
    assert forced.mine_chance == pytest.approx(0.5) == forced.safest_chance
    first = np.full((3, 3), -1, np.int8)
    assert grade_reveal(first, 2, 4, np.ones(9, np.int8), protected_first=True) == SAFE_BY_RULE
    assert grade_reveal(first, 2, 4, np.ones(9, np.int8), protected_first=False).mine_chance == pytest.approx(2 / 9)
    tally = GameTally()
    for grade, lost in ((safe, False), (forced, False), (needless, True)):
        tally.add(grade, lost)
    assert tally.logic_score == pytest.approx(2 / 3) and tally.avoidable_loss and tally.safe_missed == 1


def test_dense_rewards_follow_the_grades_on_random_play() -> None:
    env = small(reward="dense", first_click="none")
    for seed in range(6):
        observation, _ = env.reset(seed=seed)
        agent = make_agent("random", seed)
        terminated = truncated = False
        while not (terminated or truncated):
            observation, reward, terminated, truncated, info = env.step(agent_move(agent, observation))
            grade = info["oracle"]
            assert grade["mine_chance"] >= grade["safest_chance"] - 1e-12 and grade["avoidable_risk"] >= 0
            if grade["guess"] and grade["safe_available"]:
                assert grade["avoidable_risk"] == pytest.approx(grade["mine_chance"])
            end = 1.0 if info["is_success"] else -1.0 if terminated else 0.0
            assert reward == pytest.approx(0.1 * (not grade["guess"]) - grade["avoidable_risk"] + end)
        game = info["game"]
        assert game["graded_moves"] == game["replies"] and 0 <= game["logic_score"] <= 1


def test_the_zero_start_opens_a_zero_cell_at_reset() -> None:
    env = MinesweeperTextEnv(preset="beginner", first_click="none", start="zero")
    observation, info = env.reset(seed=4)
    row, col = info["start_cell"]
    board = parse_observation(observation).grid
    assert board[row, col] == 0 and info["revealed"] > 1 and info["game"]["replies"] == 0
    assert f"reveal {row} {col} was played for you (the zero start)" in info["last_move"]
    assert env.reset(seed=4)[1]["start_cell"] == (row, col)
    with pytest.raises(ValueError, match="the zero start opens a zero cell of a uniform layout"):
        MinesweeperTextEnv(first_click="opening", start="zero")
    with pytest.raises(ValueError, match="unknown start 'late'"):
        MinesweeperTextEnv(start="late")


def test_reward_options_and_bad_arguments() -> None:
    assert resolve_rewards("sparse") == TextRewards() and resolve_rewards({"win": 2.0}).win == 2.0
    assert REWARD_SCHEMES["dense"].invalid == -0.1
    for bad, error in (("shaped", "unknown reward scheme 'shaped'"), ({"bonus": 1}, "unknown reward field"),
                       (3, "reward must be")):  # fmt: skip
        with pytest.raises(ValueError, match=error):
            small(reward=bad)
    with pytest.raises(ValueError, match="grade must be True or False"):
        small(grade="yes")
    with pytest.raises(ValueError, match="unknown render_mode"):
        small(render_mode="human")
    with pytest.raises(ValueError, match="mines"):
        MinesweeperTextEnv(rows=3, cols=3, mines=20)
    env = small(grade=False)
    env.reset(seed=0)
    assert env.step("reveal 2 2")[4]["oracle"] is None

"""The Gymnasium env: checkers, scripted games on the hand board, seeding, pickling, rewards and bad input.

The scripted games play the hand board of conftest.py (flags on, so flag actions are 20 + cell):

      0 1 2 3 4          counts:  0 1 2 3 4
   0  * . . . .                0  * 2 1 1 0
   1  . . * . .                1  1 2 * 1 0
   2  . . . . .                2  0 1 1 2 1
   3  . . . . *                3  0 0 0 1 *
"""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mine_env
from mine_env import FLAG, HIDDEN, MINE, MinesweeperEnv
from mine_env.env import PLANE_CODES
from support import cell, flag, grid_from_rows, make_hand_env

# SB3's checker advises on network choices (a 2-D int8 grid is no image, planes are small float images);
# those are advice for the user's policy, not defects of the env. Any other warning fails the test.
SB3_ADVICE = ("unconventional shape", "is an image but", "minimal resolution", "Treating image space as channels-last")

ENV_VARIANTS = [{}, {"obs_mode": "planes"}, {"obs_mode": "dict"}, {"flags": True}, {"render_mode": "ansi"}]


def play(env: gym.Env, actions: list[int]) -> list[tuple[Any, float, bool, bool, dict[str, Any]]]:
    return [env.step(action) for action in actions]


def random_valid_action(rng: np.random.Generator, info: dict[str, Any]) -> int:
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def as_grid(obs: Any) -> np.ndarray:
    return obs["observation"] if isinstance(obs, dict) else obs


# ----------------------------------------------------------------------------- checkers
@pytest.mark.parametrize("env_id", list(mine_env.ENV_IDS))
@pytest.mark.parametrize("kwargs", ENV_VARIANTS, ids=["default", "planes", "dict", "flags", "ansi"])
def test_gymnasium_check_env_passes_without_warnings(env_id: str, kwargs: dict[str, Any]) -> None:
    env = gym.make(env_id, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=False)
    env.close()


@pytest.mark.parametrize("env_id", list(mine_env.ENV_IDS))
@pytest.mark.parametrize("kwargs", ENV_VARIANTS[:4], ids=["default", "planes", "dict", "flags"])
def test_stable_baselines3_check_env_passes(env_id: str, kwargs: dict[str, Any]) -> None:
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")  # the train extra
    env = gym.make(env_id, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_checker.check_env(env.unwrapped, warn=True)
    unexpected = [str(w.message) for w in caught if not any(advice in str(w.message) for advice in SB3_ADVICE)]
    assert unexpected == []


def test_the_env_can_be_made_by_module_path_without_importing_it_first() -> None:
    env = gym.make("mine_env:Minesweeper-v0")
    assert isinstance(env.unwrapped, MinesweeperEnv)
    assert env.unwrapped.spec_board.mines == 10


@pytest.mark.parametrize(
    ("env_id", "shape", "mines"),
    [("Minesweeper-Beginner-v0", (9, 9), 10), ("Minesweeper-Intermediate-v0", (16, 16), 40),
     ("Minesweeper-Expert-v0", (16, 30), 99)],
)  # fmt: skip
def test_each_preset_id_has_its_board(env_id: str, shape: tuple[int, int], mines: int) -> None:
    env = gym.make(env_id)
    obs, info = env.reset(seed=0)
    assert obs.shape == shape and obs.dtype == np.int8 and info["mines"] == mines
    assert env.action_space.n == shape[0] * shape[1]


def test_a_size_given_with_a_preset_overrides_it_as_the_docs_say() -> None:
    """`preset="expert", rows=9` plays 9x30 with 99 mines: said in the env's docstring and the README."""
    env = gym.make("Minesweeper-v0", preset="expert", rows=9)
    obs, info = env.reset(seed=0)
    assert obs.shape == (9, 30) and info["mines"] == 99
    docstring = " ".join((MinesweeperEnv.__doc__ or "").split())
    assert '``preset="expert", rows=9`` plays 9x30 with 99 mines' in docstring
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    assert '`preset="expert", rows=9` plays 9x30 with 99 mines' in readme


# ----------------------------------------------------------------------------- scripted games
def test_a_winning_game_step_by_step(hand_env: gym.Env) -> None:
    rewards, ends = [], []
    for action in (cell(3, 0), cell(0, 4), cell(0, 1), cell(0, 2)):
        _, reward, terminated, truncated, info = hand_env.step(action)
        rewards.append(reward)
        ends.append((terminated, truncated, info["is_success"]))
    assert rewards == [0.0, 0.0, 0.0, 1.0]
    assert ends == [(False, False, False)] * 3 + [(True, False, True)]
    assert info["revealed"] == 17 and not info["action_mask"].any()


def test_a_lost_game_shows_the_mine_and_costs_one(hand_env: gym.Env) -> None:
    hand_env.step(cell(3, 0))
    obs, reward, terminated, truncated, info = hand_env.step(cell(1, 2))
    expected = grid_from_rows(
        ". . . . .",
        "1 2 X . .",
        "0 1 1 2 .",
        "0 0 0 1 .",
    )
    np.testing.assert_array_equal(obs, expected)
    assert (reward, terminated, truncated, info["is_success"]) == (-1.0, True, False, False)
    assert set(info) == {"mines", "action_mask", "first_click", "revealed", "flags", "is_success", "invalid_action"}


def test_a_chord_on_a_satisfied_number_reveals_its_neighbours(hand_env: gym.Env) -> None:
    hand_env.step(cell(0, 4))
    _, reward, _, _, info = hand_env.step(flag(1, 2))
    assert reward == 0.0 and info["flags"] == 1
    obs, reward, terminated, _, _ = hand_env.step(cell(1, 3))  # reveal on a satisfied number = chord
    expected = grid_from_rows(
        ". . 1 1 0",
        ". . F 1 0",
        ". . 1 2 1",
        ". . . . .",
    )
    np.testing.assert_array_equal(obs, expected)
    assert (reward, terminated) == (0.0, False)


def test_a_chord_with_a_wrong_flag_loses(hand_env: gym.Env) -> None:
    hand_env.step(cell(0, 4))
    hand_env.step(flag(0, 2))  # wrong: (1,2) is the mine next to (1,3)
    obs, reward, terminated, _, _ = hand_env.step(cell(1, 3))
    assert obs[1, 2] == MINE and obs[0, 2] == FLAG
    assert (reward, terminated) == (-1.0, True)


def test_flags_toggle_earn_nothing_and_cannot_go_on_revealed_cells(hand_env: gym.Env) -> None:
    obs, reward, _, _, info = hand_env.step(flag(2, 2))
    assert obs[2, 2] == FLAG and reward == 0.0 and info["flags"] == 1
    assert info["action_mask"][cell(2, 2)] == 0 and info["action_mask"][flag(2, 2)] == 1
    obs, reward, _, _, info = hand_env.step(flag(2, 2))
    assert obs[2, 2] == HIDDEN and reward == 0.0 and info["flags"] == 0
    hand_env.step(cell(2, 2))
    before = hand_env.unwrapped.board.grid
    obs, reward, terminated, _, info = hand_env.step(flag(2, 2))
    np.testing.assert_array_equal(obs, before)
    assert (reward, terminated, info["action_mask"][flag(2, 2)]) == (0.0, False, 0)


def test_the_flood_fill_does_not_open_flagged_cells(hand_env: gym.Env) -> None:
    hand_env.step(flag(3, 1))
    obs, *_ = hand_env.step(cell(3, 0))
    np.testing.assert_array_equal(obs[2:], grid_from_rows("0 1 . . .", "0 F . . ."))


@pytest.mark.parametrize("action", [cell(0, 1), flag(0, 1)], ids=["reveal-revealed", "flag-revealed"])
def test_an_action_of_the_space_not_valid_now_is_a_no_op_with_the_penalty(action: int) -> None:
    env = make_hand_env(flags=True, rewards={"invalid": -0.25})
    env.step(cell(0, 1))
    before = env.unwrapped.board.export_state()
    obs, reward, terminated, truncated, info = env.step(action)
    np.testing.assert_array_equal(obs.ravel(), before.obs)
    assert (reward, terminated, truncated, info["is_success"]) == (-0.25, False, False, False)
    assert info["invalid_action"] is True
    assert env.unwrapped.board.steps == 1


def test_invalid_action_is_false_on_reset_and_valid_steps(hand_env: gym.Env) -> None:
    _, info = hand_env.reset(seed=1)
    assert info["invalid_action"] is False
    assert hand_env.step(cell(3, 0))[4]["invalid_action"] is False
    assert hand_env.step(flag(0, 0))[4]["invalid_action"] is False


NOT_IN_THE_SPACE = [
    (40, r"action 40 \(int\) is not in the action space Discrete\(40\): expected an integer from 0 to 39"),
    (-1, r"action -1 \(int\) is not in the action space Discrete\(40\)"),
    (10**9, r"action 1000000000 \(int\) is not in the action space"),
    (np.int64(-3), r"action np.int64\(-3\) \(int64\) is not in the action space"),
    (3.7, r"action 3.7 \(float\) is not in the action space"),
    (3.0, r"action 3.0 \(float\) is not in the action space"),
    (np.float32(3), r"\(float32\) is not in the action space"),
    ("3", r"action '3' \(str\) is not in the action space"),
    (True, r"action True \(bool\) is not in the action space"),
    (np.bool_(False), r"\(bool\) is not in the action space"),
    ((2, 3), r"action \(2, 3\) \(tuple\) is not in the action space"),
    ([3], r"action \[3\] \(list\) is not in the action space"),
    (None, r"action None \(NoneType\) is not in the action space"),
    (np.array([3]), r"action array\(\[3\]\) \(ndarray\) is not in the action space"),
    (np.array(3.0), r"action array\(3.\) \(ndarray\) is not in the action space"),
]


@pytest.mark.parametrize(("action", "message"), NOT_IN_THE_SPACE, ids=[repr(a) for a, _ in NOT_IN_THE_SPACE])
def test_an_action_outside_the_space_raises_a_value_error_naming_it_and_the_space(action: Any, message: str) -> None:
    env = make_hand_env(flags=True)
    before = env.unwrapped.board.export_state()
    with pytest.raises(ValueError, match=message):
        env.step(action)
    np.testing.assert_array_equal(env.unwrapped.board.export_state().obs, before.obs)


def test_the_space_error_says_what_each_half_of_the_flag_actions_does() -> None:
    with pytest.raises(ValueError, match=r"0\.\.19 reveal a cell, 20\.\.39 toggle its flag"):
        make_hand_env(flags=True).step(40)


def test_flag_actions_without_flags_are_outside_the_space() -> None:
    env = make_hand_env()
    assert env.action_space.n == 20
    with pytest.raises(ValueError, match=r"action 25 \(int\) is not in the action space Discrete\(20\).*flags=True"):
        env.step(25)


@pytest.mark.parametrize("action", [np.int64(3), np.int32(3), np.uint8(3), np.array(3), np.array(3, dtype=np.int16)])
def test_numpy_integer_scalars_and_0d_arrays_are_actions(action: Any) -> None:
    env = make_hand_env()
    obs, *_, info = env.step(action)
    assert obs[0, 3] == 1 and info["invalid_action"] is False


def test_stepping_a_finished_game_warns_once_and_changes_nothing(hand_env: gym.Env) -> None:
    last = hand_env.step(cell(0, 0))
    with pytest.warns(UserWarning, match="already returned terminated = True") as warned:
        outcomes = [hand_env.step(action) for action in (cell(3, 0), flag(2, 2), cell(0, 1))]
    assert len(warned) == 1
    for obs, reward, terminated, truncated, info in outcomes:
        np.testing.assert_array_equal(obs, last[0])
        assert (reward, terminated, truncated, info["is_success"]) == (0.0, True, False, False)
        assert info["invalid_action"] is True
    with pytest.raises(ValueError, match="not in the action space"):
        hand_env.step(-5)  # the space is checked even then
    hand_env.reset(seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hand_env.step(cell(3, 0))  # a new game: no warning


def test_episodes_are_truncated_at_max_steps() -> None:
    env = make_hand_env(flags=True, max_steps=3)
    outcomes = [step[2:4] for step in play(env, [flag(0, 0), flag(0, 0), cell(3, 0)])]
    assert outcomes == [(False, False), (False, False), (False, True)]


def test_stepping_a_truncated_game_warns_once_and_changes_nothing() -> None:
    """The contract's finished game includes a truncated one: a step after it left the board changing."""
    env = make_hand_env(flags=True, max_steps=2)
    *_, last = play(env, [flag(0, 0), flag(1, 1)])
    assert last[2:4] == (False, True)
    with pytest.warns(UserWarning, match="already returned truncated = True") as warned:
        outcomes = [env.step(action) for action in (cell(3, 0), flag(2, 2), flag(0, 0))]
    assert len(warned) == 1
    for obs, reward, terminated, truncated, info in outcomes:
        np.testing.assert_array_equal(obs, last[0])
        assert (reward, terminated, truncated, info["invalid_action"], info["flags"]) == (0.0, False, True, True, 2)
    env.reset(seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert env.step(cell(3, 0))[2:4] == (False, False)  # a new game, a new count of steps


def test_a_winning_step_is_terminated_not_truncated_even_at_the_limit() -> None:
    env = make_hand_env(max_steps=4)
    *_, (_, reward, terminated, truncated, info) = play(env, [cell(3, 0), cell(0, 4), cell(0, 1), cell(0, 2)])
    assert (reward, terminated, truncated, info["is_success"]) == (1.0, True, False, True)


def test_progress_shaping_pays_for_each_newly_revealed_cell() -> None:
    env = make_hand_env(rewards={"progress": 0.5, "win": 10.0})
    rewards = [step[1] for step in play(env, [cell(3, 0), cell(3, 1), cell(0, 4), cell(0, 1), cell(0, 2)])]
    assert rewards == [5.0, 0.0, 2.5, 0.5, 10.0]  # 10 cells, an invalid re-reveal, 5 cells, 1 cell, the win


@pytest.mark.parametrize("seed", range(5))
def test_progress_rewards_sum_to_the_cells_revealed_before_the_end(seed: int) -> None:
    env = gym.make("Minesweeper-v0", preset="intermediate", rewards={"progress": 1 / 216, "win": 1, "loss": -1})
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    shaped, revealed_before_end = 0.0, 0
    while True:
        revealed_before_end = info["revealed"]
        _, reward, terminated, truncated, info = env.step(random_valid_action(rng, info))
        if terminated or truncated:
            assert reward == (1.0 if info["is_success"] else -1.0)
            break
        shaped += reward
    assert shaped == pytest.approx(revealed_before_end / 216)


def test_step_returns_exact_python_types_and_the_space_dtype() -> None:
    for kwargs in ENV_VARIANTS[:4]:
        env = gym.make("Minesweeper-v0", **kwargs)
        obs, info = env.reset(seed=3)
        assert env.observation_space.contains(obs)
        for _ in range(5):
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample(mask=info["action_mask"]))
            assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
            assert type(info["is_success"]) is bool and type(info["mines"]) is int
            assert info["action_mask"].dtype == np.int8 and env.observation_space.contains(obs)
            np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
            if terminated or truncated:
                obs, info = env.reset()


def test_plane_and_dict_observations_encode_the_grid() -> None:
    outcomes = {}
    for mode in ("grid", "planes", "dict"):
        env = gym.make("Minesweeper-v0", obs_mode=mode)
        env.reset(seed=8)
        outcomes[mode] = env.step(40)
    grid, planes, both = (outcomes[mode][0] for mode in ("grid", "planes", "dict"))
    np.testing.assert_array_equal(both["observation"], grid)
    np.testing.assert_array_equal(both["action_mask"], outcomes["grid"][4]["action_mask"])
    assert planes.shape == (len(PLANE_CODES), 9, 9) and (planes.sum(axis=0) == 1).all()
    decoded = np.array(PLANE_CODES, dtype=np.int8)[planes.argmax(axis=0)]
    np.testing.assert_array_equal(decoded, grid)


# ----------------------------------------------------------------------------- seeding
def rollout(env: gym.Env, seed: int, steps: int) -> list[tuple[Any, ...]]:
    """Observations, rewards and ends of a seeded run, the actions drawn from a generator seeded alike."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trajectory: list[tuple[Any, ...]] = [(obs.tobytes(),)]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(random_valid_action(rng, info))
        trajectory.append((obs.tobytes(), reward, terminated, truncated, info["is_success"]))
        if terminated or truncated:
            obs, info = env.reset()
            trajectory.append((obs.tobytes(),))
    return trajectory


@pytest.mark.parametrize("first_click", ["safe", "opening", "none"])
def test_same_seed_and_actions_give_identical_trajectories(first_click: str) -> None:
    first, second = (gym.make("Minesweeper-v0", first_click=first_click) for _ in range(2))
    assert rollout(first, 42, 200) == rollout(second, 42, 200)
    assert rollout(first, 42, 50) != rollout(first, 43, 50)


def test_same_seed_and_first_cell_give_the_same_layout_and_other_cells_another() -> None:
    layouts = []
    for first in (0, 0, 40):
        env = gym.make("Minesweeper-v0", preset="intermediate")
        env.reset(seed=5)
        env.step(first)
        layouts.append(env.unwrapped.board.layout)
    np.testing.assert_array_equal(layouts[0], layouts[1])
    assert not np.array_equal(layouts[0], layouts[2])


def test_reset_without_a_seed_draws_the_layout_from_np_random() -> None:
    def layout_after_reset(env: gym.Env) -> np.ndarray:
        env.reset()
        return env.unwrapped.board.layout

    first, second = (gym.make("Minesweeper-v0", first_click="none") for _ in range(2))
    for env in (first, second):
        env.reset()
        env.unwrapped.np_random = np.random.default_rng(17)
    np.testing.assert_array_equal(layout_after_reset(first), layout_after_reset(second))
    unseeded = [layout_after_reset(gym.make("Minesweeper-v0", first_click="none")) for _ in range(2)]
    assert not np.array_equal(*unseeded)  # fresh entropy for each unseeded env


def test_pickled_envs_play_on_exactly_like_the_original() -> None:
    env = gym.make("Minesweeper-v0", preset="intermediate", flags=True)
    fresh = pickle.loads(pickle.dumps(env))
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=9)
    fresh_obs, _ = fresh.reset(seed=9)
    np.testing.assert_array_equal(obs, fresh_obs)
    for _ in range(3):
        obs, _, terminated, _, info = env.step(random_valid_action(rng, info))
    mid_game = pickle.loads(pickle.dumps(env))
    for _ in range(20):
        action = random_valid_action(rng, info)
        obs, reward, terminated, truncated, info = env.step(action)
        again = mid_game.step(action)
        np.testing.assert_array_equal(again[0], obs)
        assert again[1:4] == (reward, terminated, truncated)
        if terminated or truncated:
            break


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rows": 3, "cols": 3, "mines": 9, "first_click": "safe"}, r"9 mines do not fit a 3x3 board under the 'safe'"),
        ({"rows": 4, "cols": 4, "mines": 8}, r"8 mines do not fit a 4x4 board under the 'opening' rule: expected 0..7"),
        ({"mines": -1}, "-1 mines do not fit"),
        ({"first_click": "lucky"}, "unknown first_click rule 'lucky'"),
        ({"preset": "huge"}, "unknown preset 'huge'"),
        ({"rows": 0}, "rows must be between 1 and 256, got 0"),
        ({"cols": -3}, "cols must be between 1 and 256, got -3"),
        ({"rows": 257}, "rows must be between 1 and 256, got 257"),
        ({"rows": 4.5}, "rows must be an integer, got 4.5"),
        ({"cols": "9"}, "cols must be an integer, got '9'"),
        ({"mines": True}, "mines must be an integer, got True"),
        ({"obs_mode": "image"}, "unknown obs_mode 'image'"),
        ({"render_mode": "svg"}, "unknown render_mode 'svg'"),
        ({"rewards": {"bonus": 1.0}}, r"unknown reward option in \['bonus'\]"),
        ({"rewards": {"win": "a lot"}}, "reward win must be a number, got 'a lot'"),
        ({"rewards": 3}, "rewards must be a RewardConfig or a dict, got int"),
        ({"max_steps": 0}, "max_steps must be an integer of at least 1 .*, got 0"),
        ({"max_steps": 2.5}, "max_steps must be an integer of at least 1 .*, got 2.5"),
        ({"max_steps": "5"}, "max_steps must be an integer of at least 1 .*, got '5'"),
        ({"max_steps": True}, "max_steps must be an integer of at least 1 .*, got True"),
        ({"flags": "no"}, "flags must be True or False, got 'no'"),
        ({"flags": 1}, "flags must be True or False, got 1"),
        ({"cell_px": 0}, "cell_px must be an integer of at least 8 to draw the digits, got 0"),
        ({"cell_px": "24"}, "cell_px must be an integer of at least 8 to draw the digits, got '24'"),
        ({"cell_px": 12.5}, "cell_px must be an integer of at least 8 to draw the digits, got 12.5"),
        ({"obs_mode": None}, "unknown obs_mode None"),
        ({"first_click": None}, "unknown first_click rule None"),
        ({"preset": "Expert"}, "unknown preset 'Expert'; expected one of beginner, intermediate, expert"),
        ({"mines": np.float64(3)}, r"mines must be an integer, got np.float64\(3.0\)"),
    ],
)
def test_bad_options_raise_a_value_error_saying_what_is_wrong(kwargs: dict[str, Any], message: str) -> None:
    with warnings.catch_warnings(), pytest.raises(ValueError, match=message):
        warnings.simplefilter("ignore")  # gym.make warns about an unknown render mode before the env refuses it
        gym.make("Minesweeper-v0", **kwargs)


def test_numpy_integer_sizes_and_actions_are_accepted() -> None:
    env = gym.make("Minesweeper-v0", rows=np.int64(5), cols=np.int32(6), mines=np.int16(4))
    obs, _ = env.reset(seed=0)
    assert obs.shape == (5, 6)
    _, _, _, _, info = env.step(np.int64(14))
    assert info["revealed"] >= 1

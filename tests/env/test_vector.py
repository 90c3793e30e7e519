"""The native vector env plays exactly the games of N single envs, with same-step autoreset."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import mine_env
from mine_env import MinesweeperVectorEnv
from mine_env.engine.batch import KEY_BLOCK
from mine_env.env import to_planes

NUM_ENVS = 4


def make_vector(num_envs: int = NUM_ENVS, **kwargs: Any) -> gym.vector.VectorEnv:
    return gym.make_vec("Minesweeper-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)


def mostly_valid_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A random valid action per board, but now and then any action of the space (often an invalid one)."""
    actions = (rng.random(masks.shape) * masks).argmax(axis=1)
    wild = rng.random(len(actions)) < 0.1
    actions[wild] = rng.integers(0, masks.shape[1], size=int(wild.sum()))
    return actions


@pytest.mark.parametrize(
    "kwargs",
    [
        {"first_click": "opening"},
        {"first_click": "safe", "flags": True, "max_steps": 12, "rows": 6, "cols": 7, "mines": 8},
        {"first_click": "none", "preset": "intermediate", "max_steps": 30, "rewards": {"progress": 0.01}},
    ],
    ids=["opening", "safe-flags-truncation", "none-intermediate-shaping"],
)
def test_the_vector_env_plays_the_games_of_single_envs_seeded_seed_plus_i(kwargs: dict[str, Any]) -> None:
    seed, rng = 100, np.random.default_rng(0)
    vector = make_vector(**kwargs)
    singles = [gym.make("Minesweeper-v0", **kwargs) for _ in range(NUM_ENVS)]
    obs, _ = vector.reset(seed=seed)
    single_infos = []
    for i, env in enumerate(singles):
        single_obs, info = env.reset(seed=seed + i)
        np.testing.assert_array_equal(obs[i], single_obs)
        single_infos.append(info)
    endings = 0
    for _ in range(150):
        masks = vector.unwrapped.action_masks()
        for i in range(NUM_ENVS):
            np.testing.assert_array_equal(masks[i], single_infos[i]["action_mask"].astype(bool))
        actions = mostly_valid_actions(rng, masks)
        obs, rewards, terminated, truncated, info = vector.step(actions)
        for i, env in enumerate(singles):
            single_obs, reward, single_terminated, single_truncated, single_infos[i] = env.step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (reward, single_terminated, single_truncated)
            assert info["is_success"][i] == single_infos[i]["is_success"]
            assert info["invalid_action"][i] == single_infos[i]["invalid_action"] and info["_invalid_action"][i]
            if single_terminated or single_truncated:
                endings += 1
                assert info["_final_obs"][i]
                np.testing.assert_array_equal(info["final_obs"][i], single_obs)
                single_obs, single_infos[i] = env.reset()
            else:
                assert "_final_obs" not in info or not info["_final_obs"][i]
            np.testing.assert_array_equal(obs[i], single_obs)
    assert endings >= 10


def test_final_observations_stay_as_they_were_after_later_steps() -> None:
    vector = make_vector(rows=3, cols=3, mines=7, first_click="safe")  # most second clicks lose
    vector.reset(seed=2)
    vector.step(np.zeros(NUM_ENVS, dtype=np.int64))
    _, _, terminated, _, info = vector.step(np.full(NUM_ENVS, 8))
    assert terminated.any()
    kept = info["final_obs"].copy()
    for action in (4, 2, 4, 2):  # other games that end otherwise
        vector.step(np.full(NUM_ENVS, action))
    np.testing.assert_array_equal(info["final_obs"], kept)


def test_masks_are_bool_and_cover_every_action() -> None:
    vector = make_vector(flags=True)
    vector.reset(seed=0)
    masks = vector.unwrapped.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (NUM_ENVS, 2 * 81)
    assert masks[:, :81].all() and masks[:, 81:].all()  # every cell hidden: reveal or flag it


def test_spaces_and_dtypes_match_the_single_env() -> None:
    vector = make_vector(preset="expert")
    single = gym.make("Minesweeper-v0", preset="expert")
    assert vector.single_observation_space == single.observation_space
    assert vector.single_action_space == single.action_space
    obs, _ = vector.reset(seed=1)
    assert vector.observation_space.contains(obs)
    obs, rewards, terminated, truncated, _ = vector.step(np.full(NUM_ENVS, 100))
    assert obs.dtype == np.int8 and obs.shape == (NUM_ENVS, 16, 30)
    assert rewards.dtype == np.float64 and terminated.dtype == np.bool_ and truncated.dtype == np.bool_


def test_plane_observations_are_the_planes_of_the_grids() -> None:
    grids, planes = make_vector(), make_vector(obs_mode="planes")
    grid_obs, _ = grids.reset(seed=3)
    plane_obs, _ = planes.reset(seed=3)
    for _ in range(3):
        actions = np.full(NUM_ENVS, 40)
        grid_obs = grids.step(actions)[0]
        plane_obs = planes.step(actions)[0]
    np.testing.assert_array_equal(plane_obs, to_planes(grid_obs))
    assert planes.observation_space.contains(plane_obs)


def test_a_pickled_vector_env_plays_on_exactly_like_the_original() -> None:
    vector = make_vector(rows=3, cols=3, mines=5, first_click="safe")  # games of a step or two
    vector.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(5):
        vector.step(mostly_valid_actions(rng, vector.unwrapped.action_masks()))
    twin = pickle.loads(pickle.dumps(vector))
    games = np.zeros(NUM_ENVS, dtype=np.int64)
    while games.min() <= KEY_BLOCK:  # until every board has drawn a fresh block of keys from its generator
        actions = mostly_valid_actions(rng, vector.unwrapped.action_masks())
        expected, got = vector.step(actions), twin.step(actions)
        for left, right in zip(expected[:4], got[:4], strict=True):
            np.testing.assert_array_equal(left, right)
        games += expected[2] | expected[3]


def test_the_vector_env_renders_its_first_board() -> None:
    text = make_vector(render_mode="ansi")
    text.reset(seed=0)
    assert text.render().splitlines()[0].split() == [str(c) for c in range(9)]
    image = make_vector(render_mode="rgb_array", cell_px=10)
    image.reset(seed=0)
    frame = image.render()
    assert frame.dtype == np.uint8 and frame.shape == (90, 90, 3)


def test_the_native_class_is_what_make_vec_returns() -> None:
    assert isinstance(make_vector().unwrapped, MinesweeperVectorEnv)
    assert "Minesweeper-v0" in mine_env.ENV_IDS


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"obs_mode": "dict"}, "the vector env supports obs_mode 'grid' or 'planes', got 'dict'"),
        ({"num_envs": 0}, "num_envs must be a positive integer, got 0"),
        ({"num_envs": -2}, "num_envs must be a positive integer, got -2"),
        ({"num_envs": 2.5}, "num_envs must be a positive integer, got 2.5"),
        ({"num_envs": "4"}, "num_envs must be a positive integer, got '4'"),
        ({"num_envs": True}, "num_envs must be a positive integer, got True"),
        ({"render_mode": "human"}, "unknown render_mode 'human'"),
        ({"mines": 81}, "81 mines do not fit a 9x9 board"),
        ({"max_steps": 0}, "max_steps must be an integer of at least 1 .*, got 0"),
        ({"flags": "yes"}, "flags must be True or False, got 'yes'"),
        ({"cell_px": 4}, "cell_px must be an integer of at least 8 to draw the digits, got 4"),
        ({"rewards": {"bonus": 1.0}}, r"unknown reward option in \['bonus'\]"),
    ],
)
def test_bad_vector_options_say_what_is_wrong(kwargs: dict[str, Any], message: str) -> None:
    options = {"num_envs": NUM_ENVS, **kwargs}
    with pytest.raises(ValueError, match=message):
        make_vector(**options)


SPACE = r"not in the action space of 4 boards, each Discrete\(81\)"
BAD_BATCHES = [
    (np.zeros(3, dtype=np.int64), rf"actions \[0, 0, 0\] \(int64 array of shape \(3,\)\) are {SPACE}"),
    (np.zeros((4, 1), dtype=np.int64), rf"\(int64 array of shape \(4, 1\)\) are {SPACE}"),
    (np.array([1, 2, 3, 81]), rf"action 81 of board 3 is {SPACE}: expected integers from 0 to 80"),
    (np.array([1, -1, 3, 4]), rf"action -1 of board 1 is {SPACE}"),
    (np.array([1, 2, 3, 2**63], dtype=np.uint64), rf"action 9223372036854775808 of board 3 is {SPACE}"),
    (np.array([1.0, 2.0, 3.0, 3.7]), rf"\(float64 array of shape \(4,\)\) are {SPACE}"),
    (np.array([1.0, 2.0, 3.0, 4.0]), rf"\(float64 array of shape \(4,\)\) are {SPACE}"),
    (np.array([True, False, True, True]), rf"\(bool array of shape \(4,\)\) are {SPACE}"),
    (["1", "2", "3", "4"], rf"\(<U1 array of shape \(4,\)\) are {SPACE}"),
    ([1, None, 3, 4], rf"actions \[1, None, 3, 4\] \(object array of shape \(4,\)\) are {SPACE}"),
    ([1, [2, 3], 4, 5], rf"actions \[1, \[2, 3\], 4, 5\] are {SPACE}: expected 4 integers"),
    (None, rf"actions None \(object array of shape \(\)\) are {SPACE}"),
    (3, rf"\(int64 array of shape \(\)\) are {SPACE}"),
]


@pytest.mark.parametrize(("actions", "message"), BAD_BATCHES, ids=[repr(a) for a, _ in BAD_BATCHES])
def test_a_batch_outside_the_action_space_raises_a_value_error_naming_it(actions: Any, message: str) -> None:
    vector = make_vector()
    obs, _ = vector.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        vector.step(actions)
    np.testing.assert_array_equal(vector.unwrapped.engine.grids(), obs)  # nothing was played


@pytest.mark.parametrize("actions", [[40, 40, 40, 40], np.full(4, 40, dtype=np.uint8), np.full(4, 40, dtype=np.int32)])
def test_lists_and_any_integer_dtype_are_action_batches(actions: Any) -> None:
    vector = make_vector()
    vector.reset(seed=0)
    _, _, _, _, info = vector.step(actions)
    assert not info["invalid_action"].any() and info["_invalid_action"].all()


@pytest.mark.parametrize("flags", [False, True])
def test_actions_of_the_space_not_valid_now_are_flagged_and_earn_the_penalty(flags: bool) -> None:
    vector = make_vector(flags=flags, rewards={"invalid": -0.5})
    vector.reset(seed=0)
    vector.step(np.full(NUM_ENVS, 40))  # the opening reveals 40 and its neighbours on every board
    obs_before = vector.unwrapped.engine.grids()
    hidden = int(np.flatnonzero(obs_before[0].ravel() == mine_env.HIDDEN)[0])
    actions = np.array([40, 40 + 81 * flags, hidden, 40])  # a revealed cell (or a flag on it), then a hidden one
    obs, rewards, _, _, info = vector.step(actions)
    np.testing.assert_array_equal(info["invalid_action"], [True, True, False, True])
    np.testing.assert_array_equal(rewards[[0, 1, 3]], [-0.5, -0.5, -0.5])
    np.testing.assert_array_equal(obs[[0, 1, 3]], obs_before[[0, 1, 3]])

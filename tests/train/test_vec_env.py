"""The batched engine as an SB3 VecEnv: the same games, rewards, ends and masks as the single env."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.utils import get_action_masks

from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv
from train.sb3.vec_env import BatchVecEnv

pytestmark = pytest.mark.train


def test_vec_env_adapter_equals_the_single_env() -> None:
    spec = BoardSpec.from_options(None, 5, 5, 4, "opening")
    vec = BatchVecEnv(spec, 3)
    vec.seed(11)
    singles = [MinesweeperEnv(rows=5, cols=5, mines=4) for _ in range(3)]
    obs = vec.reset()
    for i, env in enumerate(singles):
        np.testing.assert_array_equal(obs[i], env.reset(seed=11 + i)[0])
    rng = np.random.default_rng(5)
    episodes_ended = 0
    for _ in range(60):
        masks = get_action_masks(vec)
        np.testing.assert_array_equal(masks, np.stack([env.action_masks() for env in singles]))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = vec.step(actions)
        for i, env in enumerate(singles):
            single_obs, reward, terminated, truncated, info = env.step(int(actions[i]))
            assert rewards[i] == reward and dones[i] == (terminated or truncated)
            if dones[i]:
                episodes_ended += 1
                np.testing.assert_array_equal(infos[i]["terminal_observation"], single_obs)
                assert infos[i]["is_success"] == info["is_success"]
                assert infos[i]["TimeLimit.truncated"] == truncated
                single_obs, _ = env.reset()
            np.testing.assert_array_equal(obs[i], single_obs)
    assert episodes_ended >= 5

"""The battle env under RLlib: through RLlib's PettingZoo wrapper, and one PPO iteration of self-play on it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("ray.rllib")

from battle.training.rllib import BATTLE_ENV_NAME, battle_ppo_config, make_battle_env

pytestmark = pytest.mark.train
TINY_MODEL = {"channels": 8, "layers": 2, "value_hidden": 8}
SMALL_BOARD = {"rows": 5, "cols": 5, "mines": 3}


def test_the_battle_env_under_rllibs_pettingzoo_wrapper() -> None:
    pytest.importorskip("pettingzoo")
    env = make_battle_env(SMALL_BOARD | {"mines": 5})
    obs, _ = env.reset(seed=1)
    assert list(obs) == ["player_0"] and set(obs["player_0"]) == {"observation", "action_mask"}
    valid = int(np.flatnonzero(obs["player_0"]["action_mask"])[0])
    obs, _, terminated, _, _ = env.step({"player_0": valid})
    assert set(obs) <= {"player_0", "player_1"} and not terminated["__all__"]


@pytest.mark.slow
def test_one_ppo_iteration_on_the_battle_env(ray_instance) -> None:
    pytest.importorskip("pettingzoo")
    config = battle_ppo_config(SMALL_BOARD | {"mines": 5}, model=TINY_MODEL)
    config = config.training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)  # seconds
    assert config.env == BATTLE_ENV_NAME
    algorithm = config.build_algo()
    try:
        result = algorithm.train()
    finally:
        algorithm.stop()
    assert result["env_runners"]["num_env_steps_sampled"] >= 64 and result["env_runners"]["num_episodes"] > 0
    assert "shared" in result["learners"]

"""train.sb3.export: a training zip of an older run, without the model format, converted in place; what it cannot
save."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th
from stable_baselines3 import PPO

from agents.model_card import ModelCard
from agents.networks.player import load_model_agent
from mine_env.engine.constants import HIDDEN
from mine_env.env import MinesweeperEnv
from support import random_position
from train.sb3 import dqn, maskable_ppo
from train.sb3.evaluation import model_card
from train.sb3.export import main
from train.sb3.networks import action_scores
from train.sb3.training import make_vec_env

pytestmark = pytest.mark.train


def test_an_older_runs_zip_is_converted_in_place_and_plays_the_same(tmp_path: Path) -> None:
    config = maskable_ppo.ALGORITHM.config_class(rows=4, cols=5, mines=3, num_envs=2, channels=8, layers=2,
                                                 value_hidden=8, runs_dir=str(tmp_path))  # fmt: skip
    model = maskable_ppo.ALGORITHM.build(config, make_vec_env(config))
    model.save(tmp_path / "old.zip")
    before = model_card(model, "maskable_ppo", config, {"games": 5, "seed": 1, "win_rate": 0.2})
    before.write(tmp_path / "old.json")
    assert main([str(tmp_path / "old.zip")]) == 0
    after = ModelCard.read(tmp_path / "old.json")
    assert after.network is not None and after.network["trunk"] == "cell" and after.network["head"] == "policy"
    assert after.to_dict() == before.to_dict() | {"network": after.network}  # the run's record is kept
    grids = np.stack([random_position(np.random.default_rng(seed), 4, 5, 3)[1] for seed in range(16)])
    played = th.log_softmax(th.as_tensor(load_model_agent(tmp_path / "old").batch_scores(grids)), dim=1)
    th.testing.assert_close(played, action_scores(model.policy, grids))
    weights = (tmp_path / "old.pt").read_bytes()
    assert main([str(tmp_path / "old")]) == 0 and (tmp_path / "old.pt").read_bytes() == weights  # reproducible


def test_what_the_format_cannot_save_is_told_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env_kwargs = dict(rows=4, cols=4, mines=2, first_click="opening", obs_mode="grid", flags=False)
    PPO("MlpPolicy", MinesweeperEnv(**env_kwargs), n_steps=32, batch_size=32, seed=0).save(tmp_path / "mlp.zip")
    ModelCard("ppo", "stable_baselines3.ppo.ppo:PPO", env_kwargs).write(tmp_path / "mlp.json")
    assert main([str(tmp_path / "mlp.zip")]) == 2
    assert "is not a policy of train.sb3.networks" in capsys.readouterr().err
    ModelCard("ppo", None, env_kwargs).write(tmp_path / "mlp.json")  # a shipped card's: no class loads a zip
    assert main([str(tmp_path / "mlp.zip")]) == 2
    assert "names no model_class, the class that loads its zip" in capsys.readouterr().err
    (tmp_path / "mlp.zip").unlink()
    assert main([str(tmp_path / "mlp.zip")]) == 2
    assert "converting reads the training zip" in capsys.readouterr().err


def test_a_policy_on_the_mine_prior_is_saved_as_one_head_that_plays_its_logits(tmp_path: Path) -> None:
    config = maskable_ppo.ALGORITHM.config_class(rows=4, cols=5, mines=3, num_envs=2, channels=8, layers=2,
                                                 value_hidden=8, mine_coef=0.5, mine_prior=True,
                                                 runs_dir=str(tmp_path))  # fmt: skip
    model = maskable_ppo.ALGORITHM.build(config, make_vec_env(config))
    heads = model.policy.mlp_extractor
    th.nn.init.normal_(heads.mine_head.conv.weight)  # a head that has learnt something: it moves the logits
    grids = np.stack([random_position(np.random.default_rng(seed), 4, 5, 3)[1] for seed in range(16)])
    features = model.policy.extract_features(model.policy.obs_to_tensor(grids)[0])
    with th.no_grad():
        th.testing.assert_close(heads.forward_actor(features), heads.policy_head(features) - heads.mine_head(features))
    model_card(model, "maskable_ppo", config, {"games": 5, "seed": 1, "win_rate": 0.2}).write(tmp_path / "m.json")
    model.save(tmp_path / "m.zip")
    assert main([str(tmp_path / "m.zip")]) == 0
    played = th.log_softmax(th.as_tensor(load_model_agent(tmp_path / "m").batch_scores(grids)), dim=1)
    th.testing.assert_close(played, action_scores(model.policy, grids))


@pytest.mark.parametrize("bound", [0.0, 0.05])
def test_a_dqn_on_the_mine_prior_plays_its_composed_q_values_from_the_saved_model(bound: float,
                                                                                  tmp_path: Path) -> None:
    config = dqn.DQNConfig(rows=4, cols=5, mines=3, num_envs=2, channels=8, layers=2, mine_coef=0.5, mine_prior=True,
                           advantage_bound=bound, reward_loss=-2.0, runs_dir=str(tmp_path))  # fmt: skip
    config.validate()
    model = dqn.ALGORITHM.build(config, make_vec_env(config))
    network = model.q_net
    th.nn.init.normal_(network.mine_head.conv.weight)
    th.nn.init.normal_(network.q_net.conv.weight)  # returns if safe far apart: the bound, where set, acts
    grids = np.stack([random_position(np.random.default_rng(seed), 4, 5, 3)[1] for seed in range(16)])
    obs = model.policy.obs_to_tensor(grids)[0]
    with th.no_grad():
        safe_returns, mine_logits = network.forward_with_mines(obs)
        mine = th.sigmoid(mine_logits)
        th.testing.assert_close(network(obs), -2.0 * mine + (1 - mine) * safe_returns)
        hidden = th.as_tensor(grids.reshape(16, -1) == HIDDEN)
        spread = safe_returns.masked_fill(~hidden, -th.inf).amax(1) - safe_returns.masked_fill(~hidden, th.inf).amin(1)
        assert (spread <= 2 * bound + 1e-6).all() if bound else (spread > 0.2).any()
    model_card(model, "dqn", config, {"games": 5, "seed": 1, "win_rate": 0.2}).write(tmp_path / "d.json")
    model.save(tmp_path / "d.zip")
    assert main([str(tmp_path / "d.zip")]) == 0
    card = ModelCard.read(tmp_path / "d.json")
    assert card.network["head"] == "q_risk" and card.network["loss_reward"] == -2.0
    assert card.network.get("advantage_bound", 0.0) == bound
    played = th.as_tensor(load_model_agent(tmp_path / "d").batch_scores(grids))
    th.testing.assert_close(played, action_scores(model.policy, grids))


def test_a_bound_on_the_return_if_safe_without_the_mine_prior_is_one_clear_error() -> None:
    config = dqn.DQNConfig(rows=4, cols=5, mines=3, mine_coef=0.5, advantage_bound=0.1)
    with pytest.raises(ValueError, match="give --mine-prior too"):
        config.validate()


def test_the_mine_prior_without_the_mine_head_is_one_clear_error() -> None:
    config = maskable_ppo.ALGORITHM.config_class(rows=4, cols=5, mines=3, mine_prior=True)
    with pytest.raises(ValueError, match="--mine-coef above 0"):
        config.validate()

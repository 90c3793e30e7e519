"""The masked DQN: it never picks an invalid action, in play, in exploration or in its TD target."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th

from train.sb3 import dqn
from train.sb3.dqn import DQNConfig
from train.sb3.vec_env import BatchVecEnv

pytestmark = pytest.mark.train


def tiny_config(tmp_path: Path, **overrides: object) -> DQNConfig:
    """A DQN config on a 4x5 board with 3 mines and a tiny network."""
    options = {
        "rows": 4, "cols": 5, "mines": 3, "num_envs": 4, "channels": 8, "layers": 2, "value_hidden": 8,
        "eval_games": 20, "eval_every": 128, "checkpoint_every": 128, "progress_bar": False,
        "learning_starts": 64, "batch_size": 16, "runs_dir": str(tmp_path), "run_name": "dqn",
    }  # fmt: skip
    return DQNConfig(**(options | overrides))


def random_valid_play(env: BatchVecEnv, rng: np.random.Generator, steps: int) -> list[np.ndarray]:
    """Grids seen while playing uniform valid moves (the states the masking tests check)."""
    grids = [env.reset()]
    for _ in range(steps):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        grids.append(env.step(actions)[0])
    return grids


@pytest.mark.parametrize("exploration", [0.0, 0.5, 1.0])
def test_masked_dqn_never_selects_an_invalid_action(exploration: float, tmp_path: Path) -> None:
    config = tiny_config(tmp_path, learning_starts=10**6)
    env = BatchVecEnv(config.board_spec(), 16)
    env.seed(3)
    model = dqn.build_model(config, env)
    model.exploration_rate = exploration
    for grids in random_valid_play(env, np.random.default_rng(1), 40):
        valid = grids.reshape(len(grids), -1) == -1
        rows = np.arange(len(grids))
        for deterministic in (False, True):
            actions, _ = model.predict(grids, deterministic=deterministic)
            assert valid[rows, actions].all()
        model._last_obs = grids
        warmup_actions, _ = model._sample_action(learning_starts=10**6, n_envs=len(grids))
        assert valid[rows, warmup_actions].all()
        assert valid[0, model.predict(grids[0], action_masks=valid[0])[0]]


def test_masked_dqn_target_takes_the_max_over_valid_actions_only(tmp_path: Path) -> None:
    config = tiny_config(tmp_path, double_q=False)
    env = BatchVecEnv(config.board_spec(), 8)
    model = dqn.build_model(config, env)
    grids = np.concatenate(random_valid_play(env, np.random.default_rng(2), 6))
    obs = th.as_tensor(grids)
    q_values = model.q_net_target(obs).detach().numpy()
    valid = grids.reshape(len(grids), -1) == -1
    expected = np.where(valid, q_values, -np.inf).max(axis=1)
    assert (q_values.max(axis=1) > expected).any(), "the test states must have an invalid best action"
    values = model._masked_next_values(obs).detach().numpy()[:, 0]
    np.testing.assert_allclose(values, expected, rtol=1e-6)


def test_n_step_returns_sum_the_rewards_before_bootstrapping(tmp_path: Path) -> None:
    from stable_baselines3.common.buffers import NStepReplayBuffer

    from train.sb3.training import make_vec_env, train

    config = tiny_config(tmp_path, n_step=3, gamma=0.9, steps=192, checkpoint_every=0, eval_games=0)
    model = dqn.build_model(config, make_vec_env(config))
    assert isinstance(model.replay_buffer, NStepReplayBuffer) and model.replay_buffer.n_steps == 3
    assert not isinstance(dqn.build_model(tiny_config(tmp_path), make_vec_env(config)).replay_buffer, NStepReplayBuffer)
    run_dir = train(dqn.ALGORITHM, config)
    loaded = dqn.ALGORITHM.model_class.load(run_dir / "final_model.zip", device="cpu")
    assert loaded.num_timesteps == 192
    model.learn(96)
    sample = model.replay_buffer.sample(64)
    discounts = sample.discounts.flatten().numpy()
    powers = np.isclose(discounts[:, None], [0.9, 0.81, 0.729])  # gamma ** steps taken, fewer where a game ended
    assert powers.any(axis=1).all() and powers[:, 2].any()
    with pytest.raises(ValueError, match="n_step must be at least 1"):
        tiny_config(tmp_path, n_step=0).validate()


def test_a_residual_trunk_starts_damped_with_the_target_network_a_copy_of_it(tmp_path: Path) -> None:
    config = tiny_config(tmp_path, dilations="1,2,1", channels=8)
    env = BatchVecEnv(config.board_spec(), 4)
    model = dqn.build_model(config, env)
    blocks = model.q_net.features_extractor.blocks
    gain = (2.0 / len(blocks)) ** 0.5  # orthogonal rows of norm `gain`: the damped start of BoardTrunk
    for block in blocks:
        rows = block.weight.detach().reshape(block.weight.shape[0], -1)
        assert th.allclose(rows.norm(dim=1), th.full((rows.shape[0],), gain), atol=1e-5)
        assert not block.bias.detach().any()
    target = model.q_net_target.state_dict()
    assert all(th.equal(weights, target[name]) for name, weights in model.q_net.state_dict().items())


def test_a_frozen_trunk_stays_as_it_starts_while_the_heads_learn(tmp_path: Path) -> None:
    config = tiny_config(tmp_path, mine_coef=0.5, mine_prior=True, frozen_trunk=True, init="distill-beginner",
                         learning_starts=32)  # fmt: skip
    config.validate()
    model = dqn.build_model(config, BatchVecEnv(config.board_spec(), 4, keep_layouts=True))
    before = {name: weights.clone() for name, weights in model.q_net.state_dict().items()}
    model.learn(160)
    after = model.q_net.state_dict()
    trunk = [name for name in before if name.startswith("features_extractor.")]
    heads = [name for name in before if name.startswith(("q_net.", "mine_head."))]
    assert trunk and heads
    assert all(th.equal(before[name], after[name]) for name in trunk)
    assert all(not th.equal(before[name], after[name]) for name in heads)
    model.q_net.features_extractor.requires_grad_(True)  # a resumed model is built unfrozen by SB3's load
    dqn.resumed(model, config)
    assert not any(weights.requires_grad for weights in model.q_net.features_extractor.parameters())
    with pytest.raises(ValueError, match="--frozen-trunk keeps a trained trunk: give --init"):
        tiny_config(tmp_path, frozen_trunk=True).validate()

"""The auxiliary mine head: its labels are the true mines behind each stored observation (PPO's rollout, DQN's
replay buffer), its loss reads only the hidden cells of games whose mines are placed, the mine replay's extra steps
teach it what the replay holds, and a run with it trains and plays like any other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure

from mine_env.engine.constants import FLAG, HIDDEN
from train.sb3 import dqn, maskable_ppo, ppo
from train.sb3.mine_head import MineBatch, mine_head_loss
from train.sb3.networks import action_scores
from train.sb3.training import make_vec_env, train

pytestmark = pytest.mark.train

TINY = {"rows": 5, "cols": 5, "mines": 4, "num_envs": 6, "n_steps": 24, "batch_size": 36, "channels": 8,
        "layers": 2, "value_hidden": 8, "eval_games": 0, "checkpoint_every": 0, "progress_bar": False}  # fmt: skip


class Nothing(BaseCallback):
    def _on_step(self) -> bool:
        return True


def assert_labels_match(grids: np.ndarray, mines: np.ndarray, known: np.ndarray, count: int) -> None:
    """Every game without mines is untouched and unlabelled; in the others every shown number counts the labels."""
    assert known.any() and not known.all()  # the first look at a game has no mines yet
    assert (grids[~known] == HIDDEN).all() and not mines[~known].any()
    rows, cols = grids.shape[1:]
    padded = np.pad(mines[known], ((0, 0), (1, 1), (1, 1)))
    around = sum(padded[:, 1 + dr : rows + 1 + dr, 1 + dc : cols + 1 + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    shown = grids[known] >= 0
    assert shown.any()
    np.testing.assert_array_equal(grids[known][shown], around[shown])
    assert (mines[known].reshape(known.sum(), -1).sum(axis=1) == count).all()


def after_one_rollout(algorithm, tmp_path: Path, **options: object) -> Any:
    """A new tiny model of ``algorithm`` that has collected one rollout (no update yet)."""
    config = algorithm.config_class(**TINY, runs_dir=str(tmp_path), **options)
    model = algorithm.build(config, make_vec_env(config))
    model.set_logger(configure(None, []))
    model._setup_learn(10_000, None)
    callback = Nothing()
    callback.init_callback(model)
    model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)
    return model


@pytest.mark.parametrize("algorithm", [ppo.ALGORITHM, maskable_ppo.ALGORITHM], ids=["ppo", "maskable_ppo"])
def test_the_stored_labels_are_the_mines_behind_each_observation(algorithm, tmp_path: Path) -> None:
    model = after_one_rollout(algorithm, tmp_path, mine_coef=1.0)
    buffer = model.rollout_buffer
    grids = buffer.observations.reshape(-1, 5, 5).astype(np.int8)
    mines = buffer.mines.reshape(-1, 5, 5).astype(int)
    known = buffer.known.reshape(-1)
    assert known.mean() > 0.5
    assert_labels_match(grids, mines, known, 4)


@pytest.mark.parametrize("algorithm", [ppo.ALGORITHM, maskable_ppo.ALGORITHM], ids=["ppo", "maskable_ppo"])
def test_the_update_scores_the_rollout_as_the_rollout_did(algorithm, tmp_path: Path) -> None:
    """Before the first step of an update the policy is the one that acted: every stored action's log-probability
    and value, recomputed by the update's pass (under the stored masks, for MaskablePPO), is the stored one; a mask
    that differed between acting and updating (another board's, a step late) would change them."""
    model = after_one_rollout(algorithm, tmp_path, mine_coef=0.5)
    data = next(iter(model.rollout_buffer.get(None))).samples
    masks = getattr(data, "action_masks", None)
    with th.no_grad():
        values, log_prob, _, _ = model.policy.evaluate_with_mines(data.observations, data.actions.long().flatten(),
                                                                  masks)  # fmt: skip
    th.testing.assert_close(log_prob, data.old_log_prob)
    th.testing.assert_close(values.flatten(), data.old_values)
    if masks is not None:  # the stored masks are the hidden cells of the stored observations
        assert th.equal(masks.bool(), data.observations.flatten(1) == HIDDEN)
        assert th.isfinite(log_prob).all() and (log_prob <= 0).all()


DQN_TINY = {"rows": 5, "cols": 5, "mines": 4, "num_envs": 6, "channels": 8, "layers": 2, "value_hidden": 8,
            "eval_games": 0, "checkpoint_every": 0, "progress_bar": False, "learning_starts": 10_000,
            "buffer_size": 600}  # fmt: skip


def dqn_warm_up(tmp_path: Path, **options: object) -> dqn.MaskedDQN:
    """A DQN model that has stored 300 steps of uniform valid play (no update yet)."""
    config = dqn.DQNConfig(**DQN_TINY, runs_dir=str(tmp_path), **options)
    model = dqn.ALGORITHM.build(config, make_vec_env(config))
    model.set_logger(configure(None, []))
    model.learn(300)
    return model


@pytest.mark.parametrize("n_step", [1, 3])
def test_dqn_samples_each_transition_with_the_mines_behind_it(n_step: int, tmp_path: Path) -> None:
    model = dqn_warm_up(tmp_path, mine_coef=1.0, n_step=n_step)
    np.random.seed(7)
    batch = model.replay_buffer.sample(256)
    grids = batch.samples.observations.numpy().reshape(-1, 5, 5).astype(np.int8)
    assert_labels_match(grids, batch.mines.numpy().reshape(-1, 5, 5).astype(int), batch.known.numpy(), 4)
    plain = dqn_warm_up(tmp_path, n_step=n_step)  # the same play without the head: SB3's own draw
    np.random.seed(7)
    th.testing.assert_close(plain.replay_buffer.sample(256).observations, batch.samples.observations)


@pytest.mark.parametrize("prior", [False, True], ids=["head", "prior"])
def test_a_dqn_run_with_the_head_trains_it_resumes_and_plays(prior: bool, tmp_path: Path) -> None:
    options = DQN_TINY | {"learning_starts": 60, "batch_size": 16, "steps": 240, "checkpoint_every": 120,
                          "mine_coef": 0.5, "mine_prior": prior, "runs_dir": str(tmp_path),
                          "run_name": "d"}  # fmt: skip
    run_dir = train(dqn.ALGORITHM, dqn.DQNConfig(**options, pause_at=120))
    resumed = dqn.DQNConfig(**options)
    train(dqn.ALGORITHM, resumed, run_dir / "checkpoints" / "latest.zip")  # its buffer keeps the labels
    header = (run_dir / "logs" / "progress.csv").read_text().splitlines()[0].split(",")
    assert "train/mine_loss" in header
    model = dqn.ALGORITHM.model_class.load(run_dir / "final_model.zip", device="cpu")
    assert model.num_timesteps == 240 and model.q_net.mine_head is not None and model.q_net.mine_prior == prior
    grids = np.full((2, 5, 5), HIDDEN, dtype=np.int8)
    assert action_scores(model.policy, grids).shape == (2, 25)


def test_the_loss_reads_only_hidden_cells_of_games_with_mines() -> None:
    observations = th.tensor([[HIDDEN, 1, HIDDEN], [HIDDEN, HIDDEN, HIDDEN]], dtype=th.float32)
    mines = th.tensor([[1, 0, 0], [1, 1, 1]], dtype=th.uint8)
    logits = th.tensor([[3.0, -50.0, -3.0], [0.0, 0.0, 0.0]])
    loss = mine_head_loss(logits, observations, mines, th.tensor([True, False]))
    expected = th.nn.functional.softplus(th.tensor(-3.0))  # both hidden cells of the first game, both right by 3
    th.testing.assert_close(loss, expected)
    assert mine_head_loss(logits, observations, mines, th.tensor([False, False])).item() == 0.0


def test_the_loss_reads_marked_cells_too() -> None:
    """A mark (a flag the player keeps) covers a hidden cell: the head must go on learning it, or the cells it once
    called sure stop being trained and a wrong mark is never unlearnt."""
    observations = th.tensor([[FLAG, 1, HIDDEN]], dtype=th.float32)
    mines = th.tensor([[0, 0, 1]], dtype=th.uint8)  # the marked cell is safe
    logits = th.tensor([[4.0, -50.0, 4.0]])
    loss = mine_head_loss(logits, observations, mines, th.tensor([True]))
    softplus = th.nn.functional.softplus
    th.testing.assert_close(loss, (softplus(th.tensor(4.0)) + softplus(th.tensor(-4.0))) / 2)


def test_per_position_the_loss_weighs_each_position_the_same() -> None:
    observations = th.tensor([[HIDDEN, 1, 1, 1], [HIDDEN, HIDDEN, HIDDEN, HIDDEN]], dtype=th.float32)
    mines = th.zeros((2, 4), dtype=th.uint8)
    logits = th.tensor([[2.0, 0.0, 0.0, 0.0], [-2.0, -2.0, -2.0, -2.0]])  # the late position's one cell is wrong
    known = th.tensor([True, True])
    wrong, right = th.nn.functional.softplus(th.tensor(2.0)), th.nn.functional.softplus(th.tensor(-2.0))
    th.testing.assert_close(mine_head_loss(logits, observations, mines, known), (wrong + 4 * right) / 5)
    th.testing.assert_close(mine_head_loss(logits, observations, mines, known, per_position=True), (wrong + right) / 2)


def test_a_run_with_the_head_logs_its_loss_and_plays_without_it(tmp_path: Path) -> None:
    config = maskable_ppo.MaskablePPOConfig(**TINY, mine_coef=0.5, steps=288, runs_dir=str(tmp_path), run_name="m")
    run_dir = train(maskable_ppo.ALGORITHM, config)
    header = (run_dir / "logs" / "progress.csv").read_text().splitlines()[0].split(",")
    assert "train/mine_loss" in header
    model = maskable_ppo.ALGORITHM.model_class.load(run_dir / "final_model.zip", device="cpu")
    assert model.policy.mlp_extractor.mine_head is not None
    grids = np.full((2, 5, 5), HIDDEN, dtype=np.int8)
    assert action_scores(model.policy, grids).shape == (2, 25)


@pytest.mark.parametrize("detach", [False, True], ids=["joint", "detached"])
def test_a_detached_prior_keeps_the_policy_gradient_off_the_mine_head(detach: bool, tmp_path: Path) -> None:
    config = maskable_ppo.MaskablePPOConfig(**TINY, mine_coef=0.5, mine_prior=True, detach_prior=detach,
                                            runs_dir=str(tmp_path))  # fmt: skip
    config.validate()
    model = maskable_ppo.ALGORITHM.build(config, make_vec_env(config))
    policy = model.policy
    obs = policy.obs_to_tensor(np.full((3, 5, 5), HIDDEN, dtype=np.int8))[0]
    heads = policy.mlp_extractor
    heads.forward_actor(policy.extract_features(obs)).logsumexp(dim=1).sum().backward()
    reached = heads.mine_head.conv.weight.grad
    assert (reached is None or not reached.any()) == detach
    assert heads.policy_head.conv.weight.grad.any()
    model.save(tmp_path / "m.zip")
    saved = maskable_ppo.ALGORITHM.model_class.load(tmp_path / "m.zip", device="cpu")
    assert saved.policy.mlp_extractor.detach_prior == detach


def test_a_detached_prior_without_the_prior_is_one_clear_error() -> None:
    config = maskable_ppo.MaskablePPOConfig(rows=4, cols=5, mines=3, mine_coef=0.5, detach_prior=True)
    with pytest.raises(ValueError, match="give --mine-prior too"):
        config.validate()


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_the_prior_alone_plays_the_mine_head_within_the_preference_bound_and_exports_as_it_plays(
    scale: float, tmp_path: Path
) -> None:
    config = maskable_ppo.MaskablePPOConfig(**TINY, mine_coef=0.5, mine_prior=True, detach_prior=True,
                                            prior_only=True, preference_bound=0.5, prior_scale=scale,
                                            runs_dir=str(tmp_path))  # fmt: skip
    config.validate()
    model = maskable_ppo.ALGORITHM.build(config, make_vec_env(config))
    policy, heads = model.policy, model.policy.mlp_extractor
    with th.no_grad():  # a preference that is not neutral, so that the bound is at work
        heads.preference.net[-1].bias.fill_(5.0)
    grids = np.full((3, 5, 5), HIDDEN, dtype=np.int8)
    grids[:, 0, :2] = 1
    obs = policy.obs_to_tensor(grids)[0]
    features = policy.extract_features(obs)
    logits = heads.forward_actor(features)
    offset = logits + scale * heads.mine_head(features)
    assert offset.abs().max().item() <= 0.5 + 1e-6 and offset.abs().max().item() > 0.4
    logits.logsumexp(dim=1).sum().backward()
    assert heads.policy_head.conv.weight.grad is None  # left out of play
    assert heads.mine_head.conv.weight.grad is None or not heads.mine_head.conv.weight.grad.any()
    assert heads.preference.net[-1].weight.grad.any()
    from train.sb3.export import playing_network

    network, kind = playing_network(policy)
    with th.no_grad():
        th.testing.assert_close(network(th.as_tensor(grids)), heads.forward_actor(policy.extract_features(obs)))
    assert kind == "policy"


def test_the_prior_alone_without_a_bound_is_one_clear_error() -> None:
    config = maskable_ppo.MaskablePPOConfig(rows=4, cols=5, mines=3, mine_coef=0.5, mine_prior=True, prior_only=True)
    with pytest.raises(ValueError, match="--preference-bound above 0"):
        config.validate()


def test_dqn_on_the_prior_fits_the_return_if_safe_on_the_safe_steps_only() -> None:
    current, targets = th.tensor([[0.5], [0.2], [0.0]]), th.tensor([[0.5], [-1.0], [1.0]])
    mines = th.tensor([[0, 1], [0, 1], [0, 1]], dtype=th.uint8)
    batch = MineBatch(None, mines, th.tensor([True, True, False]))
    actions = th.tensor([[0], [1], [1]])  # a safe step, a step onto a mine, a first click (no mines yet: safe)
    expected = th.nn.functional.smooth_l1_loss(th.tensor([0.5, 0.0]), th.tensor([0.5, 1.0]))
    th.testing.assert_close(dqn.safe_steps_loss(current, targets, batch, actions), expected)


def test_dqn_on_the_prior_without_the_head_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="give --mine-coef above 0 too"):
        dqn.DQNConfig(rows=4, cols=5, mines=3, mine_prior=True).validate()


def test_the_replay_steps_teach_the_mine_head_the_positions_it_holds(tmp_path: Path) -> None:
    model = after_one_rollout(maskable_ppo.ALGORITHM, tmp_path, mine_coef=1.0, mine_replay=500, mine_replay_steps=40,
                              learning_rate=3e-3)  # fmt: skip
    model._keep_rollout_positions()
    replay = model.mine_replay_buffer
    known = model.rollout_buffer.known.sum()
    assert replay.size == known > 0
    boards, mines = replay.chronological()
    observations = th.as_tensor(boards).float().view(-1, *model.observation_space.shape)

    def loss() -> float:
        with th.no_grad():
            logits = model.policy.mine_logits(observations)
            return mine_head_loss(logits, observations, th.as_tensor(mines), th.ones(len(mines), dtype=th.bool)).item()

    before = loss()
    stats: dict[str, list[th.Tensor]] = {"replay_mine_loss": []}
    model._replay_mine_steps(stats)
    assert len(stats["replay_mine_loss"]) == 40
    assert loss() < 0.8 * before

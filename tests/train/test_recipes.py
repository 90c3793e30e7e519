"""Named recipes (``--recipe``), and the pieces of the update the anchor's recipe needs: the value clip and the
balanced mine-head loss."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch as th
from stable_baselines3.common.logger import configure

from minesweeper_cli import train as train_cli
from train.sb3 import maskable_ppo
from train.sb3.mine_head import clipped_value_loss, mine_head_loss
from train.sb3.recipes import ANCHOR, RECIPES, recipe_names
from train.sb3.training import make_vec_env

pytestmark = pytest.mark.train

SMALL = ["--steps", "64", "--num-envs", "2", "--n-steps", "32", "--batch-size", "32", "--channels", "8",
         "--dilations", "1,1", "--value-hidden", "8", "--eval-games", "0", "--checkpoint-every", "0",
         "--no-progress-bar", "--preset", "beginner"]  # fmt: skip


def parsed(*options: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    train_cli.register(parser.add_subparsers())
    return parser.parse_args(["train", "maskable_ppo", *options])


def test_the_anchor_recipe_is_a_valid_config_of_both_ppo_scripts() -> None:
    assert recipe_names("maskable_ppo") == ["anchor", "mine-prior"] and recipe_names("ppo") == ["anchor", "mine-prior"]
    assert recipe_names("dqn") == []
    config = ANCHOR.defaults(maskable_ppo.MaskablePPOConfig)
    config.validate()
    assert (config.channels, config.dilations.count("1"), config.num_envs * config.n_steps) == (128, 12, 8192)
    assert config.board_spec().n_cells == 256 and config.reward_progress * 216 == pytest.approx(0.5063, abs=1e-4)


def test_options_given_beside_a_recipe_override_it_and_the_run_saves_every_value(tmp_path: Path) -> None:
    args = parsed("--recipe", "anchor", *SMALL, "--runs-dir", str(tmp_path), "--run-name", "r")
    assert args.func(args) == 0
    saved = (tmp_path / "r" / "config.json").read_text()
    assert '"channels": 8' in saved and '"gamma": 0.995' in saved and '"clip_range_vf": 0.2' in saved
    assert '"mine_balance": true' in saved and '"preset": "beginner"' in saved


def test_a_recipe_with_resume_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = parsed("--recipe", "anchor", "--resume", str(tmp_path))
    with pytest.raises(SystemExit) as stop:
        args.func(args)
    assert stop.value.code == 2 and "leave --recipe out" in capsys.readouterr().err


def test_a_recipe_of_unknown_fields_is_refused() -> None:
    broken = type(ANCHOR)("broken", ("ppo",), {"no_such": 1}, "", "")
    with pytest.raises(ValueError, match="no_such"):
        broken.defaults(maskable_ppo.MaskablePPOConfig)
    assert set(RECIPES) == {"anchor", "mine-prior"}


def test_the_mine_prior_recipe_plays_the_head_within_its_bound() -> None:
    config = RECIPES["mine-prior"].defaults(maskable_ppo.MaskablePPOConfig)
    config.validate()
    assert config.prior_only and config.detach_prior and config.preference_bound == 0.5 and config.preset == "beginner"
    assert config.prior_scale == 3.0 and config.lr_drops == "1000000:1e-4,2000000:5e-5"
    assert (config.mine_replay, config.mine_replay_steps, config.mine_positions) == (200_000, 32, True)


def test_the_balanced_loss_weighs_mines_and_safe_cells_alike() -> None:
    observations = th.full((1, 4), -1.0)  # four hidden cells, one of them a mine
    mines = th.tensor([[1, 0, 0, 0]], dtype=th.uint8)
    logits = th.tensor([[0.0, 2.0, 2.0, 2.0]])
    plain = mine_head_loss(logits, observations, mines, th.tensor([True]))
    balanced = mine_head_loss(logits, observations, mines, th.tensor([True]), balance=True)
    mine, safe = th.nn.functional.softplus(th.tensor(-0.0)), th.nn.functional.softplus(th.tensor(2.0))
    th.testing.assert_close(plain, (mine + 3 * safe) / 4)
    th.testing.assert_close(balanced, (3 * mine + 3 * safe) / 4)  # the mine weighs 3 safe cells / 1 mine


def test_the_value_clip_holds_the_values_within_reach_of_the_rollout_s() -> None:
    old, returns = th.tensor([0.0, 0.0]), th.tensor([1.0, 0.02])
    values = th.tensor([0.5, 0.01], requires_grad=True)
    loss = clipped_value_loss(values, old, returns, 0.2)
    loss.backward()
    th.testing.assert_close(loss, ((1.0 - 0.2) ** 2 + 0.01**2) / 2 * th.ones(()))
    assert values.grad is not None and values.grad[0] == 0 and values.grad[1] != 0  # no pull beyond the clip
    th.testing.assert_close(clipped_value_loss(values, old, returns, None), ((0.5**2 + 0.01**2) / 2) * th.ones(()))


def test_a_run_with_the_value_clip_trains(tmp_path: Path) -> None:
    config = maskable_ppo.MaskablePPOConfig(rows=5, cols=5, mines=4, num_envs=4, n_steps=16, batch_size=32,
                                            channels=8, layers=2, value_hidden=8, eval_games=0, checkpoint_every=0,
                                            progress_bar=False, runs_dir=str(tmp_path), clip_range_vf=0.1,
                                            mine_coef=0.5, mine_balance=True)  # fmt: skip
    model = maskable_ppo.ALGORITHM.build(config, make_vec_env(config))
    model.set_logger(configure(None, []))
    model.learn(64)
    assert model.clip_range_vf(1.0) == 0.1 and model.mine_balance and model.num_timesteps == 64

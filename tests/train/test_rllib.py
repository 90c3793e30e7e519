"""The single-player env under RLlib: registered by name and by Gymnasium id, the mask honoured by the network,
one PPO iteration, a trained module played as an agent, the training script (the battle env's:
test_rllib_battle.py)."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("ray.rllib")

import torch as th
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from agents.episode import play_episode
from train.rllib import ENV_NAME, WIN_RATE, MaskedCellModule, RLlibAgent, make_env, module_spec, ppo_config

pytestmark = pytest.mark.train
TINY_MODEL = {"channels": 8, "layers": 2, "value_hidden": 8}
SMALL_BOARD = {"rows": 5, "cols": 5, "mines": 3}


def tiny_module(env: gym.Env) -> MaskedCellModule:
    spec = module_spec(TINY_MODEL)
    spec.observation_space, spec.action_space = env.observation_space, env.action_space
    return spec.build()


def test_the_env_for_rllib_shows_the_mask_in_its_observation() -> None:
    env = make_env({"preset": "beginner"})
    obs, info = env.reset(seed=3)
    assert set(obs) == {"observation", "action_mask"} and obs["observation"].shape == (9, 9)
    np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
    assert env.observation_space.contains(obs)


def test_the_env_for_rllib_refuses_an_observation_without_the_mask() -> None:
    with pytest.raises(ValueError, match="RLlib's masking network reads obs_mode='dict', got obs_mode='planes'"):
        make_env({"obs_mode": "planes"})


def test_the_network_never_picks_a_masked_cell() -> None:
    env = make_env(SMALL_BOARD)
    module = tiny_module(env)
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step(12)  # the opening: several cells revealed, so several masked
    mask = th.as_tensor(obs["action_mask"][None])
    batch = {Columns.OBS: {"observation": th.as_tensor(obs["observation"][None]), "action_mask": mask}}
    with th.no_grad():
        logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
        values = module.compute_values(batch)
    assert (mask[0] == 0).any() and (mask[0] == 1).any()
    assert th.all(logits[mask[0] == 0] == FLOAT_MIN) and th.all(logits[mask[0] == 1] > FLOAT_MIN)
    samples = th.distributions.Categorical(logits=logits).sample((2000,))
    assert bool(mask[0][samples].all()), "a masked cell was sampled"
    assert values.shape == (1,)


def test_the_network_refuses_flag_actions() -> None:
    with pytest.raises(ValueError, match=r"one reveal per cell .* turn flags"):
        tiny_module(make_env({**SMALL_BOARD, "flags": True}))


def tiny_ppo(config):
    """An RLlib PPOConfig cut to a tiny batch: one iteration takes seconds."""
    return config.training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)


@pytest.mark.slow
def test_one_ppo_iteration_on_the_registered_env_then_the_policy_plays_valid_moves(
    ray_instance, tmp_path: Path
) -> None:
    algorithm = tiny_ppo(ppo_config(SMALL_BOARD, env=ENV_NAME, envs_per_runner=2, model=TINY_MODEL)).build_algo()
    try:
        result = algorithm.train()
        checkpoint = algorithm.save_to_path(str(tmp_path / "checkpoint"))
    finally:
        algorithm.stop()
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled"] >= 64 and runners["num_episodes"] > 0
    assert 0.0 <= runners[WIN_RATE] <= 1.0
    agent = RLlibAgent.from_checkpoint(checkpoint)
    env = gym.make("Minesweeper-v0", **SMALL_BOARD)
    episodes = [play_episode(env, agent, seed) for seed in range(10)]
    assert all(episode.invalid_moves == 0 for episode in episodes)


@pytest.mark.slow
def test_rllib_builds_the_env_from_its_gymnasium_id(ray_instance) -> None:
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    config = ppo_config({"preset": "beginner"}, env="mine_env:Minesweeper-v0", envs_per_runner=2, model=TINY_MODEL)
    runner = SingleAgentEnvRunner(config=config)
    try:
        episodes = runner.sample(num_timesteps=40, random_actions=False)
    finally:
        runner.stop()
    assert sum(len(episode) for episode in episodes) >= 40
    observations = [episode.get_observations(0) for episode in episodes]
    assert all(obs["observation"].shape == (9, 9) for obs in observations)


@pytest.mark.parametrize(("argv", "message"), [
    (["--preset", "huge"], "unknown preset 'huge'"),
    (["--batch-size", "64", "--minibatch-size", "128"], "minibatch_size 128 exceeds batch_size 64"),
    (["--epochs", "0"], "epochs must be at least 1, got 0"),
    (["--env-runners", "-1"], "env_runners must be at least 0, got -1"),
    (["--minutes", "0"], "minutes must be positive, got 0.0"),
    (["--resume", "/no/such/checkpoint"], "--resume /no/such/checkpoint: no such checkpoint folder"),
    (["--rows", "3", "--cols", "3", "--mines", "9"], "9 mines do not fit a 3x3 board under the 'opening' rule"),
    (["--rows", "0"], "rows must be between 1 and 256, got 0"),
    (["--mines", "81", "--first-click", "safe"], "81 mines do not fit a 9x9 board under the 'safe' rule"),
    (["--first-click", "corner"], "unknown first_click rule 'corner'"),
])  # fmt: skip
def test_the_training_script_refuses_bad_settings(argv: list[str], message: str) -> None:
    from train.rllib.ppo import parse_config

    with pytest.raises(ValueError, match=message):
        parse_config(argv)


def test_the_training_script_trains_on_the_board_its_options_give() -> None:
    from train.rllib.ppo import parse_config

    config = parse_config(["--rows", "6", "--cols", "7", "--mines", "8", "--first-click", "safe"])
    assert config.env_config() == {"rows": 6, "cols": 7, "mines": 8, "first_click": "safe",
                                   "rewards": {"win": 1.0, "loss": -1.0, "progress": 0.01}}  # fmt: skip
    assert config.board_name() == "6x7x8"
    assert parse_config(["--preset", "expert", "--mines", "90"]).board_kwargs()["mines"] == 90
    assert parse_config([]).board_name() == "beginner" and parse_config([]).board_kwargs()["rows"] == 9
    obs, _ = make_env(config.env_config()).reset(seed=0)
    assert obs["observation"].shape == (6, 7)


def test_the_training_script_refuses_a_bad_board_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from train.rllib.ppo import main

    with pytest.raises(SystemExit) as exit_:
        main(["--rows", "4", "--cols", "4", "--mines", "16"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "python -m train.rllib.ppo: error: 16 mines do not fit a 4x4 board under the 'opening' rule: expected 0..7"
    ]


@pytest.mark.slow
def test_the_training_script_trains_saves_resumes_and_evaluates(ray_instance, tmp_path: Path) -> None:
    from train.rllib.ppo import parse_config, train

    argv = ["--minutes", "5", "--batch-size", "64", "--minibatch-size", "32", "--epochs", "1",
            "--envs-per-runner", "2", "--channels", "8", "--layers", "2", "--checkpoint-every", "1",
            "--eval-games", "3", "--runs-dir", str(tmp_path), "--run-name", "tiny",
            "--rows", "5", "--cols", "6", "--mines", "5"]  # fmt: skip
    first = train(parse_config([*argv, "--max-steps", "64"]))  # one iteration: a step budget, not the clock
    run = tmp_path / "tiny"
    assert first["iterations"] == 1 and first["steps"] >= 64 and 0.0 <= first["greedy_win_rate"] <= 1.0
    assert (run / "checkpoints" / "iteration_00001").is_dir() and (run / "final").is_dir()
    assert {key: value for key, value in json.loads((run / "config.json").read_text()).items()
            if key in ("rows", "cols", "mines")} == {"rows": 5, "cols": 6, "mines": 5}  # fmt: skip
    again = train(parse_config([*argv, "--max-steps", "128", "--resume", str(run / "checkpoints" / "iteration_00001")]))
    assert again["iterations"] == 2 and again["steps"] > first["steps"]
    rows = (run / "progress.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in rows] == ["iteration", "1", "2"]

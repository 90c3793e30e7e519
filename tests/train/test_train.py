"""Tests of the training package: scripts end to end, model files, masking, seeding and the VecEnv adapter."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th
from sb3_contrib.common.maskable.utils import get_action_masks

from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv
from minesweeper_cli import train as train_cli
from train import dqn, maskable_ppo, ppo
from train.common import evaluate_win_rate, make_vec_env, save_model, train
from train.networks import action_scores
from train.vec_env import BatchVecEnv

ROOT = Path(__file__).resolve().parents[1]
ALGORITHMS = {"dqn": dqn.ALGORITHM, "ppo": ppo.ALGORITHM, "maskable_ppo": maskable_ppo.ALGORITHM}
TINY = {
    "rows": 4, "cols": 5, "mines": 3, "num_envs": 4, "channels": 8, "layers": 2, "value_hidden": 8,
    "eval_games": 20, "eval_every": 128, "checkpoint_every": 128, "progress_bar": False,
}  # fmt: skip
ALGO_TINY = {"dqn": {"learning_starts": 64, "batch_size": 16}, "ppo": {"n_steps": 16, "batch_size": 32}}
ALGO_TINY["maskable_ppo"] = ALGO_TINY["ppo"]


def tiny_config(algo: str, tmp_path: Path, **overrides: object) -> object:
    options = TINY | ALGO_TINY[algo] | {"runs_dir": str(tmp_path), "run_name": algo} | overrides
    return ALGORITHMS[algo].config_class(**options)


def as_flags(options: dict[str, object]) -> list[str]:
    flags = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        flags += [flag if value else "--no-" + flag[2:]] if isinstance(value, bool) else [flag, str(value)]
    return flags


def random_valid_play(env: BatchVecEnv, rng: np.random.Generator, steps: int) -> list[np.ndarray]:
    """Grids seen while playing uniform valid moves (the states the masking tests check)."""
    grids = [env.reset()]
    for _ in range(steps):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        grids.append(env.step(actions)[0])
    return grids


@pytest.fixture(scope="module")
def script_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[subprocess.CompletedProcess[str], Path]]:
    """Each script run for 256 steps in its own subprocess, the three at once (torch imports dominate)."""
    runs_dir = tmp_path_factory.mktemp("scripts")
    processes = {}
    for algo in ALGORITHMS:
        options = TINY | ALGO_TINY[algo] | {"steps": 256, "runs_dir": str(runs_dir), "run_name": algo}
        command = [sys.executable, "-m", f"train.{algo}", *as_flags(options)]
        processes[algo] = (
            subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
            command,
        )
    results = {}
    for algo, (process, command) in processes.items():
        stdout, stderr = process.communicate(timeout=300)
        results[algo] = (subprocess.CompletedProcess(command, process.returncode, stdout, stderr), runs_dir / algo)
    return results


@pytest.mark.parametrize("algo", sorted(ALGORITHMS))
def test_script_runs_end_to_end_in_a_subprocess(algo: str, script_runs: dict) -> None:
    result, run_dir = script_runs[algo]
    assert result.returncode == 0, result.stderr[-2000:]
    metadata = json.loads((run_dir / "final_model.json").read_text())
    assert metadata["algo"] == algo
    assert metadata["model_class"].startswith(f"{ALGORITHMS[algo].model_class.__module__}:")
    assert metadata["env_kwargs"] == {"rows": 4, "cols": 5, "mines": 3, "first_click": "opening", "obs_mode": "grid",
                                      "flags": False}  # fmt: skip
    assert metadata["steps"] >= 256
    assert (run_dir / "best_model.zip").is_file() and (run_dir / "config.json").is_file()
    assert list((run_dir / "checkpoints").glob("model_*_steps.zip"))
    assert list((run_dir / "logs").glob("events.out.tfevents.*"))
    assert "eval/win_rate" in (run_dir / "logs" / "progress.csv").read_text().splitlines()[0]


def test_cli_trains_and_resumes_from_a_checkpoint(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    train_cli.register(parser.add_subparsers())
    options = TINY | ALGO_TINY["maskable_ppo"] | {"runs_dir": str(tmp_path), "run_name": "cli"}
    args = parser.parse_args(["train", "maskable_ppo", "--steps", "128", *as_flags(options)])
    assert args.func(args) == 0
    checkpoint = next((tmp_path / "cli" / "checkpoints").glob("model_*_steps.zip"))
    args = parser.parse_args(["train", "maskable_ppo", "--resume", str(checkpoint), "--steps", "256"])
    assert args.func(args) == 0
    metadata = json.loads((tmp_path / "cli" / "final_model.json").read_text())
    assert metadata["steps"] == 256
    assert (tmp_path / "cli" / "config-until-128.json").is_file()
    assert (tmp_path / "cli" / "logs" / "progress-until-128.csv").is_file()
    assert metadata["config"]["channels"] == TINY["channels"]


def test_cli_rejects_bad_settings_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    train_cli.register(parser.add_subparsers())
    args = parser.parse_args(["train", "ppo", "--steps", "0", "--runs-dir", str(tmp_path)])
    with pytest.raises(SystemExit) as stop:
        args.func(args)
    assert stop.value.code == 2
    assert "steps must be at least 1" in capsys.readouterr().err
    args = parser.parse_args(["train", "dqn", "--rows", "3", "--cols", "3", "--mines", "9"])
    with pytest.raises(SystemExit):
        args.func(args)


@pytest.mark.parametrize("algo", sorted(ALGORITHMS))
def test_save_load_round_trip_keeps_the_policy(algo: str, tmp_path: Path) -> None:
    config = tiny_config(algo, tmp_path)
    model = ALGORITHMS[algo].build(config, make_vec_env(config))
    save_model(model, tmp_path / "model.zip", algo, config)
    loaded = ALGORITHMS[algo].model_class.load(tmp_path / "model.zip", device="cpu")
    metadata = json.loads((tmp_path / "model.json").read_text())
    module, name = metadata["model_class"].split(":")
    assert getattr(sys.modules[module], name) is ALGORITHMS[algo].model_class
    grids = np.stack(random_valid_play(BatchVecEnv(config.board_spec(), 4), np.random.default_rng(0), 5))
    grids = grids.reshape(-1, 4, 5)
    th.testing.assert_close(action_scores(loaded.policy, grids), action_scores(model.policy, grids))


def test_network_weights_fit_any_board_size(tmp_path: Path) -> None:
    small = tiny_config("maskable_ppo", tmp_path)
    large = tiny_config("maskable_ppo", tmp_path, rows=9, cols=7, mines=10)
    policy = maskable_ppo.build_model(small, make_vec_env(small)).policy
    other = maskable_ppo.build_model(large, make_vec_env(large)).policy
    other.load_state_dict(policy.state_dict())
    grids = np.full((2, 9, 7), -1, dtype=np.int8)
    assert action_scores(other, grids).shape == (2, 63)


@pytest.mark.parametrize("exploration", [0.0, 0.5, 1.0])
def test_masked_dqn_never_selects_an_invalid_action(exploration: float, tmp_path: Path) -> None:
    config = tiny_config("dqn", tmp_path, learning_starts=10**6)
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
    config = tiny_config("dqn", tmp_path, double_q=False)
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


@pytest.mark.parametrize("algo", ["maskable_ppo", "dqn"])
def test_a_short_seeded_run_is_reproducible(algo: str, tmp_path: Path) -> None:
    finals = []
    for name in ("first", "second"):
        config = tiny_config(algo, tmp_path, steps=192, run_name=name, checkpoint_every=0, eval_games=0)
        run_dir = train(ALGORITHMS[algo], config)
        finals.append(ALGORITHMS[algo].model_class.load(run_dir / "final_model.zip", device="cpu"))
    first, second = (model.policy.state_dict() for model in finals)
    assert first.keys() == second.keys()
    for key in first:
        th.testing.assert_close(first[key], second[key], rtol=0, atol=0)


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


def test_evaluation_plays_a_fixed_set_of_games(tmp_path: Path) -> None:
    config = tiny_config("maskable_ppo", tmp_path)
    policy = maskable_ppo.build_model(config, make_vec_env(config)).policy
    spec = config.board_spec()
    first = evaluate_win_rate(policy, spec, games=30, seed=4)
    assert first == evaluate_win_rate(policy, spec, games=30, seed=4)
    assert 0.0 <= first <= 1.0

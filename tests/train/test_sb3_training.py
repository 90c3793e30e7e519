"""What the training scripts share: scripts end to end, the command line and resume, model files with their
model card, seeded reproducibility and the periodic evaluation."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th

from agents.model_card import ModelCard
from agents.networks.player import load_model_agent
from minesweeper_cli import train as train_cli
from support import random_position
from train.progress_log import logged, read_log
from train.sb3 import dqn, maskable_ppo, ppo
from train.sb3.evaluation import evaluate_policy, evaluate_win_rate, save_model
from train.sb3.export import export_model
from train.sb3.networks import action_scores
from train.sb3.training import make_vec_env, planned_steps, train

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[2]
"""The repository root, where the scripts run as ``python -m train.ALGO``."""
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


@pytest.fixture(scope="module")
def script_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[subprocess.CompletedProcess[str], Path]]:
    """Each script run for 256 steps in its own subprocess, the three at once (torch imports dominate)."""
    runs_dir = tmp_path_factory.mktemp("scripts")
    processes = {}
    for algo in ALGORITHMS:
        options = TINY | ALGO_TINY[algo] | {"steps": 256, "runs_dir": str(runs_dir), "run_name": algo}
        command = [sys.executable, "-m", f"train.sb3.{algo}", *as_flags(options)]
        processes[algo] = (
            subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
            command,
        )
    results = {}
    for algo, (process, command) in processes.items():
        stdout, stderr = process.communicate(timeout=300)
        results[algo] = (subprocess.CompletedProcess(command, process.returncode, stdout, stderr), runs_dir / algo)
    return results


@pytest.mark.slow
@pytest.mark.parametrize("algo", sorted(ALGORITHMS))
def test_script_runs_end_to_end_in_a_subprocess(algo: str, script_runs: dict) -> None:
    result, run_dir = script_runs[algo]
    assert result.returncode == 0, result.stderr[-2000:]
    card = ModelCard.read(run_dir / "final_model.json")
    assert card.algo == algo
    assert card.model_class.startswith(f"{ALGORITHMS[algo].model_class.__module__}:")
    assert card.env_kwargs == {"rows": 4, "cols": 5, "mines": 3, "first_click": "opening", "obs_mode": "grid",
                               "flags": False}  # fmt: skip
    assert card.steps is not None and card.steps >= 256
    best = ModelCard.read(run_dir / "best_model.json").eval
    assert best is not None and best["games"] == TINY["eval_games"] and 0.0 <= best["win_rate"] <= 1.0
    assert (run_dir / "best_model.zip").is_file() and (run_dir / "config.json").is_file()
    assert (run_dir / "best_model.pt").is_file() and (run_dir / "final_model.pt").is_file()
    assert (run_dir / "checkpoints" / "latest.zip").is_file()
    assert list((run_dir / "logs").glob("events.out.tfevents.*"))
    rows = read_log(run_dir / "logs" / "progress.csv")
    evaluations = list(zip(logged(rows, "eval/win_rate"), logged(rows, "eval/safe_fraction"), strict=True))
    # the best model is the highest win rate of the evaluations, ties broken by the safe cells revealed
    assert len(evaluations) >= 2 and (best["win_rate"], best["safe_fraction"]) == max(evaluations)
    # the final model carries the reading the run made at its step, the last one logged
    assert card.eval is not None and card.eval["games"] == TINY["eval_games"]
    assert (card.eval["win_rate"], card.eval["safe_fraction"]) == evaluations[-1]


def test_cli_trains_and_resumes_from_a_checkpoint(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    train_cli.register(parser.add_subparsers())
    options = TINY | ALGO_TINY["maskable_ppo"] | {"runs_dir": str(tmp_path), "run_name": "cli"}
    args = parser.parse_args(["train", "maskable_ppo", "--steps", "128", *as_flags(options)])
    assert args.func(args) == 0
    args = parser.parse_args(["train", "maskable_ppo", "--resume", str(tmp_path / "cli"), "--steps", "256"])
    assert args.func(args) == 0
    card = ModelCard.read(tmp_path / "cli" / "final_model.json")
    assert card.steps == 256
    assert (tmp_path / "cli" / "config-until-128.json").is_file()
    steps = [line.split(",") for line in (tmp_path / "cli" / "logs" / "progress.csv").read_text().splitlines()]
    column = steps[0].index("time/total_timesteps")
    assert {int(row[column]) for row in steps[1:]} == {64, 128, 192, 256}  # one curve, before and after the resume
    assert card.config is not None and card.config["channels"] == TINY["channels"]


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
    module, name = ModelCard.read(tmp_path / "model.json").model_class.split(":")
    assert getattr(sys.modules[module], name) is ALGORITHMS[algo].model_class
    rng = np.random.default_rng(0)
    grids = np.stack([random_position(rng, 4, 5, 3)[1] for _ in range(24)])
    th.testing.assert_close(action_scores(loaded.policy, grids), action_scores(model.policy, grids))
    played = th.as_tensor(load_model_agent(tmp_path / "model").batch_scores(grids))  # the model format, no SB3
    if algo != "dqn":  # an actor-critic's distribution normalises its logits
        played = th.log_softmax(played, dim=1)
    th.testing.assert_close(played, action_scores(model.policy, grids))
    assert ModelCard.read(tmp_path / "model.json").network == export_model(model, tmp_path / "again.json") | {
        "weights": "model.pt"}  # the same bytes from the same weights








def test_steps_are_rounded_up_to_whole_rollouts_and_the_run_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tiny_config("ppo", tmp_path, steps=100, eval_games=0, checkpoint_every=0)  # rollouts of 16 * 4 steps
    run_dir = train(ALGORITHMS["ppo"], config)
    assert ModelCard.read(run_dir / "final_model.json").steps == 128
    assert "--steps 100 rounded up to 128: ppo collects 64 steps at a time (n_steps 16 * num_envs 4)" in (
        capsys.readouterr().out
    )


@pytest.mark.parametrize(
    ("algo", "asked", "planned"),
    [("ppo", 64, 64), ("ppo", 65, 128), ("ppo", 1, 64), ("dqn", 10, 12), ("dqn", 12, 12), ("maskable_ppo", 200, 256)],
)
def test_planned_steps_are_whole_rounds_of_collection(algo: str, asked: int, planned: int, tmp_path: Path) -> None:
    config = tiny_config(algo, tmp_path)  # rounds: PPO n_steps 16 * 4 boards, DQN train_freq 1 * 4 boards
    model = ALGORITHMS[algo].build(config, make_vec_env(config))
    assert planned_steps(model, asked) == planned
    model.num_timesteps = 64  # a resumed run: whole rounds on top of the steps already made
    assert planned_steps(model, 64 + asked) == 64 + planned
    assert planned_steps(model, 10) == 64


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




def test_evaluation_plays_a_fixed_set_of_games(tmp_path: Path) -> None:
    config = tiny_config("maskable_ppo", tmp_path)
    policy = maskable_ppo.build_model(config, make_vec_env(config)).policy
    spec = config.board_spec()
    first = evaluate_policy(policy, spec, games=30, seed=4)
    assert first == evaluate_policy(policy, spec, games=30, seed=4)
    assert first.win_rate == evaluate_win_rate(policy, spec, games=30, seed=4)
    # the opening rule reveals a zero and its neighbours before the policy moves; a win reveals every safe cell
    assert first.win_rate <= first.safe_fraction <= 1.0 and first.safe_fraction > 0.0

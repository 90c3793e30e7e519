"""Runs that stop and resume: a run paused half-way and resumed ends exactly where one that never stopped does
(weights, optimizer, step counter, replay buffer, learning curve), the time limit, and the checkpoint's parts."""

from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import signal
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th
from stable_baselines3.common.callbacks import BaseCallback

from agents.model_card import ModelCard
from mine_env.engine.batch import BatchEngine
from mine_env.engine.spec import BoardSpec
from minesweeper_cli import train as train_cli
from support import TINY_SB3_ALGO, TINY_SB3_RUN, resume_training, tiny_sb3_run
from train.options import check_device
from train.sb3 import dqn, maskable_ppo, ppo
from train.sb3.checkpoints import LATEST, ContinuedCSV, checkpoint_file, logged_wall_seconds, time_up
from train.sb3.mine_replay import MineReplay
from train.sb3.training import train

pytestmark = pytest.mark.train

ALGORITHMS = {"dqn": dqn.ALGORITHM, "ppo": ppo.ALGORITHM, "maskable_ppo": maskable_ppo.ALGORITHM}


def curve(run_dir: Path) -> list[dict[str, str]]:
    with open(run_dir / "logs" / "progress.csv") as file:
        return list(csv.DictReader(file))


def without_times(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The curve's rows without what depends on the clock or counts a process's own rollouts."""
    clock = ("time/fps", "time/time_elapsed", "time/iterations", "time/wall_seconds")
    return [{key: value for key, value in row.items() if key not in clock} for row in rows]


@pytest.mark.parametrize("algo", sorted(ALGORITHMS))
def test_a_paused_and_resumed_run_ends_exactly_where_an_unbroken_one_does(algo: str, tmp_path: Path) -> None:
    whole = tiny_sb3_run(algo, tmp_path, "whole")
    halves = tiny_sb3_run(algo, tmp_path, "halves", pause_at=128)
    paused = ALGORITHMS[algo].model_class.load(halves / LATEST, device="cpu")
    assert paused.num_timesteps == 128
    assert ModelCard.read(halves / "final_model.json").steps == 128
    resume_training(algo, halves)
    models = [ALGORITHMS[algo].model_class.load(folder / "final_model.zip", device="cpu") for folder in (whole, halves)]
    assert [model.num_timesteps for model in models] == [256, 256]
    first, second = (model.policy.state_dict() for model in models)
    for key in first:
        th.testing.assert_close(first[key], second[key], rtol=0, atol=0, msg=key)
    adam = [model.policy.optimizer.state_dict()["state"] for model in models]
    for index in adam[0]:
        th.testing.assert_close(adam[0][index]["exp_avg_sq"], adam[1][index]["exp_avg_sq"], rtol=0, atol=0)
    assert without_times(curve(halves)) == without_times(curve(whole))
    assert (halves / "config-until-128.json").is_file()
    walls = [float(row["time/wall_seconds"]) for row in curve(halves) if row.get("time/wall_seconds")]
    assert len(walls) == 4 and walls == sorted(walls)  # at 64, 128, then after the resume at 192 and 256
    assert walls[1] <= paused.resume_state["wall_seconds"] < walls[2]  # the resumed stretch counts on from it
    if algo == "dqn":
        for model, folder in zip(models, (whole, halves), strict=True):
            model.load_replay_buffer(folder / "checkpoints" / "latest_replay_buffer.pkl")
        assert models[0].replay_buffer.size() == models[1].replay_buffer.size() == 100 // 4  # rows of 4 boards
        np.testing.assert_array_equal(models[0].replay_buffer.observations, models[1].replay_buffer.observations)
        assert models[0].exploration_rate == models[1].exploration_rate


def test_a_run_with_marks_resumes_with_its_games_marks(tmp_path: Path) -> None:
    marked = {"mark_above": 0.5001}  # an untrained policy's logits are near 0: many cells read as sure mines
    whole = tiny_sb3_run("maskable_ppo", tmp_path, "whole", **marked)
    halves = tiny_sb3_run("maskable_ppo", tmp_path, "halves", pause_at=128, **marked)
    state = maskable_ppo.ALGORITHM.model_class.load(halves / LATEST, device="cpu").resume_state["marks"]
    assert state["marks"].any() and not state["playable"].all()
    resume_training("maskable_ppo", halves)
    models = [maskable_ppo.ALGORITHM.model_class.load(folder / "final_model.zip", device="cpu")
              for folder in (whole, halves)]  # fmt: skip
    first, second = (model.policy.state_dict() for model in models)
    for key in first:
        th.testing.assert_close(first[key], second[key], rtol=0, atol=0, msg=key)
    assert without_times(curve(halves)) == without_times(curve(whole))


def test_the_time_limit_says_minute_in_the_singular_for_one() -> None:
    assert [time_up(1), time_up(30), time_up(0.5)] == ["1 minute is up", "30 minutes are up", "0.5 minutes are up"]


def test_the_time_limit_stops_a_run_with_a_checkpoint_that_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    halted = tiny_sb3_run("ppo", tmp_path, "timed", minutes=1e-6, steps=10_000)
    assert "minutes are up; resume with --resume" in capsys.readouterr().out
    steps = ModelCard.read(halted / "final_model.json").steps
    assert steps is not None and steps < 10_000
    assert ppo.ALGORITHM.model_class.load(halted / LATEST, device="cpu").num_timesteps == steps
    resume_training("ppo", halted, "--minutes", "0", "--steps", str(steps + 64))
    assert ModelCard.read(halted / "final_model.json").steps == steps + 64


def test_resume_names_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"has no checkpoints/latest\.zip: resume a run directory trained"):
        checkpoint_file(tmp_path)
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        checkpoint_file(tmp_path / "missing.zip")


def test_a_continued_log_drops_the_rows_after_the_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "progress.csv"
    path.write_text("a,time/total_timesteps\n1,64\n2,128\n3,192\n,\n")
    log = ContinuedCSV(str(path), until=128)
    log.write({"a": 4, "time/total_timesteps": 192, "b": "new"}, {}, 192)
    log.close()
    assert path.read_text().splitlines() == ["a,time/total_timesteps,b", "1,64,", "2,128,", ",,", '4,192,"new"']


def test_an_older_checkpoints_wall_time_is_read_from_its_log(tmp_path: Path) -> None:
    path = tmp_path / "progress.csv"
    assert logged_wall_seconds(path) == 0.0
    path.write_text("time/time_elapsed,eval/win_rate\n3,\n,0.5\n9,\n")
    assert logged_wall_seconds(path) == 9.0
    path.write_text("time/time_elapsed,time/wall_seconds\n3,\n9,120.5\n2,\n,130.25\n")
    assert logged_wall_seconds(path) == 130.25


def test_the_engine_continues_from_its_state() -> None:
    spec = BoardSpec.from_options("beginner", None, None, None, "opening")
    engine, copy = BatchEngine(spec, 3), BatchEngine(spec, 3)
    engine.reset(7)
    rng = np.random.default_rng(0)
    for _ in range(5):
        engine.step(rng.choice(81, size=3))
    copy.set_state(engine.state())
    for _ in range(300):  # many games: the layout keys and generators carry on too
        actions = np.array([np.flatnonzero(mask)[0] for mask in engine.action_masks()])
        ours, theirs = engine.step(actions), copy.step(actions)
        np.testing.assert_array_equal(ours.rewards, theirs.rewards)
        np.testing.assert_array_equal(engine.grids(), copy.grids())


def test_layouts_are_the_mines_of_the_games_in_progress() -> None:
    spec = BoardSpec.from_options("beginner", None, None, None, "opening")
    engine = BatchEngine(spec, 2)
    engine.reset(0)
    mines, placed = engine.layouts()
    assert not placed.any() and not mines.any()  # the opening rule places them at the first reveal
    engine.step(np.array([40, 40]))
    mines, placed = engine.layouts()
    assert placed.all() and (mines.sum(axis=1) == 10).all()
    assert (mines[engine.grids().reshape(2, -1) >= 0] == 0).all()  # no mine under a revealed number


def test_cuda_asked_where_there_is_none_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(th.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match=r"--device cuda: CUDA is not available here .*use --device cpu or auto"):
        check_device("cuda")
    check_device("auto")
    check_device("cpu")
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        check_device("gpu")


class _SignalAt(BaseCallback):
    """Sends this process ``number`` once the run has ``steps`` steps (as a scheduler's SIGTERM or a Ctrl-C would)."""

    def __init__(self, number: int, steps: int) -> None:
        super().__init__()
        self.number, self.steps, self.sent = number, steps, False

    def _on_step(self) -> bool:
        if not self.sent and self.num_timesteps >= self.steps:
            self.sent = True
            os.kill(os.getpid(), self.number)
        return True


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_a_run_with_a_checkpoint_that_resumes(
    number: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    signalling = dataclasses.replace(ppo.ALGORITHM, callbacks=lambda config: [_SignalAt(number, 100)])
    options = TINY_SB3_RUN | TINY_SB3_ALGO["ppo"] | {"runs_dir": str(tmp_path), "run_name": "signalled",
                                                     "steps": 10_000}  # fmt: skip
    before = signal.getsignal(number)
    halted = train(signalling, ppo.ALGORITHM.config_class(**options))
    assert f"{signal.Signals(number).name} received" in capsys.readouterr().out
    steps = ModelCard.read(halted / "final_model.json").steps
    assert steps is not None and 100 <= steps < 10_000
    assert ppo.ALGORITHM.model_class.load(halted / LATEST, device="cpu").num_timesteps == steps
    assert signal.getsignal(number) is before  # the handler that was there is given back
    resume_training("ppo", halted, "--steps", str(steps + 64))
    assert ModelCard.read(halted / "final_model.json").steps == steps + 64


def test_a_resume_applies_the_update_settings_it_may_change(tmp_path: Path) -> None:
    halted = tiny_sb3_run("maskable_ppo", tmp_path, "changed", pause_at=64)
    resume_training("maskable_ppo", halted, "--ent-coef", "0", "--n-epochs", "2", "--mine-coef", "1.5", "--steps",
                    "128", "--pause-at", "128", "--mine-replay", "40", "--mine-replay-steps", "3", "--mine-positions",
                    "--mine-replay-mirror", "2")  # fmt: skip
    model = maskable_ppo.ALGORITHM.model_class.load(halted / LATEST, device="cpu")
    assert (model.num_timesteps, model.ent_coef, model.n_epochs, model.mine_coef) == (128, 0.0, 2, 1.5)
    assert (model.mine_replay, model.mine_replay_steps, model.mine_positions) == (40, 3, True)
    assert model.mine_replay_mirror == 2 and model.mine_replay_buffer.symmetries == 2
    replay = MineReplay.load(halted / "checkpoints" / "latest_mine_replay.npz", 40)
    assert replay.capacity == 40 and replay.size == 40  # the newest of the positions the smaller replay holds
    resume_training("maskable_ppo", halted, "--steps", "192", "--mine-replay", "0", "--mine-replay-steps", "0",
                    "--mine-replay-mirror", "1")  # fmt: skip
    assert not (halted / "checkpoints" / "latest_mine_replay.npz").exists()  # gone with the replay


@pytest.mark.parametrize("algo", ["dqn", "ppo"])
def test_a_resume_trains_on_at_a_new_learning_rate(algo: str, tmp_path: Path) -> None:
    halted = tiny_sb3_run(algo, tmp_path, "slower", pause_at=128)
    resume_training(algo, halted, "--learning-rate", "1e-5")
    model = ALGORITHMS[algo].model_class.load(halted / LATEST, device="cpu")
    assert model.num_timesteps == 256
    assert [group["lr"] for group in model.policy.optimizer.param_groups] == [1e-5]
    with (halted / "logs" / "progress.csv").open(newline="") as handle:
        rates = [float(row["train/learning_rate"]) for row in csv.DictReader(handle) if row.get("train/learning_rate")]
    assert rates[0] == ALGORITHMS[algo].config_class().learning_rate and rates[-1] == 1e-5


@pytest.mark.parametrize("algo", ["dqn", "maskable_ppo"])
def test_learning_rate_drops_land_at_their_steps_across_a_resume(algo: str, tmp_path: Path) -> None:
    drops = {"lr_drops": "96:1e-4,160:1e-5"}
    whole = tiny_sb3_run(algo, tmp_path, "whole", **drops)
    halves = tiny_sb3_run(algo, tmp_path, "halves", pause_at=128, **drops)
    resume_training(algo, halves)
    models = [ALGORITHMS[algo].model_class.load(folder / "final_model.zip", device="cpu") for folder in (whole, halves)]
    first, second = (model.policy.state_dict() for model in models)
    for key in first:
        th.testing.assert_close(first[key], second[key], rtol=0, atol=0, msg=key)
    for model in models:
        assert [group["lr"] for group in model.policy.optimizer.param_groups] == [1e-5]
    rates = {int(row["time/total_timesteps"]): float(row["train/learning_rate"]) for row in curve(halves)
             if row.get("train/learning_rate")}  # fmt: skip
    initial = ALGORITHMS[algo].config_class().learning_rate
    assert {rate for step, rate in rates.items() if step < 96} <= {initial}
    assert rates[max(rates)] == 1e-5 and 1e-4 in rates.values()


def test_lr_drops_that_cannot_be_read_are_refused_in_one_line(tmp_path: Path) -> None:
    for text, message in [("100:abc", "comma list of STEP:RATE"), ("200:1e-4,100:1e-5", "must increase"),
                          ("0:1e-4", "at least 1")]:  # fmt: skip
        with pytest.raises(ValueError, match=message):
            tiny_sb3_run("ppo", tmp_path, "bad", lr_drops=text)


@pytest.mark.parametrize(
    ("algo", "options", "refused"),
    [("ppo", ["--channels", "16", "--seed", "5"], "--seed, --channels cannot change"),
     ("maskable_ppo", ["--mine-coef", "0", "--mine-replay", "0", "--mine-replay-steps", "0", "--mine-replay-mirror",
                       "1"], "--mine-coef cannot go from 0.5 to 0.0"),
     ("dqn", ["--buffer-size", "50"], "--buffer-size cannot change")],
)  # fmt: skip
def test_a_resume_refuses_what_the_checkpoint_fixes_in_one_line(
    algo: str, options: list[str], refused: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    halted = tiny_sb3_run(algo, tmp_path, "fixed", pause_at=64)
    parser = argparse.ArgumentParser()
    train_cli.register(parser.add_subparsers())
    args = parser.parse_args(["train", algo, "--resume", str(halted), *options])
    with pytest.raises(SystemExit) as stopped:
        args.func(args)
    assert stopped.value.code == 2
    assert refused in capsys.readouterr().err


def test_a_resumed_run_s_progress_bar_counts_the_run_s_steps_as_its_log_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    halted = tiny_sb3_run("ppo", tmp_path, "bar", pause_at=64, steps=128)
    capsys.readouterr()
    resume_training("ppo", halted, "--steps", "128", "--progress-bar")
    bar = capsys.readouterr().err.replace("\r", "\n")
    assert " 64/128 " in bar and " 128/128 " in bar and " 0/64 " not in bar  # from the resume point, out of the run
    assert logged_steps(halted)[-1] == 128


def logged_steps(run_dir: Path) -> list[int]:
    return [int(row["time/total_timesteps"]) for row in curve(run_dir) if row.get("time/total_timesteps")]

"""``--weight-average`` (train.sb3.averaging): the moving average of the policy's weights, saved as
``average_model``, played at every evaluation and kept whole across a pause and a resume."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th

from agents.networks.player import load_model_agent
from mine_env.env import MinesweeperEnv
from support import resume_training, tiny_sb3_run
from train.sb3 import dqn, maskable_ppo, ppo
from train.sb3.averaging import AVERAGE_MODEL

pytestmark = pytest.mark.train

ALGORITHMS = {"dqn": dqn.ALGORITHM, "ppo": ppo.ALGORITHM, "maskable_ppo": maskable_ppo.ALGORITHM}


def policy_weights(algo: str, path: Path) -> dict[str, th.Tensor]:
    return ALGORITHMS[algo].model_class.load(path, device="cpu").policy.state_dict()


def average_evaluations(run_dir: Path) -> dict[int, tuple[str, str]]:
    """The average's win rate and safe share as the run's log has them, by step."""
    with open(run_dir / "logs" / "progress.csv") as file:
        rows = list(csv.DictReader(file))
    return {int(row["time/total_timesteps"]): (row["eval/average_win_rate"], row["eval/average_safe_fraction"])
            for row in rows if row.get("eval/average_win_rate")}  # fmt: skip


@pytest.mark.parametrize("decay", [1.0, -0.5])
def test_a_decay_outside_zero_to_one_is_refused_in_one_line(decay: float, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"weight_average is a decay in \[0, 1\)"):
        tiny_sb3_run("ppo", tmp_path, "bad", weight_average=decay)


def test_a_paused_and_resumed_run_keeps_the_average_of_an_unbroken_one(tmp_path: Path) -> None:
    whole = tiny_sb3_run("maskable_ppo", tmp_path, "whole", weight_average=0.5)
    halves = tiny_sb3_run("maskable_ppo", tmp_path, "halves", weight_average=0.5, pause_at=128)
    resume_training("maskable_ppo", halves)
    averages = [policy_weights("maskable_ppo", folder / AVERAGE_MODEL) for folder in (whole, halves)]
    for key in averages[0]:
        th.testing.assert_close(averages[0][key], averages[1][key], rtol=0, atol=0, msg=key)
    final = policy_weights("maskable_ppo", whole / "final_model.zip")
    assert any(not th.equal(final[key], averages[0][key]) for key in final)  # an average, not the last weights
    logged = [average_evaluations(folder) for folder in (whole, halves)]
    assert sorted(logged[0]) == [64, 128, 192, 256] and logged[0] == logged[1]  # in the row of each evaluation
    agent = load_model_agent(whole / AVERAGE_MODEL)  # the .pt and card beside it play as any model does
    env = MinesweeperEnv(rows=4, cols=5, mines=3, first_click="opening")
    obs, info = env.reset(seed=1)
    assert 0 <= agent.act(obs, info) < env.action_space.n


@pytest.mark.parametrize("algo", ["dqn", "ppo"])
def test_a_resumed_run_may_turn_the_average_on(algo: str, tmp_path: Path) -> None:
    halted = tiny_sb3_run(algo, tmp_path, "later", pause_at=128)
    assert not (halted / AVERAGE_MODEL).exists()
    resume_training(algo, halted, "--weight-average", "0.5")
    average = policy_weights(algo, halted / AVERAGE_MODEL)
    final = policy_weights(algo, halted / "final_model.zip")
    assert any(not th.equal(final[key], average[key]) for key in final)

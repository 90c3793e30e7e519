"""Train the single-player env with RLlib's PPO and the action-masking network of :mod:`train.rllib`.

One script, read top to bottom: the settings (a documented dataclass, one ``--option`` per field), a private
Ray instance, the PPO algorithm, iterations until the time or step budget is spent (a checkpoint every few
iterations and a CSV line per iteration), then the greedy policy's win rate on a fixed set of seeded games.
The run directory (``runs/<run_name>/``) holds ``config.json``, ``progress.csv``, ``checkpoints/`` and
``final/`` (an RLlib algorithm checkpoint: :meth:`train.rllib.RLlibAgent.from_checkpoint` plays it, and
``python studies/eval_rllib.py runs/<run_name>/final --suite beginner-opening-1k`` judges it on a suite;
``python -m train.rllib.export runs/<run_name>/final --out MODEL.json`` saves it in the model format, which
``minesweeper eval --model MODEL`` plays with torch alone).

Usage (any board: a preset, or ``--rows/--cols/--mines`` as for the stable-baselines3 scripts)::

    python -m train.rllib.ppo --preset beginner --minutes 25 --run-name rllib-ppo-beginner
    python -m train.rllib.ppo --rows 6 --cols 6 --mines 5 --first-click safe --minutes 10
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from agents.base import Agent
from agents.episode import play_episode
from train.command_line import add_config_arguments, config_from_args
from train.options import BoardOptions, at_least, check_device, option
from train.rllib import WIN_RATE, RLlibAgent, ppo_config


@dataclass
class RLlibPPOConfig(BoardOptions):
    """Settings of one RLlib PPO run (the defaults are the MaskablePPO run of
    docs/lab/2026-11-21-rl-from-scratch-beginner.md where they apply);
    the board options come first, shared with the stable-baselines3 scripts (:class:`train.options.BoardOptions`)."""

    minutes: float = option(25.0, "Wall-clock budget of the training iterations.")
    max_steps: int = option(20_000_000, "Stop after this many environment steps even within the budget.")
    seed: int = option(1, "Seed of RLlib (torch, the env runners' boards and sampling).")
    env_runners: int = option(0, "RLlib env runner processes (0: sample in this process).")
    envs_per_runner: int = option(64, "Boards each env runner steps together.")
    batch_size: int = option(2048, "Environment steps per training iteration.")
    minibatch_size: int = option(256, "Steps per SGD minibatch.")
    epochs: int = option(4, "Passes over each iteration's batch.")
    learning_rate: float = option(7e-4, "Adam learning rate.")
    gamma: float = option(0.75, "Discount (a short horizon suits minesweeper; see docs/lab/).")
    gae_lambda: float = option(0.9, "GAE lambda.")
    entropy_coeff: float = option(0.001, "Entropy bonus.")
    reward_progress: float = option(0.01, "Shaping reward per newly revealed safe cell (+1 win, -1 loss).")
    torch_threads: int = option(1, "Torch CPU threads of the learner (this process).")
    device: str = option("cpu", "Device of the learner: cpu, cuda or auto (CUDA when available); the boards step "
                                "on the CPU either way.")  # fmt: skip
    channels: int = option(32, "Channels of the convolutional trunk.")
    layers: int = option(3, "3x3 convolutions of the trunk.")
    checkpoint_every: int = option(20, "Iterations between two checkpoints.")
    eval_games: int = option(1000, "Games of the final greedy evaluation (seeds eval_seed + i).")
    eval_seed: int = option(10_000_019, "Seed of the first evaluation game (apart from training seeds).")
    runs_dir: str = option("runs", "Folder of the run directories.")
    run_name: str = option("", "Run directory name (default: rllib-ppo-<preset or RxCxM>-<rule>-<seed>).")
    resume: str = option("", "Go on from this checkpoint of the run (its iterations, steps and CSV continue).")

    def validate(self) -> None:
        """ValueError for settings that cannot train (a board that cannot exist among them), before Ray starts."""
        self.board_spec()
        at_least(self, 1, "max_steps", "torch_threads", "envs_per_runner", "batch_size", "minibatch_size", "epochs",
                 "channels", "layers", "checkpoint_every")  # fmt: skip
        at_least(self, 0, "env_runners", "eval_games")
        if self.minibatch_size > self.batch_size:
            raise ValueError(f"minibatch_size {self.minibatch_size} exceeds batch_size {self.batch_size}")
        if not self.minutes > 0:
            raise ValueError(f"minutes must be positive, got {self.minutes}")
        check_device(self.device)
        if self.resume and not Path(self.resume).is_dir():
            raise ValueError(f"--resume {self.resume}: no such checkpoint folder")

    def board_kwargs(self) -> dict[str, Any]:
        """The env's board: the checked rows, columns, mines and first-click rule."""
        spec = self.board_spec()
        return {"rows": spec.rows, "cols": spec.cols, "mines": spec.mines, "first_click": spec.first_click}

    def board_name(self) -> str:
        """The preset's name, or ``RxCxM`` when rows, columns or mines are given."""
        if self.preset and self.rows is None and self.cols is None and self.mines is None:
            return self.preset
        spec = self.board_spec()
        return f"{spec.rows}x{spec.cols}x{spec.mines}"

    def env_config(self) -> dict[str, Any]:
        return self.board_kwargs() | {"rewards": {"win": 1.0, "loss": -1.0, "progress": self.reward_progress}}


def make_parser() -> argparse.ArgumentParser:
    """The command line: one ``--field-name`` per field of :class:`RLlibPPOConfig`."""
    parser = argparse.ArgumentParser(prog="python -m train.rllib.ppo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    add_config_arguments(parser, RLlibPPOConfig)
    return parser


def parse_config(argv: Sequence[str] | None = None) -> RLlibPPOConfig:
    """The checked config of the command line (ValueError for settings that cannot train)."""
    config = config_from_args(RLlibPPOConfig, make_parser().parse_args(argv))
    config.validate()
    return config


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m train.rllib.ppo [options]``: bad settings end in one ``error:`` line (status 2), before Ray."""
    parser = make_parser()
    try:
        config = config_from_args(RLlibPPOConfig, parser.parse_args(argv))
        config.validate()
    except ValueError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    train(config)
    return 0


def train(config: RLlibPPOConfig) -> dict[str, Any]:
    """Train within the budget, save ``final/``, evaluate greedily; returns the run's summary."""
    import ray
    import torch

    torch.set_num_threads(config.torch_threads)
    name = config.run_name or f"rllib-ppo-{config.board_name()}-{config.first_click}-{config.seed}"
    run_dir = Path(config.runs_dir) / name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / ("resume.json" if config.resume else "config.json")).write_text(
        json.dumps(dataclasses.asdict(config), indent=2) + "\n"
    )
    owns_ray = not ray.is_initialized()  # a caller's Ray (a notebook, a test) is used and left running
    if owns_ray:
        ray.init(address="local", num_cpus=max(1, config.env_runners + 1), include_dashboard=False,
                 configure_logging=False, log_to_driver=False, object_store_memory=200 * 1024**2)  # fmt: skip
    try:
        algorithm = build_algorithm(config)
        steps, iterations = iterate(algorithm, config, run_dir)
        final = algorithm.save_to_path(str((run_dir / "final").resolve()))
        algorithm.stop()
    finally:
        if owns_ray:
            ray.shutdown()
    win_rate = greedy_win_rate(RLlibAgent.from_checkpoint(final), config)
    summary = {"steps": steps, "iterations": iterations, "eval_games": config.eval_games,
               "eval_seed": config.eval_seed, "greedy_win_rate": win_rate, "checkpoint": str(final)}  # fmt: skip
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary), flush=True)
    return summary


def build_algorithm(config: RLlibPPOConfig) -> Any:
    import torch

    ppo = ppo_config(
        config.env_config(), env_runners=config.env_runners, envs_per_runner=config.envs_per_runner,
        batch_size=config.batch_size, minibatch_size=config.minibatch_size, epochs=config.epochs,
        lr=config.learning_rate, model={"channels": config.channels, "layers": config.layers}, seed=config.seed,
    )  # fmt: skip
    ppo.training(gamma=config.gamma, lambda_=config.gae_lambda, entropy_coeff=config.entropy_coeff)
    if config.device.startswith("cuda") or (config.device == "auto" and torch.cuda.is_available()):
        ppo.learners(num_gpus_per_learner=1)  # the local learner, in this process, on the GPU
    algorithm = ppo.build_algo()
    if config.resume:
        algorithm.restore_from_path(str(Path(config.resume).resolve()))
    return algorithm


def iterate(algorithm: Any, config: RLlibPPOConfig, run_dir: Path) -> tuple[int, int]:
    """Training iterations until the budget; one CSV row each, a checkpoint every ``checkpoint_every``."""
    deadline = time.monotonic() + 60 * config.minutes
    start, steps, iteration = time.monotonic(), 0, algorithm.iteration
    if config.resume:
        keep_rows_up_to(run_dir / "progress.csv", iteration)
    with (run_dir / "progress.csv").open("a" if config.resume else "w", newline="") as handle:
        writer = csv.writer(handle)
        if not config.resume:
            writer.writerow(["iteration", "env_steps", "seconds", "train_win_rate", "episode_return_mean"])
        while time.monotonic() < deadline and steps < config.max_steps:
            result = algorithm.train()
            iteration = algorithm.iteration
            runners = result["env_runners"]
            steps = int(result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0)))
            row = [iteration, steps, round(time.monotonic() - start, 1), runners.get(WIN_RATE, float("nan")),
                   runners.get("episode_return_mean", float("nan"))]  # fmt: skip
            writer.writerow(row)
            handle.flush()
            print(f"iteration {row[0]}: {row[1]:,} steps, {row[2]} s, training win rate {row[3]:.3f}", flush=True)
            if iteration % config.checkpoint_every == 0:
                algorithm.save_to_path(str((run_dir / "checkpoints" / f"iteration_{iteration:05d}").resolve()))
    return steps, iteration


def keep_rows_up_to(path: Path, iteration: int) -> None:
    """Drop the CSV rows of iterations after the checkpoint a run resumes from (they are trained again)."""
    rows = list(csv.reader(path.open())) if path.exists() else []
    kept = rows[:1] + [row for row in rows[1:] if int(row[0]) <= iteration]
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(kept)


def greedy_win_rate(agent: Agent, config: RLlibPPOConfig) -> float:
    """Share of ``eval_games`` games (env seeds ``eval_seed + i``) the greedy policy wins."""
    env = gym.make("Minesweeper-v0", **config.board_kwargs())
    won = [play_episode(env, agent, config.eval_seed + game).won for game in range(config.eval_games)]
    return float(np.mean(won)) if won else float("nan")


if __name__ == "__main__":
    sys.exit(main())

"""Checkpoints that resume a run where it stopped, and the limits that stop one (``--minutes``, ``--pause-at``, a
signal).

A run's checkpoint is ``checkpoints/latest.zip`` in its directory, replaced at each interval (DQN adds
``latest_replay_buffer.pkl``, its replay buffer; PPO with ``--mine-replay`` adds ``latest_mine_replay.npz``). It is
SB3's model file, which keeps the weights, the optimizer's state, the step and update counters, the schedules, the
last observation and the episode statistics, with what SB3 does not keep stored in it as the model's
``resume_state``: the random states (torch's, CUDA's, numpy's global one that SB3 shuffles minibatches with,
Python's; DQN's exploration generator is a model attribute already), the batched engine's games in progress with
their generators (and with ``--mark-above`` their marks), the episodes the monitor is counting, and the values the
logger holds for its next row, and the wall time the run has trained so far (:class:`RunClock`).

Checkpoints are taken between two rounds of collection, at the start of a rollout (the last update done, nothing
collected yet), so a resumed run continues exactly: run on one machine with the same settings, a run stopped and
resumed ends with the very weights of one that never stopped (``tests/train/test_checkpoints.py``). The learning
curve continues too: a resumed run keeps ``logs/progress.csv`` up to the checkpoint's step and appends to it.

SIGTERM (a scheduler's or a session's end) and Ctrl-C (SIGINT) stop a run the same way, with a checkpoint at the
next rollout's start; a second Ctrl-C interrupts at once, without one.
"""

from __future__ import annotations

import csv
import dataclasses
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common import logger as sb3_logger
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import CSVOutputFormat, KVWriter, Logger, make_output_format
from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm
from stable_baselines3.common.vec_env import VecMonitor

from train.progress_log import logged, read_log
from train.sb3.marks import marking_env
from train.sb3.mine_replay import mine_replay_file
from train.stop_signal import StopSignal

LATEST = Path("checkpoints") / "latest.zip"
"""A run's checkpoint, relative to its run directory."""


def checkpoint_file(resume: Path) -> Path:
    """The checkpoint ``--resume`` names: a run directory's latest one, or a checkpoint ``.zip`` itself."""
    path = resume / LATEST if resume.is_dir() else resume
    if not path.is_file():
        where = f"{resume} has no {LATEST}" if resume.is_dir() else f"no checkpoint at {resume}"
        raise FileNotFoundError(f"{where}: resume a run directory trained with --checkpoint-every above 0")
    return path


def replay_buffer_file(checkpoint: Path) -> Path:
    """Where an off-policy checkpoint's replay buffer is written: ``latest_replay_buffer.pkl`` beside it."""
    return checkpoint.with_name(f"{checkpoint.stem}_replay_buffer.pkl")


def saved_replay_buffer(checkpoint: Path) -> Path | None:
    """The replay buffer of a checkpoint, if any: ours, or SB3's own name beside a ``model_N_steps.zip`` of an
    older run (``model_replay_buffer_N_steps.pkl``)."""
    sb3_name = checkpoint.with_name(checkpoint.stem.replace("model", "model_replay_buffer") + ".pkl")
    return next((path for path in (replay_buffer_file(checkpoint), sb3_name) if path.is_file()), None)


@dataclasses.dataclass
class RunClock:
    """The wall time a run has trained, summed over its stretches: ``before`` seconds in the stretches before this
    one, and this one's since ``started`` (``time.monotonic()``). Learning curves against wall-clock time read it."""

    started: float
    before: float = 0.0

    def seconds(self) -> float:
        return self.before + time.monotonic() - self.started


def capture_state(model: BaseAlgorithm, wall_seconds: float) -> dict[str, Any]:
    """What a checkpoint needs beyond SB3's model file (see the module docstring)."""
    env = model.get_env()
    state: dict[str, Any] = {
        "wall_seconds": wall_seconds,
        "torch": th.get_rng_state(),
        "cuda": th.cuda.get_rng_state_all() if th.cuda.is_available() else [],
        "numpy": np.random.get_state(),
        "random": random.getstate(),
        "engine": env.unwrapped.engine.state(),
        "log": pending_log(model.logger),
    }
    if isinstance(env, VecMonitor):
        state["monitor"] = (env.episode_returns.copy(), env.episode_lengths.copy(), env.episode_count)
    marking = marking_env(env)
    if marking is not None:
        state["marks"] = marking.state()
    return state


def restore_state(model: BaseAlgorithm, state: dict[str, Any] | None) -> float | None:
    """Continue from a checkpoint's :func:`capture_state`; without one (a checkpoint of an older version), the
    env starts new games at the first step, as SB3 does for a run it did not save the env of.

    Returns the wall seconds the run had trained at the checkpoint (None where an older version did not save them).
    """
    if state is None:
        model._last_obs = None  # type: ignore[assignment]  # SB3 then resets the env before collecting
        return None
    th.set_rng_state(state["torch"])
    if state["cuda"] and th.cuda.is_available() and len(state["cuda"]) == th.cuda.device_count():
        th.cuda.set_rng_state_all(state["cuda"])
    np.random.set_state(state["numpy"])
    random.setstate(state["random"])
    env = model.get_env()
    env.unwrapped.engine.set_state(state["engine"])
    if isinstance(env, VecMonitor) and "monitor" in state:
        returns, lengths, env.episode_count = state["monitor"]
        env.episode_returns[:], env.episode_lengths[:] = returns, lengths
    marking = marking_env(env)
    if marking is not None:
        marking.set_state(state["marks"])
    for target, values in zip(pending_log(model.logger), state["log"], strict=True):
        target.update(values)
    return state.get("wall_seconds")


def logged_wall_seconds(progress_csv: Path) -> float:
    """The wall time a resumed run had trained, read from its log where its checkpoint predates :class:`RunClock`:
    the last ``time/wall_seconds`` logged, else the largest ``time/time_elapsed`` (SB3's seconds since its stretch
    began: exact for a run stopped once before, short of the earlier stretches otherwise); 0.0 without either."""
    rows = read_log(progress_csv)
    for key, pick in (("time/wall_seconds", lambda values: values[-1]), ("time/time_elapsed", max)):
        values = logged(rows, key)
        if values:
            return float(pick(values))
    return 0.0


def pending_log(logger: Logger) -> tuple[dict[str, Any], ...]:
    """What the logger holds for its next row (SB3 logs an update's losses with the next round's row)."""
    return logger.name_to_value, logger.name_to_count, logger.name_to_excluded


def save_checkpoint(model: BaseAlgorithm, run_dir: Path, wall_seconds: float,
                    extra: dict[str, Any] | None = None) -> Path:  # fmt: skip
    """Write the run's checkpoint (and DQN's replay buffer, PPO's mine replay), each replacing the last one only
    once complete;
    ``wall_seconds``: the wall time the run has trained (:class:`RunClock`); ``extra``: more of the run's state to
    keep in ``resume_state`` (the weight average's, :mod:`train.sb3.averaging`)."""
    path = run_dir / LATEST
    path.parent.mkdir(parents=True, exist_ok=True)
    model.resume_state = capture_state(model, wall_seconds) | (extra or {})  # type: ignore[attr-defined]
    try:
        partial = path.with_name("partial.zip")
        model.save(partial)
        os.replace(partial, path)
    finally:
        del model.resume_state  # type: ignore[attr-defined]  # the best and final models do not carry it
    if isinstance(model, OffPolicyAlgorithm):
        partial = path.with_name("partial_replay_buffer.pkl")
        model.save_replay_buffer(partial)
        os.replace(partial, replay_buffer_file(path))
    mine_replay = getattr(model, "mine_replay_buffer", None)
    if mine_replay is not None:
        mine_replay.save(mine_replay_file(path))
    else:  # a run resumed without its replay: an older one must not come back at the next resume
        mine_replay_file(path).unlink(missing_ok=True)
    return path


def time_up(minutes: float) -> str:
    """Why a run with a time limit stops: ``1 minute is up``, ``30 minutes are up``."""
    return f"{minutes:g} minute is up" if minutes == 1 else f"{minutes:g} minutes are up"


class RunKeeper(BaseCallback):
    """Checkpoints every ``every`` steps, and stops the run (after a checkpoint) at ``minutes`` of wall time in this
    stretch of ``clock`` (the run's :class:`RunClock`), once ``pause_at`` steps are reached (0 turns each off), or on
    a signal of :data:`train.stop_signal.STOP_SIGNALS`. ``extra_state`` gives more state for each checkpoint to keep
    (:func:`save_checkpoint`'s ``extra``).

    Everything happens at a rollout's start (see the module docstring); the stop then ends collection at its first
    step, whose transition SB3 throws away with the round, so that step is not counted.
    """

    def __init__(self, run_dir: Path, every: int, clock: RunClock, minutes: float = 0.0, pause_at: int = 0,
                 extra_state: Callable[[], dict[str, Any]] = dict) -> None:  # fmt: skip
        super().__init__()
        self.run_dir = run_dir
        self.extra_state = extra_state
        self.every = every
        self.clock = clock
        self.minutes = minutes
        self.pause_at = pause_at
        self.next_checkpoint = 0
        self.saved_at = -1
        self.stopping = ""
        self.signal = StopSignal()

    def _on_training_start(self) -> None:
        self.next_checkpoint = self._next_after(self.num_timesteps)
        self.signal.install()

    def _next_after(self, steps: int) -> int:
        return (steps // self.every + 1) * self.every if self.every else -1

    def _on_rollout_start(self) -> None:
        steps = self.num_timesteps
        if self.minutes and time.monotonic() - self.clock.started >= 60 * self.minutes:
            self.stopping = time_up(self.minutes)
        elif self.pause_at and steps >= self.pause_at:
            self.stopping = f"paused at {self.pause_at:,} steps"
        elif self.signal.received:
            self.stopping = self.signal.received
        if self.every and (steps >= self.next_checkpoint or self.stopping):
            self.save()
        if self.stopping and self.every:
            print(f"step {steps:,}: {self.stopping}; resume with --resume {self.run_dir}", flush=True)
        elif self.stopping:
            print(f"step {steps:,}: {self.stopping} (no checkpoint: --checkpoint-every 0)", flush=True)

    def _on_step(self) -> bool:
        if not self.stopping:
            return True
        self.model.num_timesteps -= self.training_env.num_envs
        return False

    def _on_training_end(self) -> None:
        self.signal.restore()
        if self.every and not self.stopping:
            self.save()

    def save(self) -> None:
        if self.saved_at != self.num_timesteps:
            save_checkpoint(self.model, self.run_dir, self.clock.seconds(), self.extra_state())
            self.saved_at = self.num_timesteps
        self.next_checkpoint = self._next_after(self.num_timesteps)


class ContinuedCSV(CSVOutputFormat):
    """SB3's CSV log of a run, continued by a resumed run: the rows up to ``until`` steps (the checkpoint's; rows
    written after it belong to the stretch that is played again) are kept, and new rows are appended."""

    STEP_KEY = "time/total_timesteps"

    def __init__(self, filename: str, until: int) -> None:
        path = Path(filename)
        lines = path.read_text().splitlines(keepends=True) if path.is_file() else []
        if not lines:
            super().__init__(filename)
            return
        keys = next(csv.reader([lines[0]]))
        column = keys.index(self.STEP_KEY) if self.STEP_KEY in keys else None
        kept = [line for line in lines[1:] if column is None or self._step(line, column) <= until]
        path.write_text("".join([lines[0], *kept]))
        self.file = open(filename, "r+")  # noqa: SIM115  # SB3 rewrites the header in place when keys appear
        self.file.seek(0, os.SEEK_END)
        self.keys = keys
        self.separator = ","
        self.quotechar = '"'

    @staticmethod
    def _step(line: str, column: int) -> float:
        value = next(csv.reader([line]))[column]
        return float(value) if value else -1.0


def run_logger(run_dir: Path, resumed_at: int | None) -> Logger:
    """The run's logger: ``logs/progress.csv`` (continued when ``resumed_at`` is a step count) and TensorBoard
    event files when TensorBoard's writer imports (a GPU machine may not have the package)."""
    folder = run_dir / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    csv_file = str(folder / "progress.csv")
    outputs: list[KVWriter] = [CSVOutputFormat(csv_file) if resumed_at is None else ContinuedCSV(csv_file, resumed_at)]
    if sb3_logger.SummaryWriter is not None:
        outputs.append(make_output_format("tensorboard", str(folder)))
    return Logger(str(folder), outputs)

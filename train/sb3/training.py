"""The stable-baselines3 scripts' training loop: one script's parts (:class:`Algorithm`), its command line, the
run directory, and training with resume (the model files and the periodic evaluation: :mod:`train.sb3.evaluation`;
checkpoints and the limits that stop a run: :mod:`train.sb3.checkpoints`).

A run directory (``runs/<run_name>/``) holds ``config.json``, CSV (and TensorBoard) logs under ``logs/``,
the checkpoint a run resumes from under ``checkpoints/`` (:mod:`train.sb3.checkpoints`), and ``best_model.zip`` /
``final_model.zip``, each with its model card beside it (:class:`agents.model_card.ModelCard`, the
``.json`` that ``eval/`` loads; see :func:`train.sb3.evaluation.model_card`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm
from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from train.command_line import add_config_arguments, add_resume_argument, config_from_args, report_run
from train.precision import native_bf16
from train.sb3.averaging import WeightAveraging, resumed_average
from train.sb3.checkpoints import (
    RunClock,
    RunKeeper,
    checkpoint_file,
    logged_wall_seconds,
    restore_state,
    run_logger,
    saved_replay_buffer,
)
from train.sb3.curriculum import is_distilled, load_transfer
from train.sb3.evaluation import WinRateCallback, evaluate_run_policy, save_model
from train.sb3.learning_rate import LearningRateDrops, parse_drops, set_learning_rate
from train.sb3.marks import MarkingVecEnv, marking_env, policy_scorer, read_marks_as_hidden
from train.sb3.mine_replay import MineReplay, mine_replay_file
from train.sb3.networks import set_bf16
from train.sb3.progress_bar import RunProgressBar
from train.sb3.recipes import RECIPES, recipe_names
from train.sb3.run_config import RunConfig
from train.sb3.vec_env import BatchVecEnv
from train.sb3.warm_start import load_distilled


@dataclass(frozen=True)
class Algorithm:
    """One training script's parts: its name, config class, SB3 model class and model builder."""

    name: str
    config_class: type[RunConfig]
    model_class: type[BaseAlgorithm]
    build: Callable[[Any, VecEnv], BaseAlgorithm]
    resumed: Callable[[Any, Any], None] | None = None
    """Called with (model, config) after loading a checkpoint, to apply the settings of ``changeable`` (the model
    keeps what the checkpoint saved) and those SB3 measures against the total steps (which a larger ``--steps``
    changes)."""
    changeable: frozenset[str] = frozenset()
    """The algorithm's own settings a resumed run may change (``resumed`` applies them; beside
    :data:`CHANGEABLE_ON_RESUME`)."""
    callbacks: Callable[[Any], list[BaseCallback]] | None = None
    """The algorithm's own training callbacks for a config (beside the evaluation and checkpoints)."""


CHANGEABLE_ON_RESUME = frozenset({
    "steps", "minutes", "pause_at", "progress_bar", "torch_threads", "device", "eval_every", "checkpoint_every",
    "max_steps", "reward_win", "reward_loss", "reward_progress", "reward_invalid", "runs_dir", "run_name",
    "learning_rate", "lr_drops", "bf16", "weight_average",
})  # fmt: skip
"""Settings any resumed run may change: how long and on what it runs, the env's (built anew from the config), the
learning rate and its drops (a lower one late in a run: :mod:`train.sb3.learning_rate`), and where a new run would
go (a resumed one stays in its checkpoint's folder)."""


def script_main(algorithm: Algorithm, argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """``python -m train.ALGO [options]`` (and ``minesweeper train ALGO``): parse, train, print the run directory."""
    name = algorithm.name
    parser = argparse.ArgumentParser(
        prog=prog or f"python -m train.{name}", description=f"Train {name} on Minesweeper."
    )
    add_config_arguments(parser, algorithm.config_class)
    add_resume_argument(parser)
    recipes = recipe_names(name)
    if recipes:
        parser.add_argument(
            "--recipe", choices=recipes,
            help="start from a named recipe's settings (train.sb3.recipes: a published run's), which the options "
            "given beside it override; a resumed run keeps those of its config.json",
        )  # fmt: skip
    args = parser.parse_args(argv)
    return report_run(parser, lambda: train_from_args(algorithm, args))


def train_from_args(algorithm: Algorithm, args: argparse.Namespace) -> Path:
    """Build the config (from a resumed run's ``config.json`` when ``--resume``) and train."""
    resume: Path | None = args.resume
    recipe = getattr(args, "recipe", None)
    base = None
    if recipe is not None:
        if resume is not None:
            raise ValueError(f"--recipe {recipe} sets up a new run; a resumed run keeps the settings of its "
                             "config.json: leave --recipe out")  # fmt: skip
        base = RECIPES[recipe].defaults(algorithm.config_class)
    if resume is not None:
        resume = checkpoint_file(resume)
        # a pause ends the stretch it was given for; the resumed one goes on unless paused anew
        base = dataclasses.replace(run_config(algorithm, find_run_config(resume)), pause_at=0)
    config = config_from_args(algorithm.config_class, args, base)
    if resume is not None:
        check_changes_on_resume(algorithm, base, config)
    return train(algorithm, config, resume)


def check_changes_on_resume(algorithm: Algorithm, saved: RunConfig, config: RunConfig) -> None:
    """Refuse, in one line, a resumed run's setting that the checkpoint fixes (the network, the board, the rollout
    or buffer shape, the seed): the model would go on with the saved value while the config claimed another."""
    allowed = CHANGEABLE_ON_RESUME | algorithm.changeable
    fixed = [field.name for field in dataclasses.fields(saved)
             if field.name not in allowed and getattr(saved, field.name) != getattr(config, field.name)]  # fmt: skip
    if fixed:
        options = ", ".join("--" + name.replace("_", "-") for name in fixed)
        raise ValueError(f"{options} cannot change in a resumed run (the checkpoint fixes them): leave them out, or "
                         "start a new run (--init takes a model's weights)")  # fmt: skip


def run_config(algorithm: Algorithm, path: Path) -> RunConfig:
    """The config a run saved in ``path``, as ``algorithm``'s config; a ValueError when another algorithm's run
    (or anything else) wrote it."""
    try:
        saved = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is not a run's config: {error}") from None
    known = {item.name for item in dataclasses.fields(algorithm.config_class)}
    foreign = sorted(set(saved) - known) if isinstance(saved, dict) else ["(not a JSON object)"]
    if foreign:
        raise ValueError(
            f"{path} is not the config of a {algorithm.name} run (it has {', '.join(foreign)}): resume a run with "
            "the algorithm that trained it"
        )
    return algorithm.config_class(**saved)


def find_run_config(checkpoint: Path) -> Path:
    """The ``config.json`` of the run a checkpoint belongs to (its folder or a parent)."""
    for folder in checkpoint.resolve().parents:
        if (folder / "config.json").is_file():
            return folder / "config.json"
    raise FileNotFoundError(f"no config.json in any folder above {checkpoint}")


def make_vec_env(config: RunConfig) -> VecEnv:
    """The training env: the batched engine as an SB3 VecEnv, with episode statistics."""
    keep_layouts = getattr(config, "mine_coef", 0.0) > 0  # only the mine head reads them
    boards: VecEnv = BatchVecEnv(config.board_spec(), config.num_envs, config.reward_config(), config.max_steps,
                                 keep_layouts)  # fmt: skip
    mark_above = getattr(config, "mark_above", 0.0)
    return VecMonitor(MarkingVecEnv(boards, mark_above) if mark_above else boards)


def new_run_dir(algo: str, config: RunConfig) -> Path:
    spec = config.board_spec()
    name = config.run_name or (
        f"{algo}-{spec.rows}x{spec.cols}x{spec.mines}-{spec.first_click}-s{config.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    run_dir = Path(config.runs_dir) / name
    run_dir.mkdir(parents=True, exist_ok=True)
    return run_dir


def keep_earlier_config(run_dir: Path, steps: int) -> None:
    """On resume, move the run's ``config.json`` aside as ``config-until-STEPS.json``: the resumed config may
    differ (a larger ``--steps``, a time limit)."""
    path = run_dir / "config.json"
    if path.is_file():
        path.rename(path.with_name(f"config-until-{steps}.json"))


def start_or_resume(
    algorithm: Algorithm, config: RunConfig, env: VecEnv, resume: Path | None
) -> tuple[BaseAlgorithm, Path]:
    """A new model in a new run directory, or the checkpoint ``resume`` in its own with its replay buffer; the
    rest of what it carries (``resume_state``) is for :func:`train.sb3.checkpoints.restore_state` once the run's
    logger is set."""
    if resume is None:
        model = algorithm.build(config, env)
        if config.init and is_distilled(config.init):
            load_distilled(model, config.init, config.board_spec().mines)
        elif config.init:
            load_transfer(model, config.init)
        if config.init and getattr(config, "mark_above", 0.0) and read_marks_as_hidden(model.policy, config.init):
            print(f"{config.init} played without marks: its network reads a mark as a hidden cell to start with",
                  flush=True)  # fmt: skip
        return model, new_run_dir(algorithm.name, config)
    run_dir = find_run_config(resume).parent
    try:
        # force_reset off: the games in progress come back with the checkpoint (SB3 would start new ones)
        model = algorithm.model_class.load(resume, env=env, device=config.device, force_reset=False)
    except Exception as error:  # another algorithm's checkpoint, another board, a foreign file: SB3 fails in many ways
        raise ValueError(f"cannot resume {resume} as a {algorithm.name} run: {error}") from None
    if algorithm.resumed is not None:
        algorithm.resumed(model, config)
    set_learning_rate(model, config.learning_rate)
    buffer = saved_replay_buffer(resume)
    if isinstance(model, OffPolicyAlgorithm) and buffer is not None:
        model.load_replay_buffer(buffer)
    mine_replay = mine_replay_file(resume)
    if getattr(model, "mine_replay", 0) and mine_replay.is_file():
        capacity = model.mine_replay
        model.set_mine_replay(capacity, model.mine_replay_steps, MineReplay.load(mine_replay, capacity))
    keep_earlier_config(run_dir, model.num_timesteps)
    return model, run_dir


def train(algorithm: Algorithm, config: RunConfig, resume: Path | None = None) -> Path:
    """Train (or resume) a run until ``config.steps`` environment steps, or until ``--minutes`` or
    ``--pause-at`` stop it; returns the run directory."""
    started = time.monotonic()
    config.validate()
    th.set_num_threads(config.torch_threads)
    algo = algorithm.name
    model, run_dir = start_or_resume(algorithm, config, make_vec_env(config), resume)
    use_bf16(model, config.bf16)
    marking = marking_env(model.get_env())
    if marking is not None:  # the marks are read by the live policy, as the player reads them by its network
        marking.attach(policy_scorer(model.policy))
    if model.device.type == "cuda":  # a few fixed batch shapes (rollout, minibatch, evaluation): tune each once
        th.backends.cudnn.benchmark = True
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    model.set_logger(run_logger(run_dir, None if resume is None else model.num_timesteps))
    clock = RunClock(started)
    resume_state = model.__dict__.pop("resume_state", None)
    if resume is not None:  # last: nothing may draw from the random states once they are restored
        saved = restore_state(model, resume_state)
        clock.before = logged_wall_seconds(run_dir / "logs" / "progress.csv") if saved is None else saved
    averager = weight_averaging(model, algo, config, run_dir, resume_state)
    keeper = RunKeeper(run_dir, config.checkpoint_every, clock, config.minutes, config.pause_at,
                       dict if averager is None else averager.checkpoint_state)  # fmt: skip
    drops = LearningRateDrops(config.learning_rate, parse_drops(config.lr_drops))
    evaluator = WinRateCallback(algo, config, run_dir, clock)
    # the averager before the keeper: a checkpoint keeps the average with the round just trained
    callbacks: list[BaseCallback] = [drops, *([] if averager is None else [averager]), keeper, evaluator]
    if algorithm.callbacks is not None:
        callbacks.extend(algorithm.callbacks(config))
    if config.progress_bar:  # the run's steps, as the log counts them (SB3's own bar restarts at 0 on a resume)
        callbacks.append(RunProgressBar())
    steps = planned_steps(model, config.steps)
    if steps != config.steps:
        print(f"--steps {config.steps:,} rounded up to {steps:,}: {algo} collects {steps_per_round(model):,} steps "
              f"at a time ({round_description(model)})", flush=True)  # fmt: skip
    remaining = steps - model.num_timesteps
    model.learn(remaining, callback=callbacks, reset_num_timesteps=resume is None)
    save_model(model, run_dir / "final_model.zip", algo, config, evaluator.evaluation_at(model.num_timesteps))
    return run_dir


def weight_averaging(model: BaseAlgorithm, algo: str, config: RunConfig, run_dir: Path,
                     resume_state: dict[str, Any] | None) -> WeightAveraging | None:  # fmt: skip
    """The callback that keeps the run's weight average (``--weight-average``; the checkpoint's where it kept one)
    and saves it as ``average_model``; None without averaging."""
    saved = (resume_state or {}).get("weight_average")
    average = resumed_average(model.policy, config.weight_average, saved)
    if average is None:
        return None
    updates_seen = int(model._n_updates) if saved is None else saved["updates_seen"]
    return WeightAveraging(
        average, updates_seen, run_dir, config.checkpoint_every, lambda path: save_model(model, path, algo, config),
        config.eval_every if config.eval_games else 0, lambda policy: evaluate_run_policy(policy, config),
    )


def use_bf16(model: BaseAlgorithm, asked: bool) -> None:
    """Run the policy's trunks and guess preference under bfloat16 autocast when asked (``--bf16``) and the device
    runs it natively (:func:`train.precision.native_bf16`); else float32, saying so when it was asked for."""
    enabled = asked and native_bf16(model.device)
    set_bf16(model.policy, enabled)
    if asked and not enabled:
        print(f"--bf16: {model.device} does not run bfloat16 natively here: the run stays in float32", flush=True)


def steps_per_round(model: BaseAlgorithm) -> int:
    """Environment steps the algorithm collects between two looks at its step budget: a PPO rollout, or
    a DQN training interval, on every board."""
    if isinstance(model, OnPolicyAlgorithm):
        return model.n_steps * model.n_envs
    return model.train_freq.frequency * model.n_envs


def round_description(model: BaseAlgorithm) -> str:
    """How :func:`steps_per_round` comes about, in the options' names."""
    if isinstance(model, OnPolicyAlgorithm):
        return f"n_steps {model.n_steps} * num_envs {model.n_envs}"
    return f"train_freq {model.train_freq.frequency} * num_envs {model.n_envs}"


def planned_steps(model: BaseAlgorithm, asked: int) -> int:
    """The total steps training will reach for ``asked``: whole rounds beyond the model's steps so far (none
    when it has reached ``asked`` already). SB3 stops only between rounds, so the bar's total is this."""
    done = model.num_timesteps
    if asked <= done:
        return done
    per_round = steps_per_round(model)
    return done + -(-(asked - done) // per_round) * per_round

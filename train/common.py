"""What the three training scripts share: the run configuration, its command line, the run directory and
the training loop with resume (the model files and the periodic evaluation: :mod:`train.evaluation`;
checkpoints and the limits that stop a run: :mod:`train.checkpoints`).

A run directory (``runs/<run_name>/``) holds ``config.json``, CSV (and TensorBoard) logs under ``logs/``,
the checkpoint a run resumes from under ``checkpoints/`` (:mod:`train.checkpoints`), and ``best_model.zip`` /
``final_model.zip``, each with its model card beside it (:class:`agents.model_card.ModelCard`, the
``.json`` that ``eval/`` loads; see :func:`train.evaluation.model_card`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm
from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from mine_env.engine.constants import FIRST_CLICK_RULES
from mine_env.engine.rewards import RewardConfig
from mine_env.engine.spec import BoardSpec
from train.checkpoints import RunKeeper, checkpoint_file, restore_state, run_logger, saved_replay_buffer
from train.evaluation import WinRateCallback, evaluate_win_rate, model_card, save_model  # noqa: F401  (their old home)
from train.networks import BoardFeatures
from train.vec_env import BatchVecEnv
from train.warm_start import distilled_policy, load_distilled, network_kwargs


def option(default: Any, help: str) -> Any:
    """A dataclass field with its documentation, which is also its ``--help`` text."""
    return field(default=default, metadata={"help": help})


@dataclass
class BoardOptions:
    """The board a run trains on: a preset, or rows/cols/mines, and the first-click rule (the first options of
    every training script, in this order)."""

    preset: str | None = option(
        "beginner", "Board preset (beginner, intermediate, expert); rows/cols/mines override it."
    )
    rows: int | None = option(None, "Board rows (overrides the preset).")
    cols: int | None = option(None, "Board columns (overrides the preset).")
    mines: int | None = option(None, "Number of mines (overrides the preset).")
    first_click: str = option("opening", f"First-click rule, one of {', '.join(FIRST_CLICK_RULES)}.")

    def board_spec(self) -> BoardSpec:
        """The board the run trains on (ValueError with a message if impossible)."""
        return BoardSpec.from_options(self.preset, self.rows, self.cols, self.mines, self.first_click)


@dataclass
class RunConfig(BoardOptions):
    """Settings every algorithm shares: board, rewards, network, seeding, evaluation and run files."""

    steps: int = option(
        1_000_000,
        "Total environment steps (summed over the boards) to train for, rounded up to whole rounds of collection "
        "(PPO: n_steps * num_envs, DQN: train_freq * num_envs), as the run says and its progress bar counts.",
    )
    seed: int = option(0, "Seed of everything random in training: torch, SB3, the boards, exploration.")
    num_envs: int = option(64, "Boards stepped together by the native batched engine.")
    max_steps: int | None = option(None, "Step limit per game (default 4 * rows * cols, as in the env).")
    reward_win: float = option(1.0, "Reward on the winning step.")
    reward_loss: float = option(-1.0, "Reward on the losing step.")
    reward_progress: float = option(0.01, "Shaping reward per newly revealed safe cell (0 = plain win/loss).")
    reward_invalid: float = option(0.0, "Reward for an invalid action (revealing a revealed cell).")
    learning_rate: float = option(3e-4, "Adam learning rate (constant).")
    channels: int = option(64, "Channels of every convolution of the trunk (the features per cell).")
    layers: int = option(4, "3x3 convolutions in the trunk; the receptive field is 2 * layers + 1 cells wide.")
    dilations: str = option(
        "",
        "A residual trunk instead (train.networks.BoardFeatures: it also sees the mines left and the edge): the "
        "dilation of each residual 3x3 convolution, e.g. 1,1,1,2,2,4,4,1,1; empty = the plain --layers trunk.",
    )
    pooled: str = option("", "Blocks of the residual trunk (indices into --dilations) that add board-wide pooling.")
    value_hidden: int = option(64, "Hidden units of the pooled value head (actor-critic algorithms only).")
    torch_threads: int = option(1, "Torch CPU threads (the development machine has 2 shared cores).")
    device: str = option(
        "cpu", "Torch device of the network: cpu, cuda, cuda:N or auto (CUDA when available); the boards step on "
        "the CPU either way.",
    )  # fmt: skip
    eval_games: int = option(200, "Games in the fixed evaluation set played during training (0 = none).")
    eval_seed: int = option(10_000_019, "Seed of the fixed evaluation set (kept apart from training seeds).")
    eval_every: int = option(100_000, "Environment steps between two evaluations (and best-model saves).")
    checkpoint_every: int = option(
        250_000, "Environment steps between two checkpoints (checkpoints/latest.zip, what --resume continues from; "
        "also written when the run ends or stops; 0 = none).",
    )  # fmt: skip
    minutes: float = option(0.0, "Stop after this many minutes of wall time, with a checkpoint (0 = no limit).")
    pause_at: int = option(
        0, "Stop once this many steps are trained, with a checkpoint, as if interrupted: --steps still sets the "
        "run's length and schedules, and --resume continues to it (0 = never).",
    )  # fmt: skip
    runs_dir: str = option("runs", "Folder holding the run directories.")
    run_name: str = option("", "Name of the run directory (default: algo-board-rule-seed-time).")
    progress_bar: bool = option(True, "Show a progress bar (tqdm/rich) while training.")
    init: str = option(
        "",
        "A distilled model .zip (minesweeper train distill) to start the network from; its trunk replaces the "
        "channels/layers one (see train.warm_start).",
    )

    def reward_config(self) -> RewardConfig:
        return RewardConfig(self.reward_win, self.reward_loss, self.reward_progress, self.reward_invalid)

    def validate(self) -> None:
        """ValueError for settings that cannot train, before anything slow starts."""
        self.board_spec()
        self.reward_config()
        at_least(self, 1, "steps", "num_envs", "channels", "layers", "value_hidden", "torch_threads", "eval_every")
        at_least(self, 0, "eval_games", "checkpoint_every", "seed", "eval_seed", "minutes", "pause_at")
        if self.max_steps is not None:
            at_least(self, 1, "max_steps")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate}")
        check_device(self.device)
        trunk_shape(self)
        if self.init and self.dilations:
            raise ValueError("--init brings its own trunk: leave --dilations (and --pooled) out")
        if self.init:
            distilled_policy(self.init, self.board_spec().mines)  # a clear error now, not after the env is built
        runs_dir = Path(self.runs_dir)
        if runs_dir.exists() and not runs_dir.is_dir():
            raise ValueError(f"runs_dir {runs_dir} is a file, not a folder")


def check_device(device: str) -> None:
    """ValueError for a device name torch does not know, or CUDA asked for where there is none."""
    if device == "auto":
        return
    try:
        kind = th.device(device).type
    except RuntimeError:
        raise ValueError(f"unknown device {device!r}; expected cpu, cuda, cuda:N or auto") from None
    if kind == "cuda" and not th.cuda.is_available():
        raise ValueError(
            f"--device {device}: CUDA is not available here (torch {th.__version__}, "
            f"{'no GPU found' if th.backends.cuda.is_built() else 'a CPU-only build'}); use --device cpu or auto"
        )


def trunk_shape(config: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The residual trunk's dilations and pooled blocks from their comma lists (ValueError if malformed)."""
    try:
        dilations = tuple(int(part) for part in config.dilations.split(",") if part.strip())
        pooled = tuple(int(part) for part in config.pooled.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"dilations and pooled are comma lists of integers, got {config.dilations!r} and "
                         f"{config.pooled!r}") from None  # fmt: skip
    if any(d < 1 for d in dilations):
        raise ValueError(f"every dilation must be at least 1, got {config.dilations!r}")
    if pooled and not dilations:
        raise ValueError("pooled blocks belong to the residual trunk: give --dilations too")
    if any(not 0 <= index < len(dilations) for index in pooled) or len(set(pooled)) != len(pooled):
        raise ValueError(f"pooled must be distinct indices of the {len(dilations)} dilations, got {config.pooled!r}")
    return dilations, pooled


def at_least(config: Any, low: int, *names: str) -> None:
    """ValueError naming the first of the config's fields ``names`` below ``low``."""
    for name in names:
        value = getattr(config, name)
        if value < low:
            raise ValueError(f"{name} must be at least {low}, got {value}")


def within(config: Any, low: float, high: float, *names: str) -> None:
    """ValueError naming the first of the config's fields ``names`` outside ``[low, high]``."""
    for name in names:
        value = getattr(config, name)
        if not low <= value <= high:
            raise ValueError(f"{name} must be between {low} and {high}, got {value}")


# ---------------------------------------------------------------------- command line
def add_config_arguments(parser: argparse.ArgumentParser, config_class: type) -> None:
    """One ``--field-name`` option per field of a config dataclass; options not given keep the config's value."""
    hints = typing.get_type_hints(config_class)
    for item in dataclasses.fields(config_class):
        flag = "--" + item.name.replace("_", "-")
        kind = hints[item.name]
        help_text = f"{item.metadata['help']} (default: {item.default})"
        if kind is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS, help=help_text)
        else:
            base = next(t for t in typing.get_args(kind) or (kind,) if t is not type(None))
            parser.add_argument(flag, type=base, default=argparse.SUPPRESS, help=help_text)


def add_resume_argument(parser: argparse.ArgumentParser) -> None:
    """``--resume RUN_DIR``: the stable-baselines3 scripts' way to continue a run."""
    parser.add_argument(
        "--resume", type=Path, metavar="RUN_DIR",
        help="continue a run from its checkpoint (a run directory, or a checkpoint .zip in one): the step counter, "
        "optimizer, schedules, replay buffer, random states, games in progress and learning curve carry on; its "
        "config.json is the base that the options given override (typically --steps or --minutes); the network "
        "and the algorithm's settings come from the checkpoint, except DQN's epsilon schedule, which follows the "
        "config",
    )  # fmt: skip


def config_from_args(config_class: type, args: argparse.Namespace, base: Any = None) -> Any:
    """The config the options describe, on top of ``base`` (a resumed run's config) or the defaults."""
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(config_class) if hasattr(args, f.name)}
    return dataclasses.replace(base or config_class(), **given)


@dataclass(frozen=True)
class Algorithm:
    """One training script's parts: its name, config class, SB3 model class and model builder."""

    name: str
    config_class: type[RunConfig]
    model_class: type[BaseAlgorithm]
    build: Callable[[Any, VecEnv], BaseAlgorithm]
    resumed: Callable[[Any, Any], None] | None = None
    """Called with (model, config) after loading a checkpoint, to apply settings SB3 measures against the
    total steps (which a resume with a larger ``--steps`` changes)."""
    callbacks: Callable[[Any], list[BaseCallback]] | None = None
    """The algorithm's own training callbacks for a config (beside the evaluation and checkpoints)."""


def script_main(algorithm: Algorithm, argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """``python -m train.ALGO [options]`` (and ``minesweeper train ALGO``): parse, train, print the run directory."""
    name = algorithm.name
    parser = argparse.ArgumentParser(
        prog=prog or f"python -m train.{name}", description=f"Train {name} on Minesweeper."
    )
    add_config_arguments(parser, algorithm.config_class)
    add_resume_argument(parser)
    args = parser.parse_args(argv)
    return report_run(parser, lambda: train_from_args(algorithm, args))


def report_run(parser: argparse.ArgumentParser, start: Callable[[], Path]) -> int:
    """Run ``start`` (a training script's run) and print its directory; a setting it refuses (ValueError, a
    missing file) exits with status 2 and the message, as argparse does for a bad option."""
    try:
        run_dir = start()
    except (ValueError, FileNotFoundError) as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    print(f"run directory: {run_dir}")
    return 0


def train_from_args(algorithm: Algorithm, args: argparse.Namespace) -> Path:
    """Build the config (from a resumed run's ``config.json`` when ``--resume``) and train."""
    resume: Path | None = args.resume
    base = None
    if resume is not None:
        resume = checkpoint_file(resume)
        # a pause ends the stretch it was given for; the resumed one goes on unless paused anew
        base = dataclasses.replace(run_config(algorithm, find_run_config(resume)), pause_at=0)
    return train(algorithm, config_from_args(algorithm.config_class, args, base), resume)


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


def policy_network_kwargs(config: RunConfig) -> dict[str, Any]:
    """The trunk's ``policy_kwargs`` of a run: the plain one, the residual one (``--dilations``), or the
    distilled model's with ``--init``."""
    dilations, pooled = trunk_shape(config)
    if dilations:
        kwargs = {"channels": config.channels, "dilations": dilations, "mines": config.board_spec().mines,
                  "pooled": pooled}  # fmt: skip
        return {"features_extractor_class": BoardFeatures, "features_extractor_kwargs": kwargs}
    return network_kwargs(config.init, config.channels, config.layers, config.board_spec().mines)


# ---------------------------------------------------------------------- training
def make_vec_env(config: RunConfig) -> VecEnv:
    """The training env: the batched engine as an SB3 VecEnv, with episode statistics."""
    keep_layouts = getattr(config, "mine_coef", 0.0) > 0  # only the mine head reads them
    return VecMonitor(BatchVecEnv(config.board_spec(), config.num_envs, config.reward_config(), config.max_steps,
                                  keep_layouts))  # fmt: skip


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
    rest of what it carries (``resume_state``) is for :func:`train.checkpoints.restore_state` once the run's
    logger is set."""
    if resume is None:
        model = algorithm.build(config, env)
        if config.init:
            load_distilled(model, config.init, config.board_spec().mines)
        return model, new_run_dir(algorithm.name, config)
    run_dir = find_run_config(resume).parent
    try:
        # force_reset off: the games in progress come back with the checkpoint (SB3 would start new ones)
        model = algorithm.model_class.load(resume, env=env, device=config.device, force_reset=False)
    except Exception as error:  # another algorithm's checkpoint, another board, a foreign file: SB3 fails in many ways
        raise ValueError(f"cannot resume {resume} as a {algorithm.name} run: {error}") from None
    if algorithm.resumed is not None:
        algorithm.resumed(model, config)
    buffer = saved_replay_buffer(resume)
    if isinstance(model, OffPolicyAlgorithm) and buffer is not None:
        model.load_replay_buffer(buffer)
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
    if model.device.type == "cuda":  # a few fixed batch shapes (rollout, minibatch, evaluation): tune each once
        th.backends.cudnn.benchmark = True
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    model.set_logger(run_logger(run_dir, None if resume is None else model.num_timesteps))
    if resume is not None:  # last: nothing may draw from the random states once they are restored
        restore_state(model, model.__dict__.pop("resume_state", None))
    keeper = RunKeeper(run_dir, config.checkpoint_every, config.minutes, config.pause_at, started)
    callbacks: list[BaseCallback] = [keeper, WinRateCallback(algo, config, run_dir)]
    if algorithm.callbacks is not None:
        callbacks.extend(algorithm.callbacks(config))
    steps = planned_steps(model, config.steps)
    if steps != config.steps:
        print(f"--steps {config.steps:,} rounded up to {steps:,}: {algo} collects {steps_per_round(model):,} steps "
              f"at a time ({round_description(model)})", flush=True)  # fmt: skip
    remaining = steps - model.num_timesteps
    model.learn(remaining, callback=callbacks, progress_bar=config.progress_bar, reset_num_timesteps=resume is None)
    save_model(model, run_dir / "final_model.zip", algo, config)
    return run_dir


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

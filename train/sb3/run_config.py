"""The settings the stable-baselines3 scripts (DQN, PPO, MaskablePPO) share: board, rewards, network, seeding,
evaluation and run files, and the trunk they ask for."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from mine_env.engine.rewards import RewardConfig
from train.distilled import distilled_network
from train.options import BoardOptions, at_least, check_device, option
from train.sb3.curriculum import check_transfer, is_distilled
from train.sb3.learning_rate import parse_drops
from train.sb3.networks import BoardFeatures
from train.sb3.warm_start import network_kwargs


@dataclass
class RunConfig(BoardOptions):
    """Settings every algorithm shares: board, rewards, network, seeding, evaluation and run files."""

    algo: ClassVar[str] = ""
    """The algorithm whose settings these are (a model of it can start a run of it: ``--init``)."""

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
    learning_rate: float = option(3e-4, "Adam learning rate (the whole run's, or until the first of --lr-drops).")
    lr_drops: str = option(
        "", "Lower learning rates from stated environment steps on, STEP:RATE pairs: 1000000:5e-5,2000000:2.5e-5 "
        "(train.sb3.learning_rate; empty = --learning-rate throughout).",
    )  # fmt: skip
    channels: int = option(64, "Channels of every convolution of the trunk (the features per cell).")
    layers: int = option(4, "3x3 convolutions in the trunk; the receptive field is 2 * layers + 1 cells wide.")
    dilations: str = option(
        "",
        "A residual trunk instead (train.sb3.networks.BoardFeatures: it also sees the mines left and the edge): the "
        "dilation of each residual 3x3 convolution, e.g. 1,1,1,2,2,4,4,1,1; empty = the plain --layers trunk.",
    )
    pooled: str = option("", "Blocks of the residual trunk (indices into --dilations) that add board-wide pooling.")
    value_hidden: int = option(64, "Hidden units of the pooled value head (actor-critic algorithms only).")
    bf16: bool = option(
        False,
        "Run the trunk's passes (and the guess preference's convolutions) under bfloat16 autocast where the device "
        "runs it natively (train.precision: CUDA, or a CPU with AMX or AVX512-BF16); the 1x1 heads and the losses "
        "stay float32.",
    )
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
    weight_average: float = option(
        0.0, "Keep a moving average of the policy's weights (train.sb3.averaging): after every round of "
        "collection and training it moves toward the live weights by 1 - DECAY (0.9: about the last 10 rounds); "
        "saved as average_model (.zip, .pt, card) at every checkpoint and at the end; 0 = none.",
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
        "A model to start the network from: a distilled one (minesweeper train distill), whose trunk replaces the "
        "channels/layers one (train.sb3.warm_start), or one of another run of this algorithm, e.g. on a smaller "
        "board, whose whole network is copied (a curriculum: train.sb3.curriculum).",
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
        if not 0.0 <= self.weight_average < 1.0:
            raise ValueError(f"weight_average is a decay in [0, 1) (0 = no average), got {self.weight_average}")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate}")
        parse_drops(self.lr_drops)
        check_device(self.device)
        trunk_shape(self)
        if self.init and is_distilled(self.init):
            if self.dilations:
                raise ValueError("--init with a distilled model brings its trunk: leave --dilations (and --pooled) out")
            distilled_network(self.init, self.board_spec().mines)  # a clear error now, not after the env is built
        elif self.init:
            check_transfer(self.algo, self)
        runs_dir = Path(self.runs_dir)
        if runs_dir.exists() and not runs_dir.is_dir():
            raise ValueError(f"runs_dir {runs_dir} is a file, not a folder")


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


def policy_network_kwargs(config: RunConfig) -> dict[str, Any]:
    """The trunk's ``policy_kwargs`` of a run: the plain one, the residual one (``--dilations``), or the
    distilled model's with ``--init`` of one."""
    dilations, pooled = trunk_shape(config)
    if dilations:
        kwargs = {"channels": config.channels, "dilations": dilations, "mines": config.board_spec().mines,
                  "pooled": pooled}  # fmt: skip
        return {"features_extractor_class": BoardFeatures, "features_extractor_kwargs": kwargs}
    distilled = config.init if config.init and is_distilled(config.init) else ""
    return network_kwargs(distilled, config.channels, config.layers, config.board_spec().mines)

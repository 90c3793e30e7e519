"""The settings of a streamed distillation run (:mod:`train.distill.stream.run`), checked before anything starts."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

import torch as th

from agents.marks import sure_logit
from agents.networks.trunks import TAPERED_NORMS
from train.distill.network import pooled_list, torch_device
from train.distill.stream.levers import TARGETS, mine_range_bounds
from train.options import BoardOptions, at_least, option
from train.weight_average import check_decay

TRUNKS = ("dilated", "iterated", "tapered")
"""The trunks a run can train side by side."""


@dataclass
class StreamConfig(BoardOptions):
    """Settings of a streamed distillation run (``--option-name`` on the command line)."""

    seed: int = option(0, "Seed of everything random: torch, the workers' boards, the minibatches.")
    trunks: str = option("dilated", f"Trunks trained side by side on the same minibatches: {', '.join(TRUNKS)}.")
    channels: int = option(128, "Channels of the dilated trunk.")
    dilations: str = option("1,1,1,2,2,4,4,1,1", "Dilations of the dilated trunk's residual layers.")
    pooled: str = option("4,7", "Blocks of the dilated trunk with a global-pooling bias.")
    iterated_channels: int = option(96, "Channels of the iterated trunk.")
    passes: int = option(12, "Passes of the iterated trunk's block when it plays.")
    loss_passes: str = option("6,9,12", "Pass counts at which the iterated trunk's loss is taken (averaged).")
    state_norm: bool = option(False, "Normalise the iterated trunk's state after every pass (each board's own "
                              "statistics), so that its scale cannot grow with the passes.")
    progressive: float = option(0.0, "Share of the iterated trunk's loss taken after a random number of passes "
                                "without gradient and then a random number with it (at most the largest loss pass "
                                "count in all), so that more passes keep improving its answer; 0: off, below 1.")
    widths: str = option("64,32,16,8,4,2", "Channels of the tapered trunk, from its first block to its last.")
    tapered_norm: str = option("board", f"The tapered trunk's norm: {', '.join(TAPERED_NORMS)} (each board's own "
                               "statistics, or none: every cell read from its neighbourhood and the density plane).")
    minutes: float = option(6.0, "Wall-clock minutes of training, the schedule's length (resumes included).")
    producers: int = option(8, "Worker processes playing the oracle's games and labelling them.")
    producer_boards: int = option(64, "Boards each worker plays together.")
    chunk: int = option(2048, "Positions a worker sends at a time.")
    explore: float = option(0.02, "Chance a move of the oracle's or the learner's games is a uniform hidden cell.")
    learner_boards: int = option(1024, "Boards the first trunk plays itself (0: none).")
    learner_every: int = option(4, "Training steps between two moves of the learner's boards.")
    learner_workers: int = option(2, "Processes labelling the learner's positions.")
    learner_rescue: bool = option(False, "Replace a move of the learner's onto a mine by its best safe cell (read "
                                  "from the layout), so its games run on through the middle and the endgame.")
    buffer: int = option(2_000_000, "Positions kept on the device; minibatches are drawn from them.")
    reuse: float = option(2.0, "Minibatch samples per position taken from the stream (the stream is throttled).")
    batch_size: int = option(1024, "Minibatch size.")
    learning_rate: float = option(1e-3, "Adam learning rate at the peak; cosine decay to 5%% of it.")
    warmup_steps: int = option(300, "Steps of linear warm-up of the learning rate.")
    revealed_weight: float = option(0.1, "Weight of the loss teaching that a revealed cell is never a move.")
    choice_weight: float = option(0.5, "Weight of the loss on the softmax mass put on the oracle's safest cells.")
    log_odds_weight: float = option(0.0, "Weight of the squared error of the mine log-odds against the oracle's on "
                                    "the hidden cells of an uncertain chance (train.distill.losses.log_odds_loss): "
                                    "the small chances' precision, which the cross-entropy weighs by their size.")
    per_position: bool = option(False, "Average the cell terms within each position first, so that every position "
                                "counts alike whatever its hidden cells (by default a position counts by them, the "
                                "endgame least): train.distill.stream.levers.lever_loss.")
    dataset: str = option("", "A dataset .npz (train.distill's) to fill the ring with before the stream flows.")
    init: str = option("", "A distilled model (a shipped name, a card's stem or its .pt) the dilated trunk "
                            "starts from (grown when it is smaller).")
    mark_above: float = option(0.0, "Train to play with marks (agents.marks): the certain mines of the positions "
                               "shown as flags, the learner marking its cells above this mine chance; 0: none.")
    mine_range: str = option("", "LO,HI: each oracle worker's game holds a mine count drawn uniformly in [LO, HI], "
                             "read by the network through its density plane (train.distill.stream.levers); empty: the "
                             "board's own count.")
    scatter: float = option(0.0, "Share of the workers' positions that are scattered boards: a fresh layout with "
                            "5-50%% of its safe cells opened (train.distill.stream.scattered); 0: only the oracle's "
                            "games.")
    targets: str = option("exact", f"Target of the loss on a hidden cell: {', '.join(TARGETS)} (the oracle's "
                          "chance, the layout's true mine, the mean of both losses).")
    checkpoint_minutes: float = option(2.0, "Minutes between checkpoints.")
    ema: float = option(0.0, "Keep an exponential moving average of each trunk's weights with this decay per step "
                        "(0.999: about the last thousand steps), judged beside it and saved as RUN_DIR/<trunk>_ema.pt "
                        "(train.weight_average); 0: none.")
    bf16: bool = option(True, "bfloat16 autocast where the device runs it natively: CUDA, or a CPU with AMX or "
                        "AVX512-BF16 (train.precision); float32 elsewhere.")
    compile: bool = option(False, "torch.compile the trunks' passes, one graph per batch size the run uses (its first "
                           "steps wait for them; on a CPU it needs a C++ compiler).")
    device: str = option("cuda", "Torch device: cuda, cpu or auto.")
    torch_threads: int = option(1, "Torch CPU threads of the training process (the workers use none).")
    runs_dir: str = option("runs", "Folder holding the run directories.")
    run_name: str = option("", "Name of the run directory (default: distill-stream-board-seed-time).")

    def trunk_list(self) -> tuple[str, ...]:
        names = tuple(part.strip() for part in self.trunks.split(",") if part.strip())
        if not names or any(name not in TRUNKS for name in names) or len(set(names)) != len(names):
            raise ValueError(f"trunks must be distinct names among {', '.join(TRUNKS)}, got {self.trunks!r}")
        return names

    def width_list(self) -> tuple[int, ...]:
        try:
            values = tuple(int(part) for part in self.widths.split(","))
        except ValueError:
            raise ValueError(f"widths must be integers separated by commas, got {self.widths!r}") from None
        if len(values) < 2 or min(values) < 1:
            raise ValueError(f"widths must be two or more positive channel counts, got {self.widths!r}")
        return values

    def loss_pass_list(self) -> tuple[int, ...]:
        try:
            values = tuple(sorted(int(part) for part in self.loss_passes.split(",")))
        except ValueError:
            raise ValueError(f"loss_passes must be integers separated by commas, got {self.loss_passes!r}") from None
        if not values or values[0] < 1:
            raise ValueError(f"every loss pass count must be at least 1, got {self.loss_passes!r}")
        return values

    def mine_bounds(self) -> tuple[int, int] | None:
        """``--mine-range`` as (LO, HI), or None when off."""
        return mine_range_bounds(self.mine_range, self.board_spec())

    def validate(self) -> None:
        self.board_spec()
        self.trunk_list()
        self.loss_pass_list()
        self.width_list()
        pooled_list(self.pooled, self.dilations)
        at_least(self, 1, "torch_threads", "channels", "iterated_channels", "passes", "producer_boards", "chunk",
                 "learner_every", "learner_workers", "buffer", "batch_size")  # fmt: skip
        at_least(self, 0, "seed", "producers", "learner_boards", "warmup_steps")
        if not self.producers and not self.dataset:
            raise ValueError("no positions to start on: give --producers or --dataset")
        if self.mark_above:
            sure_logit(self.mark_above)
        self.mine_bounds()
        if self.tapered_norm not in TAPERED_NORMS:
            raise ValueError(f"tapered_norm must be one of {', '.join(TAPERED_NORMS)}, got {self.tapered_norm!r}")
        if self.targets not in TARGETS:
            raise ValueError(f"targets must be one of {', '.join(TARGETS)}, got {self.targets!r}")
        if self.init and "dilated" not in self.trunk_list():
            raise ValueError("--init starts the dilated trunk: add dilated to --trunks")
        if not 0.0 <= self.progressive < 1.0:  # the stem learns from the rest of the loss only
            raise ValueError(f"progressive is a share of the loss, from 0 up to 1 (excluded), got {self.progressive}")
        if not self.log_odds_weight >= 0.0:
            raise ValueError(f"log_odds_weight must be 0 or more, got {self.log_odds_weight}")
        check_decay(self.ema)
        if not 0.0 <= self.scatter <= 1.0:
            raise ValueError(f"scatter is a share of the positions, from 0 to 1, got {self.scatter}")
        if not self.minutes > 0 or not self.checkpoint_minutes > 0 or not self.reuse > 0:
            raise ValueError("minutes, checkpoint_minutes and reuse must be positive")
        if self.compile and torch_device(self.device).type == "cpu" and not shutil.which(os.environ.get("CXX", "g++")):
            raise ValueError("--compile on the CPU needs a C++ compiler (g++, or the one CXX names): install one "
                             "or drop --compile")
        if self.device.startswith("cuda") and not th.cuda.is_available():
            raise ValueError("--device cuda: no CUDA device is available here; use --device cpu")

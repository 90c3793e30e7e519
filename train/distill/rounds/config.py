"""The settings of a distillation run (:mod:`train.distill`): one documented field per ``--option-name``, and the
checks that refuse a run that cannot train before anything slow starts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from backends import check_backend
from train.distill.data import POLICIES, Dataset
from train.distill.network import dilation_list, pooled_list
from train.options import BoardOptions, at_least, option

GUESS_TARGETS = ("safest", "solver")
"""What the choice loss teaches where no cell is certainly safe (``--guess-target``)."""


@dataclass
class DistillConfig(BoardOptions):
    """Settings of a distillation run (``--option-name`` on the command line)."""

    seed: int = option(0, "Seed of everything random: torch, the boards, the policy mix, the minibatches.")
    channels: int = option(48, "Channels of every convolution (the features per cell).")
    dilations: str = option("1,1,1,2,2,1,1", "Dilation of each residual 3x3 layer; receptive field 3 + 2 * sum.")
    pooled: str = option("", "Blocks (0-based indices into --dilations, comma-separated) that add a global-pooling "
                              "bias: board-wide means, maxima and sums of the features, for the endgame's count.")
    refine: int = option(0, "Passes of a count refinement after the trunk (one set of weights): each drafts the "
                              "mine chances, measures them against the numbers and the mines left, and corrects.")
    rounds: int = option(6, "Rounds of collection then training (DAgger iterations).")
    positions: int = option(50_000, "Labelled positions collected per round (0: train on --dataset alone).")
    boards: int = option(256, "Boards played together while collecting.")
    shares: str = option("0.3,0.6,0.1", f"Chance a collected game is played by each of {', '.join(POLICIES)}.")
    explore: float = option(0.05, "Chance any collected move is a uniform hidden cell instead.")
    samples: int = option(400_000, "Training samples (minibatch rows) per round.")
    batch_size: int = option(256, "Minibatch size.")
    learning_rate: float = option(1e-3, "Adam learning rate at the start; cosine decay to 5%% of it over the run.")
    revealed_weight: float = option(0.1, "Weight of the loss teaching that a revealed cell is never a move.")
    choice_weight: float = option(0.0, "Weight of the loss teaching the choice itself: the log of the softmax "
                                       "mass the network puts on the oracle's safest cells.")
    count_weight: float = option(0.0, "Weight of the loss teaching the global count: the squared difference "
                                      "between the network's and the oracle's summed mine chances over the "
                                      "hidden cells (the mines left), which cell-wise errors hide.")
    augment: bool = option(False, "Show each minibatch in a random one of the 8 symmetries of the board (mirror "
                                  "images, quarter turns): the same labels, eight views of every position.")
    late_share: float = option(0.0, "Share of every minibatch drawn from the late positions (fewer than a tenth "
                                    "of the safe cells still hidden), where the networks miss most safe cells; "
                                    "0: every position alike.")
    guess_share: float = option(0.0, "Share of every minibatch drawn from the positions with no certainly safe "
                                     "cell (true guesses: about 0.5%% of a collection), where only the ranking of "
                                     "the risky cells counts; 0: every position alike.")
    guess_target: str = option("safest", "What --choice-weight teaches in a position with no certainly safe cell: "
                                         "safest (the cells of least mine chance: solver-fast's play) or solver "
                                         "(the default solver's guess, which values what a cell tells).")
    solver_games: int = option(0, "Games of the default solver played each round whose guess positions, with its "
                                  "guesses, join the dataset (--guess-target solver): a collection holds few.")
    crop_rows: int = option(0, "Rows of the random training windows (0: the whole board).")
    crop_cols: int = option(0, "Columns of the random training windows (0: the whole board).")
    dataset: str = option("", "A dataset .npz to start from (its positions are trained on, then grown).")
    save_dataset: str = option("", "Write every labelled position here (.npz) after each round.")
    label_workers: int = option(2, "Processes labelling positions (--backend ray: CPUs of a private Ray instance).")
    backend: str = option("local", "Where positions are labelled: local (processes) or ray (Ray tasks); same labels.")
    address: str | None = option(None, "host:port of a Ray cluster's head to label on (with --backend ray).")
    label_chunk: int = option(0, "Positions per labelling chunk, one task each (0: a step's boards split evenly "
                              "over the label workers or the cluster's CPUs, at least 64 positions a chunk).")
    init: str = option("", "A distilled model (a shipped name, a card's stem or its .pt) whose weights this "
                            "run starts from.")
    eval_games: int = option(500, "Games of the fixed evaluation set after each round (0 = none).")
    eval_seed: int = option(10_000_019, "Seed of the fixed evaluation set (kept apart from training seeds).")
    torch_threads: int = option(1, "Torch CPU threads.")
    device: str = option("cpu", "Torch device: cpu, cuda or auto.")
    runs_dir: str = option("runs", "Folder holding the run directories.")
    run_name: str = option("", "Name of the run directory (default: distill-board-rule-seed-time).")
    progress_bar: bool = option(True, "Show progress bars while labelling and training.")

    def dilation_list(self) -> tuple[int, ...]:
        """The dilations of ``--dilations``."""
        return dilation_list(self.dilations)

    def pooled_list(self) -> tuple[int, ...]:
        """The blocks with a global-pooling bias (``--pooled``), checked against the blocks there are."""
        return pooled_list(self.pooled, self.dilations)

    def receptive_radius(self) -> int:
        """How far from a cell the network sees: 1 for the first 3x3 convolution, plus each residual layer's
        dilation (a window of the board is given this much of the board around it)."""
        return 1 + sum(self.dilation_list())

    def share_values(self) -> tuple[float, float, float]:
        try:
            values = tuple(float(part) for part in self.shares.split(","))
        except ValueError:
            values = ()
        if len(values) != len(POLICIES) or min(values) < 0 or sum(values) <= 0:
            raise ValueError(f"shares must be {len(POLICIES)} non-negative numbers with a positive sum "
                             f"({', '.join(POLICIES)}), got {self.shares!r}")  # fmt: skip
        return values  # type: ignore[return-value]

    def validate(self) -> None:
        """ValueError (or FileNotFoundError) for settings that cannot train, before anything slow starts."""
        spec = self.board_spec()
        self.dilation_list()
        self.pooled_list()
        self.share_values()
        at_least(self, 1, "channels", "rounds", "boards", "batch_size", "label_workers", "torch_threads")
        at_least(self, 0, "positions", "samples", "eval_games", "seed", "crop_rows", "crop_cols",
                 "label_chunk", "solver_games")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate}")
        if not self.choice_weight >= 0:
            raise ValueError(f"choice_weight must be 0 or more, got {self.choice_weight}")
        if not self.count_weight >= 0:
            raise ValueError(f"count_weight must be 0 or more, got {self.count_weight}")
        if not 0 <= self.late_share <= 1:
            raise ValueError(f"late_share must be between 0 and 1, got {self.late_share}")
        if not 0 <= self.guess_share <= 1 - self.late_share:
            raise ValueError(f"guess_share must be between 0 and 1 - late_share ({1 - self.late_share:g}), "
                             f"got {self.guess_share}")  # fmt: skip
        if self.guess_target not in GUESS_TARGETS:
            raise ValueError(f"unknown guess_target {self.guess_target!r}; expected one of {', '.join(GUESS_TARGETS)}")
        if self.solver_games and self.guess_target != "solver":
            raise ValueError("--solver-games collects the solver's guesses to teach them: "
                             "it needs --guess-target solver")
        if self.guess_target == "solver" and not self.choice_weight:
            raise ValueError("--guess-target solver is taught by the choice loss: give --choice-weight above 0")
        if not 0 <= self.explore <= 1:
            raise ValueError(f"explore must be between 0 and 1, got {self.explore}")
        if not self.refine >= 0:
            raise ValueError(f"refine must be 0 or more passes, got {self.refine}")
        if self.refine and (self.crop_rows or self.crop_cols):
            raise ValueError("--refine and --crop-rows/--crop-cols do not go together: the refinement checks the "
                             "draft against the mines left on the whole board, which a window does not know")
        if self.pooled_list() and (self.crop_rows or self.crop_cols):
            raise ValueError("--pooled and --crop-rows/--crop-cols do not go together: global pooling over a window "
                             "would not see the board's counts; train a pooled network on whole boards")  # fmt: skip
        if self.crop_rows > spec.rows or self.crop_cols > spec.cols:
            raise ValueError(f"crop {self.crop_rows}x{self.crop_cols} is larger than the {spec.rows}x{spec.cols} board")
        if self.positions == 0 and not self.dataset:
            raise ValueError("positions is 0 and no --dataset is given: there is nothing to train on")
        if self.dataset and not Path(self.dataset).is_file():
            Dataset.load(self.dataset)  # raises the missing-dataset error
        check_backend(self.backend, self.label_workers, self.address)  # last: it may wait for a Ray head

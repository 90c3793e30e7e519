"""Oracle distillation: a fully convolutional network learns every hidden cell's exact mine probability.

The network (:class:`train.networks.BoardFeatures` and a 1x1 head) outputs one *safety logit* per cell,
``s = logit(1 - p)``, trained with the binary cross-entropy against the oracle's probability ``p`` over the
hidden cells (:func:`distill_loss`); on revealed cells it learns a very low score, as a move that changes
nothing. Its greedy policy plays the hidden cell of least predicted mine probability. It is stored as a
MaskablePPO model whose action logits are the safety logits, with its model card (``algo: "distill"``), so
``minesweeper eval --model`` plays it and ``--init`` starts PPO, MaskablePPO or DQN from it
(:mod:`train.warm_start`).

Training alternates, for ``rounds`` rounds, between collecting ``positions`` labelled positions
(:mod:`train.distill_data`: the oracle, the network itself from the second round on, and random play) and
``samples`` minibatch samples drawn from every position so far. ``--crop-rows/--crop-cols`` train on random
windows of the board (same weights: the network is fully convolutional) to spend the CPU on more positions
of a board much wider than the network's view: the loss covers the window, and the network sees it with a
ring of the board around it as wide as its receptive radius (:meth:`DistillConfig.receptive_radius`), so no
cell of the loss sees a window side as if it were the board's edge. ``--late-share`` draws part of every
minibatch from the endgame positions, where the networks miss most safe cells, ``--guess-share`` from the
positions with no safe cell, where only the ranking of the risky cells counts; ``--pooled`` gives chosen blocks
a global-pooling bias (:class:`train.networks.GlobalBias`) for the board-wide counts the endgame turns on, and
``--refine`` passes that check a draft of the chances against the numbers and the mines left
(:class:`train.networks.CountRefinement`). ``--guess-target solver`` has the choice loss teach the default
solver's guess, not the safest cells, where no cell is certainly safe (:mod:`train.distill_guesses`), and
``--solver-games`` adds the positions where the solver guesses in that many of its own games each round.

Run: ``python -m train.distill --preset beginner --rounds 6 --positions 80000 --samples 400000`` or
``minesweeper train distill ...``; every option is a field of :class:`DistillConfig`.
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
from typing import NamedTuple

import numpy as np
import torch as th
import torch.nn.functional as F
from sb3_contrib import MaskablePPO
from tqdm import tqdm

from backends import check_backend
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from mine_env.engine.symmetry import SYMMETRIES
from train.common import (
    BoardOptions,
    add_config_arguments,
    add_resume_argument,
    at_least,
    config_from_args,
    evaluate_win_rate,
    option,
    report_run,
    save_model,
)
from train.distill_data import POLICIES, Dataset, PositionCollector, Scorer
from train.distill_guesses import NO_CHOICE, SAFEST_TOLERANCE, GuessPositions, guess_report, harvest_guesses
from train.distill_labels import Labeller
from train.grow import grow
from train.networks import BoardFeatures, MaskableConvActorCriticPolicy, remaining_density
from train.vec_env import BatchVecEnv
from train.warm_start import distilled_policy


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
    init: str = option("", "A distilled model .zip whose weights this run starts from.")
    eval_games: int = option(500, "Games of the fixed evaluation set after each round (0 = none).")
    eval_seed: int = option(10_000_019, "Seed of the fixed evaluation set (kept apart from training seeds).")
    torch_threads: int = option(1, "Torch CPU threads.")
    device: str = option("cpu", "Torch device: cpu, cuda or auto.")
    runs_dir: str = option("runs", "Folder holding the run directories.")
    run_name: str = option("", "Name of the run directory (default: distill-board-rule-seed-time).")
    progress_bar: bool = option(True, "Show progress bars while labelling and training.")

    def dilation_list(self) -> tuple[int, ...]:
        try:
            values = tuple(int(part) for part in self.dilations.split(","))
        except ValueError:
            raise ValueError(f"dilations must be integers separated by commas, got {self.dilations!r}") from None
        if not values or min(values) < 1:
            raise ValueError(f"every dilation must be at least 1, got {self.dilations!r}")
        return values

    def pooled_list(self) -> tuple[int, ...]:
        """The blocks with a global-pooling bias (``--pooled``), checked against the blocks there are."""
        try:
            values = tuple(int(part) for part in self.pooled.split(",") if part.strip())
        except ValueError:
            raise ValueError(f"pooled must be block indices separated by commas, got {self.pooled!r}") from None
        blocks = len(self.dilation_list())
        if any(not 0 <= value < blocks for value in values) or len(set(values)) != len(values):
            raise ValueError(f"pooled must name distinct blocks 0 to {blocks - 1} (one per dilation), "
                             f"got {self.pooled!r}")  # fmt: skip
        return values

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


def new_model(config: DistillConfig, spec: BoardSpec) -> MaskablePPO:
    """A MaskablePPO model on ``spec`` whose actor is the distillation network (its value head stays unused)."""
    env = BatchVecEnv(spec, 1)
    policy_kwargs = {
        "features_extractor_class": BoardFeatures,
        "features_extractor_kwargs": {"channels": config.channels, "dilations": config.dilation_list(),
                                      "mines": spec.mines, "pooled": config.pooled_list(), "refine": config.refine},
    }  # fmt: skip
    return MaskablePPO(MaskableConvActorCriticPolicy, env, n_steps=8, batch_size=8, seed=config.seed,
                       device=config.device, policy_kwargs=policy_kwargs)  # fmt: skip


def start_from(policy: MaskableConvActorCriticPolicy, init: str, mines: int) -> None:
    """Load the distilled model ``init`` into ``policy``: as it is when the networks have the same shape (the number
    of refinement passes may differ: they share their weights), else grown into the wider, deeper, pooling or
    refining one (:mod:`train.grow`: the same logits at the start)."""
    source = distilled_policy(init, mines)
    small, large = source.features_extractor, policy.features_extractor
    if shape(small) == shape(large):
        policy.load_state_dict(source.state_dict(), strict=False)
        return
    try:
        grow(small, source.mlp_extractor.policy_head, large, policy.mlp_extractor.policy_head)
    except ValueError as error:
        raise ValueError(f"--init {init}: {error}") from None


def shape(extractor: BoardFeatures) -> tuple[int, tuple[int, ...], tuple[int, ...], bool]:
    """What must match for one network's weights to load into another as they are."""
    return extractor.features_dim, extractor.dilations, extractor.pooled, extractor.refinement is not None


def safety_logits(policy: MaskableConvActorCriticPolicy, planes: th.Tensor) -> th.Tensor:
    """The network's safety logit per cell (N, H * W) from its input planes."""
    return policy.mlp_extractor.policy_head(policy.features_extractor.trunk(planes))


GUESS_TARGETS = ("safest", "solver")
"""What the choice loss teaches where no cell is certainly safe (``--guess-target``)."""

FocusGroup = tuple[float, np.ndarray]
"""A share of every minibatch and the dataset indices it is drawn from (``--late-share``, ``--guess-share``)."""

def cosine_rate(start: float, step: int, total: int) -> float:
    """The learning rate after ``step`` of ``total`` steps: a cosine decay from ``start`` to 5% of it."""
    progress = min(1.0, step / max(total, 1))
    return start * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * progress)))


def adam_step(optimizer: th.optim.Optimizer, loss: th.Tensor, learning_rate: float) -> None:
    """One optimiser step on ``loss`` at ``learning_rate`` (the schedule's value now)."""
    for group in optimizer.param_groups:
        group["lr"] = learning_rate
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def distill_loss(logits: th.Tensor, grids: th.Tensor, labels: th.Tensor, weight: th.Tensor, revealed_weight: float,
                 choice_weight: float = 0.0, count_weight: float = 0.0,
                 targets: th.Tensor | None = None) -> th.Tensor:  # fmt: skip
    """Cross-entropy of the safety logits against ``1 - p`` over the hidden cells with ``weight`` 1, plus
    ``revealed_weight`` times that of a zero safety target over the revealed ones, plus ``choice_weight``
    times :func:`choice_loss` (towards ``targets`` where given) and ``count_weight`` times :func:`count_loss`
    (all (N, H * W))."""
    hidden = (grids == HIDDEN).float() * weight
    revealed = (grids != HIDDEN).float() * weight
    hidden_loss = F.binary_cross_entropy_with_logits(logits, 1.0 - labels, reduction="none")
    revealed_loss = F.binary_cross_entropy_with_logits(logits, th.zeros_like(logits), reduction="none")
    loss = (hidden_loss * hidden).sum() / hidden.sum().clamp(min=1.0)
    loss = loss + revealed_weight * (revealed_loss * revealed).sum() / revealed.sum().clamp(min=1.0)
    if choice_weight:
        loss = loss + choice_weight * choice_loss(logits, labels, hidden > 0, targets)
    if count_weight:
        loss = loss + count_weight * count_loss(logits, labels, hidden)
    return loss


def count_loss(logits: th.Tensor, labels: th.Tensor, hidden: th.Tensor) -> th.Tensor:
    """The squared difference between the network's expected number of mines among the ``hidden`` cells (the sum
    of its mine chances ``sigmoid(-logit)``) and the oracle's, averaged over the positions.

    Over a whole board the oracle's sum is the number of mines left, whatever the position (expectation is
    linear); over a training window it is the window's expected count. A network whose cell-wise chances are each
    a little off can be a mine or more off in total, and in the endgame that total decides the cells no number
    touches (the mines the frontier does not hold are spread over them): this term asks for it directly.
    """
    error = ((th.sigmoid(-logits) - labels) * hidden).sum(dim=1)
    return (error**2).mean()


def choice_loss(logits: th.Tensor, labels: th.Tensor, candidates: th.Tensor,
                targets: th.Tensor | None = None) -> th.Tensor:  # fmt: skip
    """Minus the log of the softmax mass (over the ``candidates``) on the oracle's safest candidates, averaged
    over the positions with a candidate; in a position where ``targets`` (bool, like ``candidates``) marks a
    candidate, on those cells instead (the default solver's guess: ``--guess-target solver``).

    The cross-entropy above weighs every hidden cell alike, while the policy only plays the top one: this term
    trains the decision itself, and it does not care how the mass is shared among equally safe cells (a
    position with ten certainly safe cells is solved by any of them).
    """
    masked = logits.masked_fill(~candidates, float("-inf"))
    least = labels.masked_fill(~candidates, float("inf")).min(dim=1, keepdim=True).values
    safest = candidates & (labels <= least + SAFEST_TOLERANCE)
    if targets is not None:
        targets = targets & candidates
        safest = th.where(targets.any(dim=1, keepdim=True), targets, safest)
    rows = candidates.any(dim=1)
    if not rows.any():
        return logits.sum() * 0.0
    mass = th.logsumexp(masked.masked_fill(~safest, float("-inf"))[rows], dim=1)
    return (th.logsumexp(masked[rows], dim=1) - mass).mean()


class Minibatch(NamedTuple):
    """One minibatch of :meth:`Trainer.batch`."""

    grids: th.Tensor
    labels: th.Tensor
    weight: th.Tensor
    """1 where the loss counts (a crop's window), 0 on the context around it."""
    density: th.Tensor
    """The whole board's remaining-mine density of each position (a window does not hold the count)."""
    targets: th.Tensor | None
    """The default solver's guess where the choice loss teaches it; None unless ``--guess-target solver``."""


class Trainer:
    """Minibatches from the dataset (whole boards or random windows) and the optimiser's steps."""

    def __init__(self, config: DistillConfig, policy: MaskableConvActorCriticPolicy, total_steps: int) -> None:
        self.config = config
        self.policy = policy
        self.rng = np.random.default_rng(config.seed + 1)
        params = list(policy.features_extractor.parameters()) + list(policy.mlp_extractor.policy_head.parameters())
        self.optimizer = th.optim.Adam(params, lr=config.learning_rate)
        self.total_steps = max(1, total_steps)
        self.step_count = 0

    def learning_rate(self) -> float:
        return cosine_rate(self.config.learning_rate, self.step_count, self.total_steps)

    def batch(self, dataset: Dataset, groups: Sequence[FocusGroup] = ()) -> Minibatch:
        """One minibatch; with a crop, the window (weight 1) inside the part of the board the network needs to
        see it (weight 0). ``groups``: the :meth:`focus_groups` that part of the minibatch is drawn from."""
        index = self.positions(len(dataset), groups)
        grids = th.as_tensor(dataset.grids[index])
        labels = th.as_tensor(dataset.labels[index].astype(np.float32))
        density = remaining_density(grids, dataset.spec.mines)
        weight = th.ones_like(labels)
        targets = self.choice_targets(dataset, index)
        rows, cols = dataset.spec.rows, dataset.spec.cols
        h, w = self.config.crop_rows or rows, self.config.crop_cols or cols
        if (h, w) != (rows, cols):
            top, left = int(self.rng.integers(rows - h + 1)), int(self.rng.integers(cols - w + 1))
            reach = self.config.receptive_radius()
            r0, c0 = max(top - reach, 0), max(left - reach, 0)
            seen_rows, seen_cols = slice(r0, min(top + h + reach, rows)), slice(c0, min(left + w + reach, cols))
            grids, labels = grids[:, seen_rows, seen_cols], labels[:, seen_rows, seen_cols]
            targets = None if targets is None else targets[:, seen_rows, seen_cols]
            weight = th.zeros_like(labels)
            weight[:, top - r0 : top - r0 + h, left - c0 : left - c0 + w] = 1.0
        if self.config.augment:
            index = int(self.rng.integers(len(SYMMETRIES)))
            grids, labels, weight = (self.symmetry(tensor, index) for tensor in (grids, labels, weight))
            targets = None if targets is None else self.symmetry(targets, index)
        return Minibatch(grids, labels, weight, density, targets)

    def choice_targets(self, dataset: Dataset, index: np.ndarray) -> th.Tensor | None:
        """(N, rows, cols) bool: the default solver's guess in the positions ``index`` that have one recorded,
        what the choice loss teaches there; None unless ``--guess-target solver``."""
        if self.config.guess_target != "solver":
            return None
        rows, cols = dataset.spec.rows, dataset.spec.cols
        targets = np.zeros((len(index), rows * cols), np.bool_)
        choices = dataset.choices[index].astype(np.int64)
        has = np.flatnonzero(choices != NO_CHOICE)
        targets[has, choices[has]] = True
        return th.as_tensor(targets.reshape(len(index), rows, cols))

    def focus_groups(self, dataset: Dataset) -> list[FocusGroup]:
        """The (share, indices) groups of ``dataset`` that ``--late-share`` and ``--guess-share`` ask for."""
        groups = []
        if self.config.late_share:
            groups.append((self.config.late_share, dataset.late_positions()))
        if self.config.guess_share:
            groups.append((self.config.guess_share, dataset.guess_positions()))
        return groups

    def positions(self, size: int, groups: Sequence[FocusGroup] = ()) -> np.ndarray:
        """Dataset indices of one minibatch: uniform, but each group's share of them among its indices (a group
        without any gives its share back to the uniform draw)."""
        counts = [round(share * self.config.batch_size) if len(indices) else 0 for share, indices in groups]
        uniform = self.rng.integers(size, size=self.config.batch_size - sum(counts))
        drawn = [indices[self.rng.integers(len(indices), size=count)]
                 for (_, indices), count in zip(groups, counts, strict=True) if count]  # fmt: skip
        return np.concatenate([uniform, *drawn]) if drawn else uniform

    @staticmethod
    def symmetry(boards: th.Tensor, index: int) -> th.Tensor:
        """Symmetry ``index`` (0-7, :data:`mine_env.engine.symmetry.SYMMETRIES`) of a batch of boards (N, H, W):
        a board with the same mine probabilities, moved (the last four transpose its shape: the network is fully
        convolutional)."""
        forward, _ = SYMMETRIES[index]
        return th.as_tensor(np.ascontiguousarray(forward(boards.numpy())))

    def train(self, dataset: Dataset, samples: int, progress: bool) -> dict[str, float]:
        """``samples`` minibatch rows of Adam steps; returns the mean loss and the samples per second."""
        extractor: BoardFeatures = self.policy.features_extractor
        self.policy.set_training_mode(True)
        steps = -(-samples // self.config.batch_size)
        groups = self.focus_groups(dataset)
        losses = []
        start = time.perf_counter()
        for _ in tqdm(range(steps), desc="training", unit="batch", disable=not progress, mininterval=2):
            batch = self.batch(dataset, groups)
            logits = safety_logits(self.policy, extractor.input_planes(batch.grids, batch.density))
            loss = distill_loss(logits, batch.grids.flatten(1), batch.labels.flatten(1), batch.weight.flatten(1),
                                self.config.revealed_weight, self.config.choice_weight, self.config.count_weight,
                                None if batch.targets is None else batch.targets.flatten(1))  # fmt: skip
            adam_step(self.optimizer, loss, self.learning_rate())
            self.step_count += 1
            losses.append(loss.item())
        seconds = time.perf_counter() - start
        self.policy.set_training_mode(False)
        return {"loss": float(np.mean(losses)) if losses else float("nan"),
                "train_samples_per_s": steps * self.config.batch_size / max(seconds, 1e-9)}  # fmt: skip


def learner_scores(policy: MaskableConvActorCriticPolicy) -> Scorer:
    """The network as the collector's learner: safety logits of a batch of grids, as numpy."""

    def scores(grids: np.ndarray) -> np.ndarray:
        with th.no_grad():
            obs = th.as_tensor(grids)
            return safety_logits(policy, policy.features_extractor.input_planes(obs)).cpu().numpy()

    return scores


def play_scores(policy: MaskableConvActorCriticPolicy) -> Scorer:
    """What the network plays on a batch of grids: its safety logits, plus its guess preference where it has one
    (:class:`train.networks.GuessPreference`, :mod:`train.guess_preference`), as numpy (N, cells)."""

    def scores(grids: np.ndarray) -> np.ndarray:
        with th.no_grad():
            features = policy.extract_features(th.as_tensor(grids), policy.pi_features_extractor)
            return policy.mlp_extractor.forward_actor(features).cpu().numpy()

    return scores


def accuracy(policy: MaskableConvActorCriticPolicy, grids: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """How well the network matches held-out labels: mean absolute error of p over hidden cells, and the share
    of positions (with a hidden cell) where its choice is one of the oracle's safest cells."""
    flat_labels = labels.reshape(len(labels), -1).astype(np.float32)
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    logits = learner_scores(policy)(grids)
    predicted = 1.0 / (1.0 + np.exp(logits))
    error = float(np.abs(predicted - flat_labels)[hidden].mean())
    choice = np.where(hidden, logits, -np.inf).argmax(axis=1)
    best = np.where(hidden, flat_labels, np.inf).min(axis=1)
    chosen = flat_labels[np.arange(len(choice)), choice]
    return {"mae": error, "agree": float((chosen <= best + 1e-3).mean())}


HELD_OUT_SOLVER_GAMES = 2000
"""Games of the default solver whose guess positions measure, each round, how often the network guesses as it
does (``--guess-target solver``): several hundred positions on intermediate, a few seconds."""


def guess_agreement(policy: MaskableConvActorCriticPolicy, grids: np.ndarray, choices: np.ndarray) -> float:
    """The share of the true-guess positions ``grids`` where the network's move (:func:`play_scores`) is the
    solver's guess ``choices`` (NaN without a position)."""
    if not len(grids):
        return float("nan")
    return guess_report(play_scores(policy)(grids), GuessPositions(grids, choices, None))["solver_agree"]


def run(config: DistillConfig) -> Path:
    """Distil the oracle as the config says; returns the run directory (models, logs, config)."""
    config.validate()
    th.manual_seed(config.seed)
    th.set_num_threads(config.torch_threads)
    spec = config.board_spec()
    model = new_model(config, spec)
    policy = model.policy
    if config.init:
        start_from(policy, config.init, spec.mines)
    policy.set_training_mode(False)
    dataset = Dataset.empty(spec, dataclasses.asdict(config))
    if config.dataset:
        dataset = Dataset.load(config.dataset)
        dataset.check_board(spec, config.dataset)
    run_dir = Path(config.runs_dir) / (config.run_name or
                                       f"distill-{spec.rows}x{spec.cols}x{spec.mines}-{spec.first_click}-s{config.seed}-"
                                       f"{time.strftime('%Y%m%d-%H%M%S')}")  # fmt: skip
    (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    total_steps = config.rounds * -(-config.samples // config.batch_size)
    trainer = Trainer(config, policy, total_steps)
    best = -1.0
    start = time.perf_counter()
    with Labeller(config.label_workers, config.label_chunk or None, config.backend, config.address) as labeller:
        collector = PositionCollector(spec, config.boards, config.seed, labeller, config.explore)
        held_out = collector.collect(min(4096, max(256, config.positions // 10)), (1.0, 0.0, 0.0), None)
        held_out_guesses = None
        if config.guess_target == "solver":
            held_out_guesses = harvest_guesses(spec, HELD_OUT_SOLVER_GAMES, seed_of_round(config.eval_seed, 0))
        for round_index in range(config.rounds):
            row = {"round": round_index + 1}
            if config.positions:
                learner = learner_scores(policy) if round_index > 0 or config.init else None
                label_start = time.perf_counter()
                with tqdm(total=config.positions, desc=f"round {round_index + 1} labelling", unit="pos",
                          disable=not config.progress_bar, mininterval=2) as bar:  # fmt: skip
                    grids, labels, stats = collector.collect(
                        config.positions, config.share_values(), learner, bar.update
                    )
                row["collect_positions_per_s"] = config.positions / (time.perf_counter() - label_start)
                row["collect_games"], row["collect_win_rate"] = stats["games"], stats["win_rate"]
                dataset.extend(grids, labels)
            round_seed = seed_of_round(config.seed, round_index)
            if config.solver_games:
                add_solver_guesses(dataset, labeller, config.solver_games, round_seed)
            if config.guess_target == "solver":
                row["solver_choices"] = dataset.record_solver_choices(round_seed)
                row["solver_choices_total"] = int((dataset.choices != NO_CHOICE).sum())
            if config.save_dataset and (config.positions or config.solver_games):
                dataset.save(config.save_dataset)
            row.update(trainer.train(dataset, config.samples, config.progress_bar))
            row.update(accuracy(policy, held_out[0], held_out[1]))
            if held_out_guesses is not None:
                row["solver_agree"] = guess_agreement(policy, held_out_guesses.grids, held_out_guesses.choices)
            row["positions"], row["samples"] = len(dataset), trainer.step_count * config.batch_size
            model.num_timesteps = len(dataset)
            evaluation = None
            if config.eval_games:
                row["eval_win_rate"] = evaluate_win_rate(policy, spec, config.eval_games, config.eval_seed)
                evaluation = {"games": config.eval_games, "seed": config.eval_seed, "win_rate": row["eval_win_rate"]}
                if row["eval_win_rate"] > best:
                    best = row["eval_win_rate"]
                    save_model(model, run_dir / "best_model.zip", "distill", config, evaluation)
            row["wall_s"] = time.perf_counter() - start
            save_model(model, run_dir / "final_model.zip", "distill", config, evaluation)
            log_row(run_dir / "logs" / "progress.csv", row)
            print(f"[{time.strftime('%H:%M:%S')}] {progress_line(row)}", flush=True)
    return run_dir


def seed_of_round(seed: int, round_index: int) -> int:
    """The seed of a round's own draws (the solver's games and tie-breaks), apart from the collector's."""
    return int(np.random.SeedSequence([seed, round_index]).generate_state(1)[0])


def add_solver_guesses(dataset: Dataset, labeller: Labeller, games: int, seed: int) -> None:
    """Play ``games`` of the default solver (``--solver-games``) and add the positions where it guessed, labelled,
    with its guesses."""
    spec = dataset.spec
    grids, choices, _, _ = harvest_guesses(spec, games, seed)
    dataset.extend(grids, labeller.label(grids, spec.mines, spec.first_click), choices)


def progress_line(row: dict[str, float]) -> str:
    """A progress row as one printed line: ``key value`` pairs, floats to 4 significant digits."""
    return ", ".join(f"{key} {value:.4g}" if isinstance(value, float) else f"{key} {value}"
                     for key, value in row.items())  # fmt: skip


def log_row(path: Path, row: dict[str, float]) -> None:
    """Append ``row`` to the CSV at ``path`` (the header written with the first row)."""
    new = not path.is_file()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """``python -m train.distill [options]`` (and ``minesweeper train distill``): parse, distil, print the run."""
    parser = argparse.ArgumentParser(prog=prog or "python -m train.distill",
                                     description="Distil the exact mine probabilities into a network.")  # fmt: skip
    add_config_arguments(parser, DistillConfig)
    add_resume_argument(parser)  # only to refuse it with a pointer to --init
    args = parser.parse_args(argv)
    if args.resume is not None:
        parser.error("distillation has no --resume: start a new run with --init MODEL (and --dataset PATH)")
    return report_run(parser, lambda: run(config_from_args(DistillConfig, args)))


if __name__ == "__main__":
    sys.exit(main())

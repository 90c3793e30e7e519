"""Distillation's minibatches and optimiser steps: whole boards or random windows with the board around them,
the symmetries, the endgame and guess shares of a minibatch, and the solver's guesses as choice targets."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import torch as th
from tqdm import tqdm

from agents.networks.layers import remaining_density
from agents.networks.saved import CellScorer
from mine_env.engine.symmetry import SYMMETRIES
from train.distill.data import Dataset
from train.distill.guesses import NO_CHOICE
from train.distill.losses import adam_step, cosine_rate, distill_loss
from train.distill.network import device_of, safety_logits
from train.distill.rounds.config import DistillConfig

FocusGroup = tuple[float, np.ndarray]
"""A share of every minibatch and the dataset indices it is drawn from (``--late-share``, ``--guess-share``)."""


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

    def __init__(self, config: DistillConfig, network: CellScorer, total_steps: int) -> None:
        self.config = config
        self.network = network
        self.rng = np.random.default_rng(config.seed + 1)
        params = [*network.trunk.parameters(), *network.head.parameters()]
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
        trunk, device = self.network.trunk, device_of(self.network)
        self.network.train()
        steps = -(-samples // self.config.batch_size)
        groups = self.focus_groups(dataset)
        losses = []
        start = time.perf_counter()
        for _ in tqdm(range(steps), desc="training", unit="batch", disable=not progress, mininterval=2):
            batch = Minibatch(*(None if part is None else part.to(device) for part in self.batch(dataset, groups)))
            logits = safety_logits(self.network, trunk.input_planes(batch.grids, batch.density))
            loss = distill_loss(logits, batch.grids.flatten(1), batch.labels.flatten(1), batch.weight.flatten(1),
                                self.config.revealed_weight, self.config.choice_weight, self.config.count_weight,
                                None if batch.targets is None else batch.targets.flatten(1))  # fmt: skip
            adam_step(self.optimizer, loss, self.learning_rate())
            self.step_count += 1
            losses.append(loss.item())
        seconds = time.perf_counter() - start
        self.network.eval()
        return {"loss": float(np.mean(losses)) if losses else float("nan"),
                "train_samples_per_s": steps * self.config.batch_size / max(seconds, 1e-9)}  # fmt: skip

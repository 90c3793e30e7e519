"""An exponential moving average of a network's weights, kept beside the weights in training.

At a high learning rate the weights jitter around where the loss is low; their average over the last steps sits
closer to it, as a decayed learning rate would bring them, without waiting for the decay. A run on a plateau
wanders along it, and the mean of its weights often plays better than any one point of the wander. A long run can
so be judged (and played) at any step. ``train.distill.stream.run --ema DECAY`` keeps one per trunk, updated at
every optimiser step; the SB3 trainers' ``--weight-average DECAY`` one for the policy, updated after every round
of collection and training (:mod:`train.sb3.averaging`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch as th
from torch import nn


def check_decay(decay: float) -> None:
    """Refuse a decay outside [0, 1): 0 is off, the weight of the average's past at each step otherwise."""
    if not 0.0 <= decay < 1.0:
        raise ValueError(f"ema is the average's decay per step, from 0 (off) up to 1 (excluded), got {decay}")


def decay_at(decay: float, updates: int) -> float:
    """The decay of the ``updates``-th update: ``decay``, but less while the average holds few updates, so that
    it leaves its starting weights behind at first ((1 + n) / (10 + n))."""
    return min(decay, (1.0 + updates) / (10.0 + updates))


class WeightAverage:
    """The average of ``module``'s floating-point weights and buffers (its other buffers are the module's own).

    Args:
        module: The network in training; its tensors are read in place at each :meth:`update`.
        decay: The weight of the average's past at each update, from 0 up to 1 (excluded).
        state: A saved average (:meth:`state_dict`) to continue; the module's weights by default.
        updates: Updates the saved average holds.
        warm_up: Let the first updates move the average more (:func:`decay_at`), for a start from weights the
            average should leave behind (a new network's); without it every update moves it by ``1 - decay``, for
            a start from trained weights and few updates (a run's rounds, not its optimiser steps).
    """

    def __init__(self, module: nn.Module, decay: float, state: dict[str, th.Tensor] | None = None,
                 updates: int = 0, warm_up: bool = True) -> None:  # fmt: skip
        check_decay(decay)
        self.module, self.decay, self.updates, self.warm_up = module, decay, updates, warm_up
        live = module.state_dict()
        source = live if state is None else state
        self.average = {key: source[key].detach().to(live[key].device, copy=True) for key in live
                        if live[key].is_floating_point()}  # fmt: skip
        self._live = [live[key] for key in self.average]  # views of the module's tensors, updated in place

    @th.no_grad()
    def update(self) -> None:
        """Move the average towards the module's weights as they are now."""
        weight = 1.0 - (decay_at(self.decay, self.updates) if self.warm_up else self.decay)
        th._foreach_lerp_(list(self.average.values()), self._live, weight)
        self.updates += 1

    def state_dict(self) -> dict[str, th.Tensor]:
        """The averaged tensors, by the module's state-dict keys."""
        return dict(self.average)

    @contextmanager
    def applied(self) -> Iterator[nn.Module]:
        """The module with the averaged weights in place of its own for the block, which it gets back after."""
        live = {key: tensor.detach().clone() for key, tensor in self.module.state_dict().items()}
        self.module.load_state_dict(self.average, strict=False)
        try:
            yield self.module
        finally:
            self.module.load_state_dict(live)

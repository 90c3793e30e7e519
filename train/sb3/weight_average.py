"""A moving average of the policy's weights over a run (``--weight-average DECAY``), saved as a model of its own.

A run that has reached a plateau wanders along it: its evaluations go up and down by more than their noise, as
each update moves the weights a little. The mean of the weights along that wander often plays better than any
one point of it (the same reason ``studies/weight_soup.py`` averages saved models). Here the mean is kept while
the run trains: after every round of collection and training (a PPO rollout and its epochs, a DQN training
interval) the average moves toward the live weights by ``1 - DECAY`` (exponential: 0.9 weighs about the last ten
rounds). Float tensors are averaged, other buffers copied. The live run is untouched: the average is only read
when it is saved or played.

The run saves it as ``average_model`` (``.zip``, ``.pt`` and card, as :func:`train.sb3.evaluation.save_model`
writes any model) at every checkpoint and when the run ends or stops, so ``minesweeper eval --model
runs/RUN/average_model.pt`` plays it; at every evaluation the run plays it on its evaluation games too
(``eval/average_win_rate`` and ``eval/average_safe_fraction`` beside the live weights' figures in the run's log).
Its state goes into the run's checkpoint, so a paused and resumed run keeps the very average an unbroken one
would. A resumed run may turn averaging on (it starts from the resumed weights), change the decay (the kept
average goes on at the new one) or turn it off.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch as th
from stable_baselines3.common.callbacks import BaseCallback

AVERAGE_MODEL = "average_model.zip"
"""The averaged model's file in a run directory (its ``.pt`` and card beside it)."""


class WeightAverage:
    """The exponential moving average of a network's state dict, one :meth:`update` a round."""

    def __init__(self, decay: float, tensors: dict[str, th.Tensor], rounds: int = 0, updates_seen: int = 0) -> None:
        if not 0.0 < decay < 1.0:
            raise ValueError(f"a weight average's decay lies strictly between 0 and 1, got {decay}")
        self.decay = decay
        self.tensors = tensors
        self.rounds = rounds
        """Rounds averaged in since the average started."""
        self.updates_seen = updates_seen
        """The algorithm's update counter (``_n_updates``) at the last round averaged in."""

    @classmethod
    def of(cls, network: th.nn.Module, decay: float, updates_seen: int = 0) -> WeightAverage:
        """An average that starts at ``network``'s weights."""
        tensors = {key: value.detach().clone() for key, value in network.state_dict().items()}
        return cls(decay, tensors, updates_seen=updates_seen)

    def update(self, network: th.nn.Module) -> None:
        """Move the average toward ``network``'s weights by ``1 - decay`` (float tensors; others are copied)."""
        with th.no_grad():
            for key, value in network.state_dict().items():
                average = self.tensors[key]
                if average.is_floating_point():
                    average.lerp_(value.detach().to(average.dtype), 1.0 - self.decay)
                else:
                    average.copy_(value)
        self.rounds += 1

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps of the average."""
        return {"decay": self.decay, "tensors": self.tensors, "rounds": self.rounds, "updates_seen": self.updates_seen}

    @classmethod
    def from_state(cls, state: dict[str, Any], decay: float) -> WeightAverage:
        """A checkpoint's average, going on at ``decay`` (a resumed run's, which may differ from the saved one)."""
        return cls(decay, state["tensors"], state["rounds"], state["updates_seen"])

    @contextlib.contextmanager
    def loaded_into(self, network: th.nn.Module) -> Iterator[None]:
        """``network`` holds the average inside the block and its own weights again after it."""
        own = {key: value.detach().clone() for key, value in network.state_dict().items()}
        network.load_state_dict(self.tensors)
        try:
            yield
        finally:
            network.load_state_dict(own)


def resumed_average(network: th.nn.Module, decay: float, saved: dict[str, Any] | None,
                    updates_seen: int) -> WeightAverage | None:  # fmt: skip
    """The run's average: none at ``decay`` 0, the checkpoint's ``saved`` one where it kept one, else a new one
    from ``network``'s weights (a new run, or a resumed one that turns averaging on)."""
    if decay == 0.0:
        return None
    if saved is not None:
        return WeightAverage.from_state(saved, decay)
    return WeightAverage.of(network, decay, updates_seen)


class WeightAveraging(BaseCallback):
    """Averages the policy's weights in after every round that trained (its update counter moved), at the next
    rollout's start and when training ends; saves the averaged model (``save(path)``, the live weights swapped for
    the average meanwhile) every ``every`` steps and at the end; and every ``eval_every`` steps (0: never) plays
    it on the run's evaluation games (``evaluate(policy)``), logged as ``eval/average_win_rate`` and
    ``eval/average_safe_fraction`` in the row of the run's own evaluation. Put it before the run's checkpoint
    keeper and evaluation, so that a checkpoint holds the average with the round just trained and the row is
    written with the average's figures in it."""

    def __init__(self, average: WeightAverage, run_dir: Path, every: int, save: Callable[[Path], None],
                 eval_every: int = 0, evaluate: Callable[[th.nn.Module], Any] | None = None) -> None:  # fmt: skip
        super().__init__()
        self.average = average
        self.run_dir = run_dir
        self.every = every
        self.save = save
        self.eval_every = eval_every if evaluate is not None else 0
        self.evaluate = evaluate
        self.next_save = 0
        self.next_eval = 0

    @staticmethod
    def _next(steps: int, every: int) -> int:
        """The next whole multiple of ``every`` above ``steps`` (a resumed run keeps the schedule); -1 for never."""
        return (steps // every + 1) * every if every else -1

    def _on_training_start(self) -> None:
        self.next_save = self._next(self.num_timesteps, self.every)
        self.next_eval = self._next(self.num_timesteps, self.eval_every)

    def _average_in(self) -> None:
        updates = int(self.model._n_updates)
        if updates != self.average.updates_seen:
            self.average.update(self.model.policy)
            self.average.updates_seen = updates

    def _on_rollout_start(self) -> None:
        self._average_in()
        if self.every and self.num_timesteps >= self.next_save:
            self.save_average()
            self.next_save = self._next(self.num_timesteps, self.every)

    def _on_step(self) -> bool:
        if self.eval_every and self.num_timesteps >= self.next_eval:
            self.next_eval += self.eval_every
            self.evaluate_average()
        return True

    def evaluate_average(self) -> None:
        """Play the average on the run's evaluation games and log its win rate and safe share."""
        assert self.evaluate is not None
        with self.average.loaded_into(self.model.policy):
            result = self.evaluate(self.model.policy)
        self.logger.record("eval/average_win_rate", result.win_rate)
        self.logger.record("eval/average_safe_fraction", result.safe_fraction)
        print(f"step {self.num_timesteps}: the weight average's eval win rate {result.win_rate:.3f}, safe cells "
              f"revealed {result.safe_fraction:.3f}", flush=True)  # fmt: skip

    def _on_training_end(self) -> None:
        self._average_in()
        self.save_average()

    def checkpoint_state(self) -> dict[str, Any]:
        """What the run's checkpoint keeps of the average (the keeper's ``extra_state``)."""
        return {"weight_average": self.average.state()}

    def save_average(self) -> None:
        """Write ``average_model`` (zip, ``.pt``, card) with the average in the policy's place."""
        with self.average.loaded_into(self.model.policy):
            self.save(self.run_dir / AVERAGE_MODEL)

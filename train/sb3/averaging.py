"""The policy's weight average in an SB3 run (``--weight-average DECAY``), saved and played as a model of its own.

After every round of collection and training (a PPO rollout and its epochs, a DQN training interval) the average
(:class:`train.weight_average.WeightAverage`) moves toward the live weights by ``1 - DECAY`` (0.98 weighs about
the last fifty rounds). A run may start from a trained model, whose weights belong in the average, so every round
moves it by the same share from the first. The live run is untouched: the average is only read when it is saved
or played.

The run saves it as ``average_model`` (``.zip``, ``.pt`` and card, as :func:`train.sb3.evaluation.save_model`
writes any model) at every checkpoint and when the run ends or stops, so ``minesweeper eval --model
runs/RUN/average_model.pt`` plays it; every ``--eval-every`` steps the run plays it on its evaluation games too
(``eval/average_win_rate`` and ``eval/average_safe_fraction`` beside the live weights' figures in the run's log;
not again when a stretch ends between two of those steps, where the live weights' own evaluation adds a row).
Its state goes into the run's checkpoint, so a paused and resumed run keeps the very average an unbroken one
would. A resumed run may turn averaging on (it starts from the resumed weights), change the decay (the kept
average goes on at the new one) or turn it off.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch as th
from stable_baselines3.common.callbacks import BaseCallback

from train.weight_average import WeightAverage

AVERAGE_MODEL = "average_model.zip"
"""The averaged model's file in a run directory (its ``.pt`` and card beside it)."""


def resumed_average(policy: th.nn.Module, decay: float, saved: dict[str, Any] | None) -> WeightAverage | None:
    """The run's average of ``policy``: none at ``decay`` 0, the checkpoint's ``saved`` one where it kept one
    (:meth:`WeightAveraging.checkpoint_state`), else a new one from the policy's weights (a new run, or a resumed
    one that turns averaging on)."""
    if decay == 0.0:
        return None
    if saved is None:
        return WeightAverage(policy, decay, warm_up=False)
    return WeightAverage(policy, decay, saved["tensors"], saved["rounds"], warm_up=False)


class WeightAveraging(BaseCallback):
    """Averages the policy's weights in after every round that trained (its update counter moved), at the next
    rollout's start and when training ends; saves the averaged model (``save(path)``, the live weights swapped for
    the average meanwhile) every ``every`` steps and at the end; and every ``eval_every`` steps (0: never) plays
    it on the run's evaluation games (``evaluate(policy)``), logged in the row of the run's own evaluation. Put it
    before the run's checkpoint keeper and evaluation, so that a checkpoint holds the average with the round just
    trained and the row is written with the average's figures in it.

    ``updates_seen``: the algorithm's update counter (``_n_updates``) at the last round averaged in (a checkpoint's,
    or the run's at its start)."""

    def __init__(self, average: WeightAverage, updates_seen: int, run_dir: Path, every: int,
                 save: Callable[[Path], None], eval_every: int = 0,
                 evaluate: Callable[[th.nn.Module], Any] | None = None) -> None:  # fmt: skip
        super().__init__()
        self.average = average
        self.updates_seen = updates_seen
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
        if updates != self.updates_seen:
            self.average.update()
            self.updates_seen = updates

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

    def _on_training_end(self) -> None:
        self._average_in()
        self.save_average()

    def checkpoint_state(self) -> dict[str, Any]:
        """What the run's checkpoint keeps of the average (the keeper's ``extra_state``)."""
        average = self.average
        return {"weight_average": {"tensors": average.state_dict(), "rounds": average.updates,
                                   "updates_seen": self.updates_seen}}  # fmt: skip

    def save_average(self) -> None:
        """Write ``average_model`` (zip, ``.pt``, card) with the average in the policy's place."""
        with self.average.applied():
            self.save(self.run_dir / AVERAGE_MODEL)

    def evaluate_average(self) -> None:
        """Play the average on the run's evaluation games and log its win rate and safe share."""
        assert self.evaluate is not None
        with self.average.applied() as policy:
            result = self.evaluate(policy)
        self.logger.record("eval/average_win_rate", result.win_rate)
        self.logger.record("eval/average_safe_fraction", result.safe_fraction)
        print(f"step {self.num_timesteps}: the weight average's eval win rate {result.win_rate:.3f}, safe cells "
              f"revealed {result.safe_fraction:.3f}", flush=True)  # fmt: skip

"""A learning rate that steps down at stated environment steps of a run (``--lr-drops 1000000:5e-5,2000000:2.5e-5``).

The rate is a function of the run's step counter, not of SB3's remaining progress, so it survives what a resumed run
may change: a larger ``--steps`` leaves every drop where it was, and a run resumed past a drop trains at the rate
that drop set. :class:`LearningRateDrops` applies it before the first update and whenever the counter passes a drop.
"""

from __future__ import annotations

from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback

Drops = tuple[tuple[int, float], ...]
"""(step, rate) pairs in increasing steps: from ``step`` on the run trains at ``rate``."""


def parse_drops(text: str) -> Drops:
    """``"1000000:5e-5,2000000:2.5e-5"`` as (step, rate) pairs; ValueError, in one line, for anything else."""
    drops: list[tuple[int, float]] = []
    for part in (piece.strip() for piece in text.split(",")):
        if not part:
            continue
        step_text, _, rate_text = part.partition(":")
        try:
            step, rate = int(step_text.replace("_", "")), float(rate_text)
        except ValueError:
            raise ValueError(f"lr_drops is a comma list of STEP:RATE, e.g. 1000000:5e-5,2000000:2.5e-5; got "
                             f"{part!r} in {text!r}") from None  # fmt: skip
        if step < 1 or not rate > 0:
            raise ValueError(f"lr_drops needs steps of at least 1 and positive rates, got {part!r}")
        if drops and step <= drops[-1][0]:
            raise ValueError(f"lr_drops' steps must increase, got {step:,} after {drops[-1][0]:,} in {text!r}")
        drops.append((step, rate))
    return tuple(drops)


def rate_at(step: int, initial: float, drops: Drops) -> float:
    """The rate of the run at environment step ``step``: the last drop reached, else ``initial``."""
    rate = initial
    for at, dropped in drops:
        if step < at:
            break
        rate = dropped
    return rate


def set_learning_rate(model: BaseAlgorithm, learning_rate: float) -> None:
    """Train a model at ``learning_rate`` from its next update on (SB3 keeps its schedule in the model and sets
    the optimizer's rate from it before every update)."""
    model.learning_rate = learning_rate
    model._setup_lr_schedule()


class LearningRateDrops(BaseCallback):
    """Keeps the model at :func:`rate_at` its step counter: set at the start of training (a new run or a resumed
    one) and again as each drop is passed."""

    def __init__(self, initial: float, drops: Drops) -> None:
        super().__init__()
        self.initial = initial
        self.drops = drops
        self.applied: float | None = None

    def _on_training_start(self) -> None:
        self._apply()

    def _on_step(self) -> bool:
        self._apply()
        return True

    def _apply(self) -> None:
        rate = rate_at(self.num_timesteps, self.initial, self.drops)
        if rate != self.applied:
            if self.applied is not None:
                print(f"step {self.num_timesteps:,}: learning rate {rate:g}", flush=True)
            set_learning_rate(self.model, rate)
            self.applied = rate

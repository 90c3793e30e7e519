"""The training progress bar, counting the run's environment steps as its progress log does.

stable-baselines3's own bar counts from 0 to the steps left of a resumed run, while the log (``time/total_timesteps``,
the checkpoints, ``--steps``) counts the run's steps from its start: after ``--resume`` at 40,000 of 100,000 steps,
the bar said 0/60,000 where the log said 40,000. This one starts where the run stands, out of the run's steps.
"""

from __future__ import annotations

from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm


class RunProgressBar(BaseCallback):
    """A tqdm bar of the run's steps: from the steps already done (a resumed run's) to the steps of the run."""

    def __init__(self) -> None:
        super().__init__()
        self.bar: tqdm | None = None

    def _on_training_start(self) -> None:
        # learn(..., reset_num_timesteps=False) counts total_timesteps from the run's start, as the log does
        self.bar = tqdm(total=self.locals["total_timesteps"], initial=self.model.num_timesteps, unit="step",
                        desc="training", dynamic_ncols=True)  # fmt: skip

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.training_env.num_envs)  # num_envs steps per env.step()
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

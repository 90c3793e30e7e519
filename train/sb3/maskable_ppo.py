"""MaskablePPO (sb3-contrib) with the fully convolutional policy and the env's action masks.

The masks come from the batched engine through ``env_method("action_masks")`` (sb3-contrib's
``get_action_masks``), are stored in the rollout buffer and applied to the logits both when acting and
in the update, so the policy never gives probability to a revealed cell.

Run: ``python -m train.sb3.maskable_ppo --preset beginner --first-click opening --steps 1000000 --seed 0``
or ``minesweeper train maskable_ppo ...``; every option is a field of :class:`MaskablePPOConfig`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import ClassVar

from stable_baselines3.common.vec_env import VecEnv

from train.options import option
from train.sb3.mine_head import MineMaskablePPO
from train.sb3.networks import MaskableConvActorCriticPolicy
from train.sb3.ppo import CHANGEABLE, PPOConfig, damped, ppo_callbacks, ppo_kwargs, resumed
from train.sb3.training import Algorithm, script_main


@dataclass
class MaskablePPOConfig(PPOConfig):
    """The PPO settings; an invalid action cannot happen, so its reward is moot."""

    algo: ClassVar[str] = "maskable_ppo"

    reward_invalid: float = option(0.0, "Reward for an invalid action (never taken: the masks forbid it).")


def build_model(config: MaskablePPOConfig, env: VecEnv) -> MineMaskablePPO:
    return damped(MineMaskablePPO(MaskableConvActorCriticPolicy, env, **ppo_kwargs(config)), config)


ALGORITHM = Algorithm("maskable_ppo", MaskablePPOConfig, MineMaskablePPO, build_model, resumed,
                      callbacks=ppo_callbacks, changeable=CHANGEABLE)

if __name__ == "__main__":
    # Run through the imported module, so that saved models name train.sb3.maskable_ppo, not __main__, as their class.
    from train.sb3 import maskable_ppo

    sys.exit(script_main(maskable_ppo.ALGORITHM))

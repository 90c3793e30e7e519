"""PPO (stable-baselines3) with the fully convolutional policy, without action masks.

The policy may pick a revealed cell: that step changes nothing and earns ``reward_invalid`` (negative by
default here), so PPO has to learn validity itself. Compare :mod:`train.maskable_ppo`, which never can.

Run: ``python -m train.ppo --preset beginner --first-click opening --steps 1000000 --seed 0`` or
``minesweeper train ppo ...``; every option is a field of :class:`PPOConfig`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import VecEnv

from train.common import Algorithm, RunConfig, at_least, option, policy_network_kwargs, script_main, within
from train.networks import ConvActorCriticPolicy


@dataclass
class PPOConfig(RunConfig):
    """PPO settings on top of :class:`~train.common.RunConfig` (also used by MaskablePPO)."""

    reward_invalid: float = option(-0.1, "Reward for revealing a revealed cell (PPO has no masks to avoid it).")
    n_steps: int = option(64, "Steps per board per rollout; a rollout holds num_envs * n_steps steps.")
    batch_size: int = option(512, "Minibatch size of the PPO update.")
    n_epochs: int = option(4, "Passes over each rollout.")
    gamma: float = option(0.99, "Discount factor.")
    gae_lambda: float = option(0.95, "GAE lambda (bias/variance of the advantages).")
    clip_range: float = option(0.2, "PPO clipping of the probability ratio.")
    ent_coef: float = option(0.01, "Entropy bonus coefficient (exploration).")
    vf_coef: float = option(0.5, "Value loss coefficient.")
    max_grad_norm: float = option(0.5, "Gradient norm clipping.")

    def validate(self) -> None:
        """The shared checks, then PPO's own (SB3 would fail on them with an assertion, or train nonsense)."""
        super().validate()
        at_least(self, 1, "n_steps", "n_epochs")
        at_least(self, 2, "batch_size")
        within(self, 0.0, 1.0, "gamma", "gae_lambda")
        for name in ("clip_range", "max_grad_norm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")


def ppo_kwargs(config: PPOConfig) -> dict[str, Any]:
    """The keyword arguments PPO and MaskablePPO share, from the config."""
    return {
        "learning_rate": config.learning_rate, "n_steps": config.n_steps, "batch_size": config.batch_size,
        "n_epochs": config.n_epochs, "gamma": config.gamma, "gae_lambda": config.gae_lambda,
        "clip_range": config.clip_range, "ent_coef": config.ent_coef, "vf_coef": config.vf_coef,
        "max_grad_norm": config.max_grad_norm, "seed": config.seed, "device": config.device,
        "policy_kwargs": {
            **policy_network_kwargs(config),
            "value_hidden": config.value_hidden,
            # from distilled weights the critic gets a trunk of its own: a fresh value head's errors, shared,
            # would rewrite the trunk the actor starts from (MaskablePPO fell from 97% to 22% in 8k steps)
            "share_features_extractor": not config.init,
        },
    }  # fmt: skip


def build_model(config: PPOConfig, env: VecEnv) -> PPO:
    return PPO(ConvActorCriticPolicy, env, **ppo_kwargs(config))


ALGORITHM = Algorithm("ppo", PPOConfig, PPO, build_model)

if __name__ == "__main__":
    # Run through the imported module, so that saved models name train.ppo, not __main__, as their class.
    from train import ppo

    sys.exit(script_main(ppo.ALGORITHM))

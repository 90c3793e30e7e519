"""The battle env under RLlib: ``"battle-minesweeper"`` (:data:`BATTLE_ENV_NAME`), the two-player PettingZoo AEC
env of :mod:`battle.env` through RLlib's ``PettingZooEnv`` wrapper (:func:`make_battle_env`), and PPO on it
with both seats on one shared :class:`train.rllib.MaskedCellModule` (self-play, :func:`battle_ppo_config`). Its
observations have the single-player env's two keys, ``{"observation": grid, "action_mask": mask}``.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.tune.registry import register_env

from train.rllib import module_spec

BATTLE_ENV_NAME = "battle-minesweeper"
SHARED_POLICY = "shared"
"""The one policy both battle seats play (self-play)."""


def make_battle_env(config: dict[str, Any] | None = None) -> Any:
    """The battle env (:func:`battle.env.env`, kwargs from ``config``) as an RLlib multi-agent env."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from battle import env as battle_env

    return PettingZooEnv(battle_env.env(**dict(config or {})))


def register_battle_env() -> None:
    """Register :data:`BATTLE_ENV_NAME` with ``tune.register_env`` (in this process; RLlib carries the
    registration to its env runners)."""
    register_env(BATTLE_ENV_NAME, make_battle_env)


def battle_ppo_config(
    env_config: dict[str, Any] | None = None,
    *,
    env_runners: int = 0,
    batch_size: int = 1024,
    minibatch_size: int = 256,
    epochs: int = 4,
    lr: float = 3e-4,
    model: dict[str, Any] | None = None,
    seed: int = 0,
) -> PPOConfig:
    """RLlib PPO on the battle env: both seats map to one shared masking policy (self-play)."""
    register_battle_env()
    return (
        PPOConfig()
        .environment(BATTLE_ENV_NAME, env_config=dict(env_config or {}))
        .env_runners(num_env_runners=env_runners)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=share_policy)
        .training(train_batch_size_per_learner=batch_size, minibatch_size=minibatch_size, num_epochs=epochs, lr=lr)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module_spec(model)}))
        .debugging(seed=seed)
    )


def share_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Both battle seats play the shared policy."""
    return SHARED_POLICY

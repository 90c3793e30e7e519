"""The single-player env under RLlib: registration, an action-masking network, a PPO configuration, a trained
policy as an agent (the battle env's: :mod:`battle.training.rllib`, on the same network).

RLlib (Ray's RL library, the optional ``ray`` extra with ``train``) builds envs from a name and a config
dict on its env runners. :func:`register_envs` registers ``"minesweeper"`` (:data:`ENV_NAME`) with
``tune.register_env``: the single-player env, :func:`make_env`; its config takes the env's kwargs (``preset``,
``rows``, ``first_click``, ``rewards``, ...), and an ``env_id`` (default ``Minesweeper-v0``). The observation is
the env's ``obs_mode="dict"``: ``{"observation": int8 grid, "action_mask": int8}``. The Gymnasium id works as
well, without registering: ``config.environment("mine_env:Minesweeper-v0", env_config={"obs_mode": "dict"})``.

:class:`MaskedCellModule` is the network: the int8 grid one-hot inside, 3x3 convolutions (the trunk of
:mod:`agents.networks.trunks`), one logit per cell from a 1x1 convolution, invalid cells' logits pushed to RLlib's
``FLOAT_MIN`` so that neither sampling nor the greedy action ever picks a revealed cell, and a value from mean-
and max-pooled features. Its weights fit any board. :func:`ppo_config` puts it into an RLlib ``PPOConfig`` (the
new API stack). :class:`RLlibAgent` plays a trained module as an :class:`agents.base.Agent`, so ``eval`` judges
it on the same suites as every agent; :mod:`train.rllib.export` saves it in the model format, which plays with torch
alone (the shipped ``rllib-ppo-beginner``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.tune.registry import register_env
from torch import nn

import mine_env  # noqa: F401  (registers the Gymnasium ids)
from agents.base import Agent
from agents.networks.layers import CellLogits, PooledValue
from agents.networks.trunks import CellTrunk

ENV_NAME = "minesweeper"
WIN_RATE = "win_rate"
WIN_RATE_WINDOW = 1000
"""Finished games the env runners' ``win_rate`` is averaged over."""
DEFAULT_MODEL = {"channels": 32, "layers": 3, "value_hidden": 64}
"""The network's size: channels of the trunk, its 3x3 layers, hidden units of the value head."""


def make_env(config: dict[str, Any] | None = None) -> gym.Env:
    """The single-player env for RLlib: ``gym.make(env_id, obs_mode="dict", **config)``.

    Raises:
        ValueError: an ``obs_mode`` other than ``"dict"`` (the masking network reads the mask from the
            observation), or the env's own errors for bad kwargs.
    """
    kwargs = dict(config or {})
    env_id = kwargs.pop("env_id", "Minesweeper-v0")
    if kwargs.setdefault("obs_mode", "dict") != "dict":
        raise ValueError(f"RLlib's masking network reads obs_mode='dict', got obs_mode={kwargs['obs_mode']!r}")
    return gym.make(env_id, **kwargs)


def register_envs() -> None:
    """Register :data:`ENV_NAME` with ``tune.register_env`` (in this process; RLlib carries the registration to
    its env runners)."""
    register_env(ENV_NAME, make_env)


class MaskedCellModule(TorchRLModule, ValueFunctionAPI):
    """PPO's network over ``{"observation": grid, "action_mask": mask}``: per-cell logits, masked; a pooled value.

    ``model_config`` keys: ``channels``, ``layers``, ``value_hidden`` (:data:`DEFAULT_MODEL`).
    """

    def setup(self) -> None:
        grid_space = self.observation_space["observation"]
        n_cells = int(np.prod(grid_space.shape))
        if self.action_space.n != n_cells:
            raise ValueError(
                f"MaskedCellModule scores one reveal per cell ({n_cells} actions); this env has "
                f"{self.action_space.n}: turn flags (or the battle bomb) off"
            )
        settings = {**DEFAULT_MODEL, **(self.model_config or {})}
        self.trunk = CellTrunk(settings["channels"], settings["layers"])
        self.policy_head = CellLogits(settings["channels"])
        self.value_head = nn.Sequential(
            PooledValue(settings["channels"], settings["value_hidden"]), nn.Linear(settings["value_hidden"], 1)
        )

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        features = self.trunk(batch[Columns.OBS]["observation"])
        return {
            Columns.ACTION_DIST_INPUTS: masked_logits(self.policy_head(features), batch[Columns.OBS]["action_mask"]),
            Columns.EMBEDDINGS: features,
        }

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> th.Tensor:
        if embeddings is None:
            embeddings = self.trunk(batch[Columns.OBS]["observation"])
        return self.value_head(embeddings).squeeze(-1)


def masked_logits(logits: th.Tensor, mask: th.Tensor) -> th.Tensor:
    """Logits with every invalid action's replaced by ``FLOAT_MIN`` (probability 0, finite for the loss)."""
    return logits.masked_fill(mask == 0, FLOAT_MIN)


def module_spec(model: dict[str, Any] | None = None) -> RLModuleSpec:
    """:class:`MaskedCellModule` with the given sizes (:data:`DEFAULT_MODEL` for the rest)."""
    return RLModuleSpec(module_class=MaskedCellModule, model_config={**DEFAULT_MODEL, **(model or {})})


class WinRateMetric(RLlibCallback):
    """Logs ``win_rate``: the share of the env runners' finished games that were won (``info["is_success"]``)."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        if metrics_logger is not None:
            won = bool(episode.get_infos(-1).get("is_success", False))
            metrics_logger.log_value(WIN_RATE, float(won), reduce="mean", window=WIN_RATE_WINDOW)


def ppo_config(
    env_config: dict[str, Any] | None = None,
    *,
    env: str = ENV_NAME,
    env_runners: int = 0,
    envs_per_runner: int = 8,
    batch_size: int = 2048,
    minibatch_size: int = 256,
    epochs: int = 4,
    lr: float = 3e-4,
    model: dict[str, Any] | None = None,
    seed: int = 0,
) -> PPOConfig:
    """RLlib PPO on the single-player env (registered ``env`` name or a Gymnasium id) with the masking network.

    ``env_runners=0`` samples in the driver's process (no Ray worker: the cheapest for a small machine).
    """
    register_envs()
    env_config = dict(env_config or {})
    if env != ENV_NAME:
        env_config.setdefault("obs_mode", "dict")
    return (
        PPOConfig()
        .environment(env, env_config=env_config)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner)
        .training(train_batch_size_per_learner=batch_size, minibatch_size=minibatch_size, num_epochs=epochs, lr=lr)
        .rl_module(rl_module_spec=module_spec(model))
        .callbacks(WinRateMetric)
        .debugging(seed=seed)
    )


class RLlibAgent(Agent):
    """A trained :class:`MaskedCellModule` as an agent: the highest-logit valid cell, greedily.

    Args:
        module: The module (``algorithm.get_module()``, or :meth:`from_checkpoint`).
        name: The agent's label in reports.
    """

    def __init__(self, module: RLModule, name: str = "rllib-ppo") -> None:
        self.module = module
        self.name = name

    @classmethod
    def from_checkpoint(cls, path: str | Path, name: str = "rllib-ppo", policy: str = "default_policy") -> RLlibAgent:
        """The module of ``policy`` saved under ``path``: an algorithm checkpoint or a module's own folder."""
        path = Path(path).resolve()
        if not path.exists():
            raise FileNotFoundError(f"no RLlib checkpoint at {path}")
        module_dir = path / "learner_group" / "learner" / "rl_module" / policy
        return cls(RLModule.from_checkpoint(module_dir if module_dir.exists() else path), name)

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        batch = {Columns.OBS: {
            "observation": th.as_tensor(obs[None]), "action_mask": th.as_tensor(info["action_mask"][None]),
        }}  # fmt: skip
        with th.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return int(logits[0].argmax())

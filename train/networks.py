"""Fully convolutional networks over the board, in the shapes stable-baselines3 accepts.

Every network here reads the int8 grid observation (``obs_mode="grid"``), one-hots it inside (cheaper
to store and to move than the float planes), and runs only convolutions over the cells, so its weights
fit any board size: the per-cell action logits and Q-values come from a 1x1 convolution, never from a
flat layer over the board, and the value comes from pooling over the cells.

- :class:`CellFeatures`: the trunk, a ``BaseFeaturesExtractor`` returning a feature map (N, C, H, W).
- :class:`ConvActorCriticPolicy` / :class:`MaskableConvActorCriticPolicy`: PPO / MaskablePPO policies
  whose action logits are one conv channel per cell.
- :class:`MaskedDQNPolicy`: DQN policy whose Q-values are one conv channel per cell and whose greedy
  action never picks a revealed cell (see :mod:`train.dqn` for the masked target).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork
from torch import nn

from mine_env.engine.constants import HIDDEN
from mine_env.env import PLANE_CODES


def one_hot_grid(grid: th.Tensor) -> th.Tensor:
    """One-hot planes (N, len(PLANE_CODES), H, W) of a batch of grids (N, H, W), any dtype."""
    codes = th.as_tensor(PLANE_CODES, dtype=grid.dtype, device=grid.device).view(1, -1, 1, 1)
    return (grid.unsqueeze(1) == codes).float()


def hidden_cells(grid: th.Tensor) -> th.Tensor:
    """Valid reveal actions derived from the grid itself: bool (N, H * W), True where a cell is hidden.

    With flags off this is exactly the env's action mask on any game in progress (a revealed cell is the
    only invalid reveal), which is why the masked DQN can recompute the next state's mask from the next
    observation instead of storing masks in its replay buffer.
    """
    return grid.flatten(1) == HIDDEN


class CellFeatures(BaseFeaturesExtractor):
    """Convolutional trunk: one-hot planes, then ``layers`` 3x3 same-padding convolutions with ReLU.

    The output keeps the board's shape (N, channels, H, W); ``features_dim`` is the channel count, the
    size of each cell's feature vector. Weights do not depend on the board size.
    """

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 64, layers: int = 4) -> None:
        if len(observation_space.shape) != 2:
            raise ValueError(f"CellFeatures reads the (rows, cols) grid, got shape {observation_space.shape}")
        if channels < 1 or layers < 1:
            raise ValueError(f"channels and layers must be positive, got {channels} and {layers}")
        super().__init__(observation_space, features_dim=channels)
        blocks: list[nn.Module] = []
        in_channels = len(PLANE_CODES)
        for _ in range(layers):
            blocks += [nn.Conv2d(in_channels, channels, kernel_size=3, padding=1), nn.ReLU()]
            in_channels = channels
        self.trunk = nn.Sequential(*blocks)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        # A channels-last input runs these small convolutions about twice as fast on CPU (oneDNN).
        return self.trunk(one_hot_grid(observations).contiguous(memory_format=th.channels_last))


class CellLogits(nn.Module):
    """A 1x1 convolution giving one score per cell, flattened row-major like the actions: (N, H * W)."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, 1, kernel_size=1)

    def forward(self, features: th.Tensor) -> th.Tensor:
        return self.conv(features).flatten(1)


class PooledValue(nn.Module):
    """Mean- and max-pooled cell features through one hidden layer: a board-size-free value latent."""

    def __init__(self, channels: int, hidden: int) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2 * channels, hidden), nn.ReLU())

    def forward(self, features: th.Tensor) -> th.Tensor:
        pooled = th.cat([features.mean(dim=(2, 3)), features.amax(dim=(2, 3))], dim=1)
        return self.net(pooled)


class ConvHeads(nn.Module):
    """Stands in for SB3's ``MlpExtractor``: the actor latent is already the per-cell logits."""

    def __init__(self, channels: int, value_hidden: int, n_actions: int) -> None:
        super().__init__()
        self.policy_head = CellLogits(channels)
        self.value_head = PooledValue(channels, value_hidden)
        self.latent_dim_pi = n_actions
        self.latent_dim_vf = value_hidden

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.policy_head(features)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_head(features)


class _ConvHeadsMixin:
    """Swaps SB3's MLP extractor and linear action head for :class:`ConvHeads` (shared by PPO and MaskablePPO).

    SB3 builds ``action_net`` as a linear layer from the actor latent to the actions; here the latent *is*
    the logits, so ``action_net`` becomes the identity and the optimizer is rebuilt without that layer.
    """

    features_dim: int
    action_space: gym.spaces.Discrete
    optimizer_class: type[th.optim.Optimizer]
    optimizer_kwargs: dict[str, Any]

    def __init__(self, *args: Any, value_hidden: int = 64, **kwargs: Any) -> None:
        self.value_hidden = value_hidden
        kwargs.setdefault("features_extractor_class", CellFeatures)
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ConvHeads(self.features_dim, self.value_hidden, int(self.action_space.n))

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)  # type: ignore[misc]
        self.action_net = nn.Identity()
        if self.ortho_init:  # type: ignore[attr-defined]
            nn.init.orthogonal_(self.mlp_extractor.policy_head.conv.weight, gain=0.01)
            nn.init.zeros_(self.mlp_extractor.policy_head.conv.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[attr-defined]

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()  # type: ignore[misc]
        data["value_hidden"] = self.value_hidden
        return data


class ConvActorCriticPolicy(_ConvHeadsMixin, ActorCriticPolicy):
    """PPO policy: :class:`CellFeatures` trunk, per-cell logits, pooled value. No masking."""


class MaskableConvActorCriticPolicy(_ConvHeadsMixin, MaskableActorCriticPolicy):
    """MaskablePPO policy: the same network; sb3-contrib applies the env's masks to its logits."""


class MaskedQNetwork(QNetwork):
    """Q-network with one Q-value per cell from a 1x1 convolution; its greedy action is always valid."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.q_net = CellLogits(self.features_dim)

    def _predict(self, observation: th.Tensor, deterministic: bool = True) -> th.Tensor:
        return masked_argmax(self(observation), hidden_cells(observation))


class MaskedDQNPolicy(DQNPolicy):
    """DQN policy over :class:`MaskedQNetwork` with the :class:`CellFeatures` trunk."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("features_extractor_class", CellFeatures)
        kwargs.setdefault("net_arch", [])
        super().__init__(*args, **kwargs)

    def make_q_net(self) -> MaskedQNetwork:
        net_args = self._update_features_extractor(self.net_args, features_extractor=None)
        return MaskedQNetwork(**net_args).to(self.device)


def masked_argmax(scores: th.Tensor, valid: th.Tensor) -> th.Tensor:
    """Index of the best valid score per row (row 0's action 0 if a row has no valid action)."""
    return scores.masked_fill(~valid, -th.inf).argmax(dim=1)


def action_scores(policy: Any, grids: np.ndarray) -> th.Tensor:
    """Per-action preferences of any policy here: Q-values for DQN, logits for (Maskable)PPO, (N, n_actions)."""
    obs, _ = policy.obs_to_tensor(grids)
    with th.no_grad():
        if isinstance(policy, DQNPolicy):
            return policy.q_net(obs)
        return policy.get_distribution(obs).distribution.logits

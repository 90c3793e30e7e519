"""The board networks as stable-baselines3 policies: fully convolutional, on the modules of :mod:`agents.networks`.

Every network here reads the int8 grid observation (``obs_mode="grid"``), one-hots it inside (cheaper
to store and to move than the float planes), and runs only convolutions over the cells, so its weights
fit any board size: the per-cell action logits and Q-values come from a 1x1 convolution, never from a
flat layer over the board, and the value comes from pooling over the cells.

- :class:`CellFeatures` / :class:`BoardFeatures`: the trunks of :mod:`agents.networks.trunks` as SB3 features
  extractors (their weights are the plain modules', key for key,
  so the model format saves them as they are).
- :class:`ConvActorCriticPolicy` / :class:`MaskableConvActorCriticPolicy`: PPO / MaskablePPO policies
  whose action logits are one conv channel per cell.
- :class:`MaskedDQNPolicy`: DQN policy whose Q-values are one conv channel per cell and whose greedy
  action never picks a revealed cell (see :mod:`train.sb3.dqn` for the masked target).

The plain pieces (``GlobalBias``, ``CellLogits``, ``one_hot_grid``, ...) live in :mod:`agents.networks` and are
named here too, where the saved training zips and the training code have always found them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork
from torch import nn

from agents.networks.layers import (
    CellLogits,
    CountRefinement,
    GlobalBias,
    GuessPreference,
    PooledValue,
    bounded_spread,
    hidden_cells,
    neighbour_sums,
    one_hot_grid,
    remaining_density,
)
from agents.networks.saved import risk_weighted
from agents.networks.trunks import BoardTrunk, CellTrunk, set_mine_count

__all__ = [
    "Bf16Preference", "BoardFeatures", "CellFeatures", "CellLogits", "ConvActorCriticPolicy", "ConvHeads",
    "CountRefinement", "GlobalBias", "GuessPreference", "MaskableConvActorCriticPolicy", "MaskedDQNPolicy",
    "MaskedQNetwork", "PooledValue", "action_scores", "check_grid_space", "hidden_cells", "masked_argmax",
    "neighbour_sums", "one_hot_grid", "remaining_density", "set_bf16", "set_mine_count",
]  # fmt: skip


def check_grid_space(observation_space: gym.spaces.Space, name: str) -> None:
    """ValueError unless the observation is the (rows, cols) grid every trunk reads."""
    shape = observation_space.shape
    if shape is None or len(shape) != 2:
        raise ValueError(f"{name} reads the (rows, cols) grid, got shape {shape}")


class _Bf16Passes:
    """A module (a trunk, or the convolutions of a head) that runs its passes under bfloat16 autocast while ``bf16``
    is set (:func:`set_bf16`) and hands its output on in float32, so that the distributions and the losses stay in
    float32."""

    bf16 = False

    def forward(self, first: th.Tensor, *rest: th.Tensor) -> th.Tensor:
        if not self.bf16:
            return super().forward(first, *rest)  # type: ignore[misc]
        with th.autocast(first.device.type, dtype=th.bfloat16):
            return super().forward(first, *rest).float()  # type: ignore[misc]


class Bf16Preference(_Bf16Passes, GuessPreference):
    """:class:`~agents.networks.layers.GuessPreference` (its weights key for key) whose two 3x3 convolutions, as
    costly as two of a small trunk's layers, run under bfloat16 autocast beside the trunk's."""


def set_bf16(policy: nn.Module, enabled: bool) -> None:
    """Run the trunks of ``policy`` (a PPO, MaskablePPO or DQN policy of this module), and its guess preference if
    it has one, under bfloat16 autocast, or not: a setting of the run, not of the saved model (an attribute, not a
    constructor argument)."""
    for module in policy.modules():
        if isinstance(module, _Bf16Passes):
            module.bf16 = enabled


class CellFeatures(_Bf16Passes, CellTrunk):
    """:class:`~agents.networks.trunks.CellTrunk` as an SB3 features extractor (the observation space first)."""

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 64, layers: int = 4) -> None:
        check_grid_space(observation_space, "CellFeatures")
        super().__init__(channels, layers)


class BoardFeatures(_Bf16Passes, BoardTrunk):
    """:class:`~agents.networks.trunks.BoardTrunk` as an SB3 features extractor (the observation space first)."""

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 48,
                 dilations: Sequence[int] = (1, 1, 1, 2, 2, 1, 1), mines: int = 10, pooled: Sequence[int] = (),
                 refine: int = 0) -> None:  # fmt: skip
        check_grid_space(observation_space, "BoardFeatures")
        super().__init__(channels, dilations, mines, pooled, refine)


class ConvHeads(nn.Module):
    """Stands in for SB3's ``MlpExtractor``: the actor latent is already the per-cell logits (the safety logits,
    plus a :class:`GuessPreference` when ``preference_bound`` is above 0). With ``mine_head``, a second 1x1
    head beside them predicts each cell's true mine (trained by :mod:`train.sb3.mine_head`). Play reads it only
    with ``mine_prior``: the safety logits are then the policy head's minus the mine head's, so the policy starts
    from the cells the head finds safest and RL learns what to prefer among them. With ``detach_prior`` the policy's
    gradient stops at the mine head's output: the head stays an estimator of the true mines (its own loss alone
    trains it), and the policy head learns only the offset RL finds against it. With ``prior_only`` the policy head is
    left out: the safety logits are the mine head's alone, and RL learns only the bounded preference
    (``preference_bound``) among the cells it finds nearly equally safe, as the DQN's bounded advantage does.
    ``prior_scale`` multiplies the mine head's logits in the prior: above 1 the sampled policy keeps closer to the
    head's safest cells (its greedy play is the same), so training games reach the later stages greedy play
    reaches."""

    def __init__(
        self, channels: int, value_hidden: int, n_actions: int, preference_bound: float = 0.0, mine_head: bool = False,
        mine_prior: bool = False, detach_prior: bool = False, prior_only: bool = False, prior_scale: float = 1.0,
    ) -> None:  # fmt: skip
        if prior_scale != 1.0 and not mine_prior:
            raise ValueError("prior_scale weighs the mine prior: give mine_prior too")
        if prior_only and not (mine_prior and preference_bound):
            raise ValueError("prior_only plays the mine prior plus a bounded preference: give mine_prior and "
                             "preference_bound above 0 too")  # fmt: skip
        if mine_prior and not mine_head:
            raise ValueError("mine_prior needs the mine head (mine_head=True)")
        if detach_prior and not mine_prior:
            raise ValueError("detach_prior acts on the mine prior (mine_prior=True)")
        super().__init__()
        self.policy_head = CellLogits(channels)
        self.value_head = PooledValue(channels, value_hidden)
        self.preference = Bf16Preference(channels, preference_bound) if preference_bound else None
        self.mine_head = CellLogits(channels) if mine_head else None
        self.mine_prior = mine_prior
        self.detach_prior = detach_prior
        self.prior_only = prior_only
        self.prior_scale = prior_scale
        self.latent_dim_pi = n_actions
        self.latent_dim_vf = value_hidden

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        if self.mine_prior:
            assert self.mine_head is not None
            mines = self.mine_head(features)
            prior = -self.prior_scale * (mines.detach() if self.detach_prior else mines)
            safety = prior if self.prior_only else self.policy_head(features) + prior
        else:
            safety = self.policy_head(features)
        if self.preference is None:
            return safety
        return safety + self.preference(features, safety)

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

    def __init__(
        self, *args: Any, value_hidden: int = 64, preference_bound: float = 0.0, mine_head: bool = False,
        mine_prior: bool = False, detach_prior: bool = False, prior_only: bool = False, prior_scale: float = 1.0,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        self.value_hidden = value_hidden
        self.preference_bound = preference_bound
        self.mine_head = mine_head
        self.mine_prior = mine_prior
        self.detach_prior = detach_prior
        self.prior_only = prior_only
        self.prior_scale = prior_scale
        kwargs.setdefault("features_extractor_class", CellFeatures)
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ConvHeads(self.features_dim, self.value_hidden, int(self.action_space.n),
                                       self.preference_bound, self.mine_head, self.mine_prior,
                                       self.detach_prior, self.prior_only, self.prior_scale)  # fmt: skip

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)  # type: ignore[misc]
        self.action_net = nn.Identity()
        if self.ortho_init:  # type: ignore[attr-defined]
            nn.init.orthogonal_(self.mlp_extractor.policy_head.conv.weight, gain=0.01)
            nn.init.zeros_(self.mlp_extractor.policy_head.conv.bias)
        if self.mlp_extractor.preference is not None:
            self.mlp_extractor.preference.start_neutral()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[attr-defined]

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()  # type: ignore[misc]
        data["value_hidden"] = self.value_hidden
        if self.preference_bound:  # a model saved without the head loads in older versions too
            data["preference_bound"] = self.preference_bound
        if self.mine_head:
            data["mine_head"] = True
        if self.mine_prior:
            data["mine_prior"] = True
        if self.detach_prior:
            data["detach_prior"] = True
        if self.prior_only:
            data["prior_only"] = True
        if self.prior_scale != 1.0:
            data["prior_scale"] = self.prior_scale
        return data

    def cell_logits(self, obs: th.Tensor) -> th.Tensor:
        """The actor's logits (N, H * W) before the distribution normalises them: what the saved model plays
        (:func:`train.sb3.export.playing_network`), and what a mark threshold reads as a mine chance."""
        features = self.extract_features(obs)  # type: ignore[attr-defined]
        return self.mlp_extractor.forward_actor(features if self.share_features_extractor else features[0])  # type: ignore[attr-defined]

    def mine_logits(self, obs: th.Tensor) -> th.Tensor:
        """The mine head's logits (N, H * W) on the actor's trunk alone: the replay's extra steps
        (:mod:`train.sb3.mine_replay`) need neither the policy's distribution nor the value."""
        heads = self.mlp_extractor
        if heads.mine_head is None:
            raise ValueError("this policy has no mine head: train with --mine-coef above 0")
        features = self.extract_features(obs)  # type: ignore[attr-defined]
        return heads.mine_head(features if self.share_features_extractor else features[0])  # type: ignore[attr-defined]

    def evaluate_with_mines(
        self, obs: th.Tensor, actions: th.Tensor, action_masks: th.Tensor | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor | None]:
        """``evaluate_actions`` (values, log-probabilities, entropies) in one pass with the mine head's logits
        (N, H * W) on the actor's trunk, or None without the head. ``action_masks`` only for MaskablePPO."""
        features = self.extract_features(obs)  # type: ignore[attr-defined]
        if self.share_features_extractor:  # type: ignore[attr-defined]
            actor_features = critic_features = features
        else:
            actor_features, critic_features = features
        heads = self.mlp_extractor
        distribution = self._get_action_dist_from_latent(heads.forward_actor(actor_features))  # type: ignore[attr-defined]
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        values = self.value_net(heads.forward_critic(critic_features))  # type: ignore[attr-defined]
        mines = None if heads.mine_head is None else heads.mine_head(actor_features)
        return values, distribution.log_prob(actions), distribution.entropy(), mines


class ConvActorCriticPolicy(_ConvHeadsMixin, ActorCriticPolicy):
    """PPO policy: :class:`CellFeatures` trunk, per-cell logits, pooled value. No masking."""


class MaskableConvActorCriticPolicy(_ConvHeadsMixin, MaskableActorCriticPolicy):
    """MaskablePPO policy: the same network; sb3-contrib applies the env's masks to its logits."""


class MaskedQNetwork(QNetwork):
    """Q-network with one Q-value per cell from a 1x1 convolution; its greedy action is always valid. With
    ``mine_head``, a second 1x1 head on the same trunk predicts each cell's true mine (trained by
    :mod:`train.sb3.mine_head`). Play reads it only with ``mine_prior``: each Q-value is then composed from the
    cell's chance of a mine ``p`` and the first head's return if the cell is safe ``U``, as
    ``p * loss_reward + (1 - p) * U`` (a step onto a mine ends the game with ``loss_reward``), so the first head
    learns only what a safe step is worth (:meth:`train.sb3.dqn.MaskedDQN.train`). With ``advantage_bound`` above 0,
    ``U`` is a dueling split whose advantages are held small (:func:`~agents.networks.layers.bounded_spread`): the
    board's level of ``U`` is free, a cell's ``U`` lies within the bound of it, so ``U``'s errors from cell to cell
    cannot outweigh large differences of ``p``."""

    def __init__(self, *args: Any, mine_head: bool = False, mine_prior: bool = False, loss_reward: float = -1.0,
                 advantage_bound: float = 0.0, **kwargs: Any) -> None:  # fmt: skip
        if mine_prior and not mine_head:
            raise ValueError("mine_prior needs the mine head (mine_head=True)")
        if advantage_bound < 0 or (advantage_bound and not mine_prior):
            raise ValueError(f"advantage_bound bounds the return if safe: 0, or above 0 with mine_prior "
                             f"(got {advantage_bound})")  # fmt: skip
        super().__init__(*args, **kwargs)
        self.q_net = CellLogits(self.features_dim)
        self.mine_head = CellLogits(self.features_dim) if mine_head else None
        self.mine_prior = mine_prior
        self.loss_reward = loss_reward
        self.advantage_bound = advantage_bound

    def forward(self, obs: th.Tensor) -> th.Tensor:
        if not self.mine_prior:
            return super().forward(obs)
        safe_returns, mine_logits = self.forward_with_mines(obs)
        assert mine_logits is not None
        return risk_weighted(safe_returns, mine_logits, self.loss_reward)

    def forward_with_mines(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor | None]:
        """The first head's values (N, H * W: the Q-values, or with ``mine_prior`` the returns if safe) and, in the
        same pass, the mine head's logits (None without the head)."""
        features = self.extract_features(obs, self.features_extractor)
        values = self.q_net(features)
        if self.advantage_bound:
            values = bounded_spread(values, hidden_cells(obs), self.advantage_bound)
        return values, None if self.mine_head is None else self.mine_head(features)

    def _predict(self, observation: th.Tensor, deterministic: bool = True) -> th.Tensor:
        return masked_argmax(self(observation), hidden_cells(observation))


class MaskedDQNPolicy(DQNPolicy):
    """DQN policy over :class:`MaskedQNetwork` with the :class:`CellFeatures` trunk (and its mine head with
    ``mine_head``)."""

    def __init__(self, *args: Any, mine_head: bool = False, mine_prior: bool = False, loss_reward: float = -1.0,
                 advantage_bound: float = 0.0, **kwargs: Any) -> None:  # fmt: skip
        self.mine_head = mine_head
        self.mine_prior = mine_prior
        self.loss_reward = loss_reward
        self.advantage_bound = advantage_bound
        kwargs.setdefault("features_extractor_class", CellFeatures)
        kwargs.setdefault("net_arch", [])
        super().__init__(*args, **kwargs)

    def make_q_net(self) -> MaskedQNetwork:
        net_args = self._update_features_extractor(self.net_args, features_extractor=None)
        network = MaskedQNetwork(**net_args, mine_head=self.mine_head, mine_prior=self.mine_prior,
                                 loss_reward=self.loss_reward, advantage_bound=self.advantage_bound)  # fmt: skip
        return network.to(self.device)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        if self.mine_head:  # a model saved without the head loads in older versions too
            data["mine_head"] = True
        if self.mine_prior:
            data.update(mine_prior=True, loss_reward=self.loss_reward)
        if self.advantage_bound:
            data["advantage_bound"] = self.advantage_bound
        return data


def damp_residual_trunks(network: nn.Module) -> None:
    """Damp every residual trunk in ``network`` for learning from scratch (:meth:`BoardTrunk.damp_residuals`)."""
    for module in network.modules():
        if isinstance(module, BoardFeatures):
            module.damp_residuals()


def masked_argmax(scores: th.Tensor, valid: th.Tensor) -> th.Tensor:
    """Index of the best valid score per row (row 0's action 0 if a row has no valid action)."""
    return scores.masked_fill(~valid, -th.inf).argmax(dim=1)


def cell_logits(policy: Any, grids: np.ndarray) -> th.Tensor:
    """An actor-critic policy's raw logits (N, n_actions) of a batch of grids, as its saved model scores them:
    :func:`action_scores` up to a constant a row (those are the distribution's normalised log-probabilities)."""
    obs, _ = policy.obs_to_tensor(grids)
    with th.no_grad():
        return policy.cell_logits(obs)


def action_scores(policy: Any, grids: np.ndarray) -> th.Tensor:
    """Per-action preferences of any policy here: Q-values for DQN, logits for (Maskable)PPO, (N, n_actions)."""
    obs, _ = policy.obs_to_tensor(grids)
    with th.no_grad():
        if isinstance(policy, DQNPolicy):
            return policy.q_net(obs)
        return policy.get_distribution(obs).distribution.logits

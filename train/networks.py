"""Fully convolutional networks over the board, in the shapes stable-baselines3 accepts.

Every network here reads the int8 grid observation (``obs_mode="grid"``), one-hots it inside (cheaper
to store and to move than the float planes), and runs only convolutions over the cells, so its weights
fit any board size: the per-cell action logits and Q-values come from a 1x1 convolution, never from a
flat layer over the board, and the value comes from pooling over the cells.

- :class:`CellFeatures`: the trunk, a ``BaseFeaturesExtractor`` returning a feature map (N, C, H, W).
- :class:`BoardFeatures`: the deeper trunk the oracle is distilled into (:mod:`train.distill`): it also sees the
  remaining-mine density and the board's edge, and its dilated residual layers reach far enough to read
  what decides a cell's mine probability.
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
import torch.nn.functional as F
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork
from torch import nn

from mine_env.engine.constants import FLAG, HIDDEN, MINE
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


class GlobalBias(nn.Module):
    """Global pooling for a residual block: every channel's mean, maximum and sum (per 256 cells) over the board,
    mapped by a linear layer to a bias added to every cell's channels.

    A convolution only sees its receptive field; what the endgame turns on is global: how many of the remaining
    mines the frontier holds, so whether the cells no number touches can hold the rest. A pooled bias gives
    every cell such board-wide sums in one block, on any board size. Growing a trained network into one with
    global pooling (:mod:`train.grow`) starts these weights at zero, so the network computes what it did before.
    """

    POOLS = 3
    """mean, max and sum / 256 of each channel."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.linear = nn.Linear(self.POOLS * channels, channels)

    def forward(self, features: th.Tensor) -> th.Tensor:
        total = features.sum(dim=(2, 3))
        mean = total / (features.shape[2] * features.shape[3])
        pooled = th.cat([mean, features.amax(dim=(2, 3)), total / 256.0], dim=1)
        return self.linear(pooled)[:, :, None, None]


def neighbour_sums(planes: th.Tensor) -> th.Tensor:
    """Each cell's sum over its 3x3 block, itself included, of every plane (N, C, H, W); zero beyond the board."""
    kernel = planes.new_ones(planes.shape[1], 1, 3, 3)
    return F.conv2d(planes, kernel, padding=1, groups=planes.shape[1])


class CountRefinement(nn.Module):
    """One pass of checking a draft of the mine chances against the numbers and the mine count, then correcting.

    A convolution learns the constraints only as patterns; it cannot add up its own beliefs. This pass makes the
    sums explicit: from the features it drafts every covered cell's mine chance ``q`` (a 1x1 head), then measures
    what the draft gets wrong, exactly as a player checks a guess:

    - every number's residual: the number minus its neighbours' summed ``q`` (0 where the draft fits it);
    - for every cell, the summed residuals of the numbers around it, their absolute values, and the residuals
      shared out over each number's covered cells (the correction a single-cell rule would make);
    - the board's residual: the mines left minus the draft's summed ``q`` (where the endgame is decided), as a
      count and per covered cell, and which covered cells no number touches (where that rest must go).

    These :attr:`PLANES` and the features go through two 3x3 convolutions to an update of the features. A trained
    network grown into one with this pass (:mod:`train.grow`) starts with the update at zero, so it computes what it
    did before it learns to use the checks. The same pass runs ``refine`` times, each
    on the draft of the last: the corrections can travel along the frontier like rounds of deduction.
    """

    PLANES = 7
    """the draft, the neighbours' residual sum, absolute sum and shared-out sum, the board's residual, it per
    covered cell, the untouched covered cells."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.draft = nn.Conv2d(channels, 1, kernel_size=1)
        self.mix = nn.Conv2d(channels + self.PLANES, channels, kernel_size=3, padding=1)
        self.reach = nn.Conv2d(channels, channels, kernel_size=3, padding=2, dilation=2)
        self.update = nn.Conv2d(channels, channels, kernel_size=1)

    def forward(self, features: th.Tensor, planes: th.Tensor) -> th.Tensor:
        """Refined features (N, C, H, W) from ``features`` and the planes of :meth:`BoardFeatures.input_planes`."""
        checks = self.count_planes(self.draft(features), planes)
        hidden = th.relu(self.mix(th.cat([features, checks.to(features.dtype)], dim=1)))
        hidden = th.relu(hidden + self.reach(hidden))
        return th.relu(features + self.update(hidden))

    @staticmethod
    def count_planes(draft_logits: th.Tensor, planes: th.Tensor) -> th.Tensor:
        """The :attr:`PLANES` (N, 7, H, W) measuring the draft's safety logits (N, 1, H, W) against the numbers
        and the mine count read from the input ``planes`` (one-hot codes, on-board, density)."""
        codes = planes[:, : len(PLANE_CODES)]
        covered = codes[:, PLANE_CODES.index(HIDDEN)] + codes[:, PLANE_CODES.index(FLAG)]
        shown = codes[:, PLANE_CODES.index(MINE)]
        first_number = PLANE_CODES.index(0)
        numbered = codes[:, first_number:].sum(dim=1)
        values = th.arange(9, dtype=planes.dtype, device=planes.device).view(1, -1, 1, 1)
        number = (codes[:, first_number:] * values).sum(dim=1)
        chance = th.sigmoid(-draft_logits[:, 0]) * covered
        sums = neighbour_sums(th.stack([chance + shown, covered, numbered], dim=1))
        residual = (number - sums[:, 0]) * numbered
        shared = residual / sums[:, 1].clamp(min=1.0)
        spread = neighbour_sums(th.stack([residual, residual.abs(), shared], dim=1)) * covered.unsqueeze(1)
        covered_total = covered.sum(dim=(1, 2), keepdim=True)
        mines_left = planes[:, -1, :1, :1] * covered_total
        board_residual = (mines_left - chance.sum(dim=(1, 2), keepdim=True)).expand_as(chance)
        per_cell = board_residual / covered_total.clamp(min=1.0)
        untouched = covered * (sums[:, 2] == 0).to(planes.dtype)
        return th.cat([chance.unsqueeze(1), spread, th.stack([board_residual, per_cell, untouched], dim=1)], dim=1)


class BoardFeatures(BaseFeaturesExtractor):
    """The distillation trunk: one-hot planes plus an on-board plane and a remaining-mine density plane, a 3x3
    convolution, then one residual 3x3 convolution per entry of ``dilations``.

    Why these inputs: a cell's exact mine probability depends on the numbers around it and, through the
    unconstrained cells, on how many mines are left per hidden cell (the density: a constant plane, so the
    same weights serve every board and mine count), and near a side on the edge itself (the on-board plane
    is 1 on the board and the convolutions' zero padding makes it 0 beyond, so every layer sees the edge).
    Why this depth: the probability of a cell is settled by the numbers around it, the numbers sharing
    cells with those, and so on along the frontier; the receptive field is
    ``3 + 2 * sum(dilations)`` cells wide (21 for the default ``(1, 1, 1, 2, 2, 1, 1)``), the whole of a
    beginner board from any cell and chains of five to ten frontier cells on the larger boards, while the
    dilation-1 layers at both ends keep every cell's own 3x3 block exact.

    ``pooled``: the blocks (indices into ``dilations``) that add a :class:`GlobalBias` of board-wide sums.
    ``refine``: how many times the trunk's features then pass through one :class:`CountRefinement` (the same
    weights each time), which checks a draft of the mine chances against the numbers and the mine count.

    ``mines`` is the total mine count the density is measured against; :meth:`set_mine_count` changes it
    when the same weights play another board (``eval`` tells it the game's mine count).
    """

    reads_mine_count = True
    """Marks a network whose input needs the game's total mine count (see :meth:`set_mine_count`)."""

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        channels: int = 48,
        dilations: tuple[int, ...] = (1, 1, 1, 2, 2, 1, 1),
        mines: int = 10,
        pooled: tuple[int, ...] = (),
        refine: int = 0,
    ) -> None:
        if len(observation_space.shape) != 2:
            raise ValueError(f"BoardFeatures reads the (rows, cols) grid, got shape {observation_space.shape}")
        if channels < 1 or not dilations or min(dilations) < 1:
            raise ValueError(f"channels and every dilation must be positive, got {channels} and {dilations}")
        if any(not 0 <= index < len(dilations) for index in pooled) or len(set(pooled)) != len(pooled):
            raise ValueError(f"pooled blocks must be distinct indices of the {len(dilations)} blocks, got {pooled}")
        if refine < 0:
            raise ValueError(f"refine must be 0 or more passes, got {refine}")
        super().__init__(observation_space, features_dim=channels)
        self.mines = int(mines)
        self.dilations = tuple(int(d) for d in dilations)
        self.pooled = tuple(sorted(int(index) for index in pooled))
        self.stem = nn.Conv2d(len(PLANE_CODES) + 2, channels, kernel_size=3, padding=1)
        self.blocks = nn.ModuleList(
            nn.Conv2d(channels, channels, kernel_size=3, padding=d, dilation=d) for d in self.dilations
        )
        self.global_biases = nn.ModuleDict({str(index): GlobalBias(channels) for index in self.pooled})
        self.refine = int(refine)
        self.refinement = CountRefinement(channels) if self.refine else None

    def set_mine_count(self, mines: int) -> None:
        """The total mine count of the boards played from now on."""
        self.mines = int(mines)

    def damp_residuals(self) -> None:
        """Re-initialise the residual updates (blocks and pooled biases) orthogonally with gain sqrt(2 / blocks),
        biases zero, for reinforcement learning from scratch: SB3's orthogonal initialisation with gain sqrt(2) on
        every block multiplied the features' scale by about 50 over nine blocks (first values of 4 to 8 against
        rewards of +-1), this keeps it within about twice the stem's."""
        gain = (2.0 / len(self.blocks)) ** 0.5
        for layer in [*self.blocks, *(bias.linear for bias in self.global_biases.values())]:
            nn.init.orthogonal_(layer.weight, gain=gain)
            nn.init.zeros_(layer.bias)

    def input_planes(self, grid: th.Tensor, density: th.Tensor | None = None) -> th.Tensor:
        """The input (N, len(PLANE_CODES) + 2, H, W): one-hot codes, on-board ones, remaining-mine density.

        ``density`` (N,) overrides the one measured on ``grid`` (a crop of a larger board carries its board's).
        """
        planes = one_hot_grid(grid)
        if density is None:
            density = remaining_density(grid, self.mines)
        density_plane = density.view(-1, 1, 1, 1).expand(-1, 1, *grid.shape[1:])
        return th.cat([planes, th.ones_like(planes[:, :1]), density_plane.to(planes.dtype)], dim=1)

    def trunk(self, planes: th.Tensor) -> th.Tensor:
        features = th.relu(self.stem(planes.contiguous(memory_format=th.channels_last)))
        for index, block in enumerate(self.blocks):
            update = block(features)
            if str(index) in self.global_biases:
                update = update + self.global_biases[str(index)](features)
            features = th.relu(features + update)
        for _ in range(self.refine):
            features = self.refinement(features, planes)
        return features

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return self.trunk(self.input_planes(observations))


def remaining_density(grid: th.Tensor, mines: int) -> th.Tensor:
    """Mines not yet shown per covered cell (hidden or flagged) of each grid in a batch: (N,) float."""
    covered = ((grid == HIDDEN) | (grid == FLAG)).flatten(1).sum(dim=1)
    shown = (grid == MINE).flatten(1).sum(dim=1)
    return (mines - shown).float() / covered.clamp(min=1).float()


def set_mine_count(policy: nn.Module, mines: int) -> None:
    """Tell every part of ``policy`` that reads the mine count (:class:`BoardFeatures`) the game's count."""
    for module in policy.modules():
        if getattr(module, "reads_mine_count", False):
            module.set_mine_count(mines)


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


class GuessPreference(nn.Module):
    """A bounded bonus on the safety logits: which of several nearly equally safe cells to guess.

    A distilled network ranks cells by their chance of a mine alone, so among the safest cells of a true guess
    (where several cells often tie) it picks by noise. The default solver picks the
    one whose number tells most (:mod:`mine_env.analysis.guess`). This head learns that choice from the features
    and from each cell's gap to the board's safest logit, and adds at most ``bound`` to a cell's logit: enough
    to reorder near-ties, never to put a risky cell above a certainly safe one (logits tens apart). Its last
    layer starts at zero, so a network given the head plays as it did until the head is trained
    (:mod:`train.guess_preference`); the chances it predicts (the policy head) never change.
    """

    def __init__(self, channels: int, bound: float, hidden: int = 32) -> None:
        super().__init__()
        if not bound > 0:
            raise ValueError(f"a guess preference's bound must be above 0, got {bound}")
        self.bound = bound
        self.net = nn.Sequential(
            nn.Conv2d(channels + 1, hidden, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(hidden, hidden, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(hidden, 1, kernel_size=1),
        )  # fmt: skip
        self.start_neutral()

    def start_neutral(self) -> None:
        """Zero the last layer: no bonus anywhere until trained (SB3's orthogonal initialisation undoes it, so
        the policy calls this again once built)."""
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, features: th.Tensor, safety: th.Tensor) -> th.Tensor:
        """The bonus (N, H * W) of every cell, from the trunk's ``features`` and the head's ``safety`` logits."""
        gap = safety - safety.amax(dim=1, keepdim=True)
        planes = th.cat([features, gap.view(features.shape[0], 1, *features.shape[2:])], dim=1)
        return self.bound * th.tanh(self.net(planes)).flatten(1)


class ConvHeads(nn.Module):
    """Stands in for SB3's ``MlpExtractor``: the actor latent is already the per-cell logits (the safety logits,
    plus a :class:`GuessPreference` when ``preference_bound`` is above 0). With ``mine_head``, a second 1x1
    head beside them predicts each cell's true mine (trained by :mod:`train.mine_head`; play never reads it)."""

    def __init__(
        self, channels: int, value_hidden: int, n_actions: int, preference_bound: float = 0.0, mine_head: bool = False
    ) -> None:
        super().__init__()
        self.policy_head = CellLogits(channels)
        self.value_head = PooledValue(channels, value_hidden)
        self.preference = GuessPreference(channels, preference_bound) if preference_bound else None
        self.mine_head = CellLogits(channels) if mine_head else None
        self.latent_dim_pi = n_actions
        self.latent_dim_vf = value_hidden

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
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
        self, *args: Any, value_hidden: int = 64, preference_bound: float = 0.0, mine_head: bool = False, **kwargs: Any
    ) -> None:
        self.value_hidden = value_hidden
        self.preference_bound = preference_bound
        self.mine_head = mine_head
        kwargs.setdefault("features_extractor_class", CellFeatures)
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ConvHeads(self.features_dim, self.value_hidden, int(self.action_space.n),
                                       self.preference_bound, self.mine_head)  # fmt: skip

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
        return data

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

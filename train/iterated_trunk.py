"""A weight-tied iterated trunk: one residual block applied again and again, the input recalled at every pass.

A cell's exact mine chance is settled by chains of constraints: the numbers around it, the numbers sharing cells
with those, and so on along the frontier, then the mines left over the cells no number touches. A stack of
distinct layers reads chains as long as its depth; one block applied ``k`` times reads chains ``k`` long with
the weights of one, and can be run for more passes than it was trained with, on a larger board, to think longer
(the recurrent "logical extrapolation" networks of Bansal et al., 2022, which also feed the input to every pass
so that late passes do not forget the question). Each pass here:

    update = conv2(relu(conv1([relu(h), x]))) + global_bias(relu(h))
    h = h + update

``x`` are the input planes (:meth:`train.networks.BoardFeatures.input_planes`: the one-hot grid, the board's
edge, the remaining-mine density), ``global_bias`` the board-wide means, maxima and sums of the features
(:class:`train.networks.GlobalBias`) that the mine count turns on. The features returned are ``relu(h)`` after
the passes asked for; :meth:`IteratedFeatures.stages` returns them after several pass counts at once, for a loss
at several depths, so that every depth is a usable answer and more passes refine it.

The class is a stable-baselines3 features extractor like :class:`train.networks.BoardFeatures` (it has the same
``input_planes``, ``trunk``, ``reads_mine_count`` and ``set_mine_count``), so a distilled model built on it is a
MaskablePPO zip that ``minesweeper eval --model`` plays.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium as gym
import torch as th
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from mine_env.env import PLANE_CODES
from train.networks import GlobalBias, one_hot_grid, remaining_density

INPUT_PLANES = len(PLANE_CODES) + 2
"""The one-hot codes, the on-board plane and the remaining-mine density (as :class:`BoardFeatures` reads them)."""


class IteratedFeatures(BaseFeaturesExtractor):
    """Stem 3x3 convolution, then ``passes`` passes of one residual block (see the module docstring).

    Args:
        observation_space: The (rows, cols) grid observation.
        channels: Features per cell.
        passes: Passes of the block when the network plays (``set_passes`` changes it; the weights do not).
        mines: The total mine count the density plane is measured against (``set_mine_count``).
    """

    reads_mine_count = True
    """Marks a network whose input needs the game's total mine count (see :meth:`set_mine_count`)."""

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 96, passes: int = 12,
                 mines: int = 10) -> None:  # fmt: skip
        if len(observation_space.shape) != 2:
            raise ValueError(f"IteratedFeatures reads the (rows, cols) grid, got shape {observation_space.shape}")
        if channels < 1 or passes < 1:
            raise ValueError(f"channels and passes must be positive, got {channels} and {passes}")
        super().__init__(observation_space, features_dim=channels)
        self.mines = int(mines)
        self.passes = int(passes)
        self.stem = nn.Conv2d(INPUT_PLANES, channels, kernel_size=3, padding=1)
        self.recall = nn.Conv2d(channels + INPUT_PLANES, channels, kernel_size=3, padding=1)
        self.mix = nn.Conv2d(channels, channels, kernel_size=3, padding=1)
        self.global_bias = GlobalBias(channels)
        with th.no_grad():  # small first updates: many passes of a fresh block stay in range
            self.mix.weight.mul_(0.1)
            self.mix.bias.zero_()

    def set_mine_count(self, mines: int) -> None:
        """The total mine count of the boards played from now on."""
        self.mines = int(mines)

    def set_passes(self, passes: int) -> None:
        """Passes of the block from now on (more passes: longer chains read, at more cost)."""
        if passes < 1:
            raise ValueError(f"passes must be at least 1, got {passes}")
        self.passes = int(passes)

    def input_planes(self, grid: th.Tensor, density: th.Tensor | None = None) -> th.Tensor:
        """The input (N, INPUT_PLANES, H, W); ``density`` (N,) overrides the one measured on ``grid``."""
        planes = one_hot_grid(grid)
        if density is None:
            density = remaining_density(grid, self.mines)
        density_plane = density.view(-1, 1, 1, 1).expand(-1, 1, *grid.shape[1:])
        return th.cat([planes, th.ones_like(planes[:, :1]), density_plane.to(planes.dtype)], dim=1)

    def step(self, hidden: th.Tensor, planes: th.Tensor) -> th.Tensor:
        """One pass of the block."""
        active = th.relu(hidden)
        update = self.mix(th.relu(self.recall(th.cat([active, planes], dim=1))))
        return hidden + update + self.global_bias(active)

    def stages(self, planes: th.Tensor, depths: Sequence[int]) -> list[th.Tensor]:
        """The features after each pass count of ``depths`` (ascending), in one run of ``max(depths)`` passes."""
        planes = planes.contiguous(memory_format=th.channels_last)
        hidden = self.stem(planes)
        wanted = sorted(set(depths))
        out: list[th.Tensor] = []
        for index in range(1, wanted[-1] + 1):
            hidden = self.step(hidden, planes)
            if index in wanted:
                out.append(th.relu(hidden))
        return out

    def trunk(self, planes: th.Tensor) -> th.Tensor:
        return self.stages(planes, [self.passes])[0]

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return self.trunk(self.input_planes(observations))

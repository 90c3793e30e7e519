"""The trunks: grid (N, H, W) in, a feature map (N, C, H, W) out, with the same weights on any board size.

- :class:`CellTrunk`: one-hot planes through a stack of 3x3 convolutions (the reinforcement-learning agents).
- :class:`BoardTrunk`: the deeper trunk the oracle is distilled into (:mod:`train.distill`): it also sees the
  remaining-mine density and the board's edge, and its dilated residual layers reach far enough to read what
  decides a cell's mine probability.
- :class:`IteratedTrunk`: one residual block applied again and again, the input recalled at every pass
  (:mod:`train.distill.stream.run`).
- :class:`TaperedTrunk`: normalised residual blocks whose widths taper (64 channels down to 2 by default): the
  small network that plays with marks (:mod:`agents.marks`) and trains on a CPU.

Each declares ``features_dim`` (its channels), which with its constructor taking the observation space first is all
stable-baselines3 asks of a features extractor: :mod:`train.sb3.networks` subclasses these for its policies, so a
policy's trunk weights are exactly these modules' (no key is renamed between a training zip and the model format).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch as th
from torch import nn

from agents.networks.layers import PLANE_CODES, CountRefinement, GlobalBias, one_hot_grid, remaining_density
from mine_env.engine.constants import FLAG, HIDDEN

BOARD_PLANES = len(PLANE_CODES) + 2
"""The one-hot codes, the on-board plane and the remaining-mine density: the input of the mine-counting trunks."""


def board_planes(grid: th.Tensor, mines: int, density: th.Tensor | None = None) -> th.Tensor:
    """The input (N, BOARD_PLANES, H, W) of :class:`BoardTrunk` and :class:`IteratedTrunk`: one-hot codes, on-board
    ones, remaining-mine density. ``density`` (N,) overrides the one measured on ``grid`` (a crop of a larger board
    carries its board's)."""
    planes = one_hot_grid(grid)
    if density is None:
        density = remaining_density(grid, mines)
    density_plane = density.view(-1, 1, 1, 1).expand(-1, 1, *grid.shape[1:])
    return th.cat([planes, th.ones_like(planes[:, :1]), density_plane.to(planes.dtype)], dim=1)


class CellTrunk(nn.Module):
    """One-hot planes, then ``layers`` 3x3 same-padding convolutions with ReLU: (N, channels, H, W)."""

    def __init__(self, channels: int = 64, layers: int = 4) -> None:
        if channels < 1 or layers < 1:
            raise ValueError(f"channels and layers must be positive, got {channels} and {layers}")
        super().__init__()
        self.features_dim = channels
        self.layers = layers
        blocks: list[nn.Module] = []
        in_channels = len(PLANE_CODES)
        for _ in range(layers):
            blocks += [nn.Conv2d(in_channels, channels, kernel_size=3, padding=1), nn.ReLU()]
            in_channels = channels
        self.trunk = nn.Sequential(*blocks)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        # A channels-last input runs these small convolutions about twice as fast on CPU (oneDNN).
        return self.trunk(one_hot_grid(observations).contiguous(memory_format=th.channels_last))


class BoardTrunk(nn.Module):
    """The distillation trunk: :func:`board_planes`, a 3x3 convolution, then one residual 3x3 convolution per entry of
    ``dilations``.

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

    def __init__(self, channels: int = 48, dilations: Sequence[int] = (1, 1, 1, 2, 2, 1, 1), mines: int = 10,
                 pooled: Sequence[int] = (), refine: int = 0) -> None:  # fmt: skip
        if channels < 1 or not dilations or min(dilations) < 1:
            raise ValueError(f"channels and every dilation must be positive, got {channels} and {dilations}")
        if any(not 0 <= index < len(dilations) for index in pooled) or len(set(pooled)) != len(pooled):
            raise ValueError(f"pooled blocks must be distinct indices of the {len(dilations)} blocks, got {pooled}")
        if refine < 0:
            raise ValueError(f"refine must be 0 or more passes, got {refine}")
        super().__init__()
        self.features_dim = channels
        self.mines = int(mines)
        self.dilations = tuple(int(d) for d in dilations)
        self.pooled = tuple(sorted(int(index) for index in pooled))
        self.stem = nn.Conv2d(BOARD_PLANES, channels, kernel_size=3, padding=1)
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
        """:func:`board_planes` of ``grid`` with this trunk's mine count."""
        return board_planes(grid, self.mines, density)

    def trunk(self, planes: th.Tensor) -> th.Tensor:
        features = th.relu(self.stem(planes.contiguous(memory_format=th.channels_last)))
        for index, block in enumerate(self.blocks):
            update = block(features)
            if str(index) in self.global_biases:
                update = update + self.global_biases[str(index)](features)
            features = th.relu(features + update)
        if self.refinement is not None:
            for _ in range(self.refine):
                features = self.refinement(features, planes)
        return features

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return self.trunk(self.input_planes(observations))


class IteratedTrunk(nn.Module):
    """A stem 3x3 convolution, then ``passes`` passes of one residual block that recalls the input planes.

    A cell's exact mine chance is settled by chains of constraints; a block applied ``k`` times reads chains ``k``
    long with the weights of one, and can be run for more passes than it was trained with, on a larger board, to
    think longer (the recurrent "logical extrapolation" networks of Bansal et al., 2022, which also feed the input to
    every pass so that late passes do not forget the question). Each pass is ``h = h + conv2(relu(conv1([relu(h),
    x]))) + global_bias(relu(h))``, ``x`` the input planes. ``passes`` is how many it runs when it plays
    (:meth:`set_passes` changes it, the weights do not); ``mines`` as in :class:`BoardTrunk`. With ``state_norm``
    the state is normalised after every pass (a :class:`torch.nn.GroupNorm` of one group: each board's own
    statistics), so its scale cannot grow from pass to pass: without it the residual state grows with every pass,
    and a pass beyond those trained meets a scale it never saw.
    """

    reads_mine_count = True
    """Marks a network whose input needs the game's total mine count (see :meth:`set_mine_count`)."""

    def __init__(self, channels: int = 96, passes: int = 12, mines: int = 10, state_norm: bool = False) -> None:
        if channels < 1 or passes < 1:
            raise ValueError(f"channels and passes must be positive, got {channels} and {passes}")
        super().__init__()
        self.features_dim = channels
        self.mines = int(mines)
        self.passes = int(passes)
        self.state_norm = bool(state_norm)
        self.norm_state = nn.GroupNorm(1, channels) if state_norm else nn.Identity()
        self.stem = nn.Conv2d(BOARD_PLANES, channels, kernel_size=3, padding=1)
        self.recall = nn.Conv2d(channels + BOARD_PLANES, channels, kernel_size=3, padding=1)
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
        """:func:`board_planes` of ``grid`` with this trunk's mine count."""
        return board_planes(grid, self.mines, density)

    def step(self, hidden: th.Tensor, planes: th.Tensor) -> th.Tensor:
        """One pass of the block."""
        active = th.relu(hidden)
        update = self.mix(th.relu(self.recall(th.cat([active, planes], dim=1))))
        return self.norm_state(hidden + update + self.global_bias(active))

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

    def progressive(self, planes: th.Tensor, frozen: int, trained: int) -> th.Tensor:
        """The features after ``frozen`` passes without gradient then ``trained`` passes with it.

        A loss on these teaches the block to improve whatever state it is handed, not to reach a good state at
        one fixed depth: the incremental progress training of Bansal et al. (2022), which lets a weight-tied
        network run more passes than it was trained with and keep improving instead of drifting off.
        """
        if frozen < 0 or trained < 1:
            raise ValueError(f"frozen must be >= 0 and trained >= 1, got {frozen} and {trained}")
        planes = planes.contiguous(memory_format=th.channels_last)
        with th.no_grad():
            hidden = self.stem(planes)
            for _ in range(frozen):
                hidden = self.step(hidden, planes)
        hidden = hidden.detach()
        for _ in range(trained):
            hidden = self.step(hidden, planes)
        return th.relu(hidden)

    def trunk(self, planes: th.Tensor) -> th.Tensor:
        return self.stages(planes, [self.passes])[0]

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return self.trunk(self.input_planes(observations))


TAPERED_NORMS = ("board", "none")
"""The norms of :class:`TaperedBlock`: ``board``, a :class:`torch.nn.GroupNorm` of one group (each board's own
statistics over its channels and cells); ``none``, no norm, the block's last convolution starting at zero."""


class TaperedBlock(nn.Module):
    """``norm, conv 3x3 (in -> out), relu, norm, conv 3x3 (out -> out)`` plus the input (through a 1x1 convolution
    where the widths differ), then relu. Either norm of :data:`TAPERED_NORMS` computes the same thing in training
    and play for any batch. The ``board`` norm makes a cell's features depend on the whole board's statistics (how
    much of it is open); with ``none`` each output cell is a function of its neighbourhood (23x23 in the default
    trunk) and the density plane alone, and the block starts as its skip path (its last convolution zero) so that
    the deep stack trains without a norm."""

    def __init__(self, in_channels: int, out_channels: int, norm: str = "board") -> None:
        if norm not in TAPERED_NORMS:
            raise ValueError(f"norm must be one of {', '.join(TAPERED_NORMS)}, got {norm!r}")
        super().__init__()
        self.norm_in = nn.GroupNorm(1, in_channels) if norm == "board" else nn.Identity()
        self.conv_in = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.norm_out = nn.GroupNorm(1, out_channels) if norm == "board" else nn.Identity()
        self.conv_out = nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1)
        self.skip = nn.Identity() if in_channels == out_channels else nn.Conv2d(in_channels, out_channels, 1)
        if norm == "none":
            nn.init.zeros_(self.conv_out.weight)
            nn.init.zeros_(self.conv_out.bias)

    def forward(self, features: th.Tensor) -> th.Tensor:
        normed = self.norm_in(features)
        update = self.conv_out(self.norm_out(th.relu(self.conv_in(normed))))
        return th.relu(update + self.skip(normed))


class TaperedTrunk(nn.Module):
    """:func:`board_planes`, a 3x3 convolution to ``widths[0]`` channels, then one :class:`TaperedBlock` from each
    width to the next: ``(64, 32, 16, 8, 4, 2)`` is eleven 3x3 layers (a 23-cell receptive field) and about 50,000
    weights, 62% of them in the first block.

    Why this shape: a network that plays with marks (:mod:`agents.marks`) reads the mines it has already settled as
    flags, so it only has to reason near the frontier from what is settled, and a small network suffices (the
    published 44.85% expert agent is this size); wide early layers read the local patterns, the narrow late ones
    only combine a few features. Small enough to train on a CPU. ``mines`` as in :class:`BoardTrunk`; ``norm`` one of
    :data:`TAPERED_NORMS`.
    """

    reads_mine_count = True
    """Marks a network whose input needs the game's total mine count (see :meth:`set_mine_count`)."""

    def __init__(self, widths: Sequence[int] = (64, 32, 16, 8, 4, 2), mines: int = 10, norm: str = "board") -> None:
        if len(widths) < 2 or min(widths) < 1:
            raise ValueError(f"widths must be two or more positive channel counts, got {list(widths)}")
        super().__init__()
        self.widths = tuple(int(width) for width in widths)
        self.features_dim = self.widths[-1]
        self.mines = int(mines)
        self.norm = norm
        self.stem = nn.Conv2d(BOARD_PLANES, self.widths[0], kernel_size=3, padding=1)
        pairs = zip(self.widths[:-1], self.widths[1:], strict=True)
        self.blocks = nn.Sequential(*(TaperedBlock(a, b, norm) for a, b in pairs))

    def set_mine_count(self, mines: int) -> None:
        """The total mine count of the boards played from now on."""
        self.mines = int(mines)

    def input_planes(self, grid: th.Tensor, density: th.Tensor | None = None) -> th.Tensor:
        """:func:`board_planes` of ``grid`` with this trunk's mine count."""
        return board_planes(grid, self.mines, density)

    def trunk(self, planes: th.Tensor) -> th.Tensor:
        return self.blocks(th.relu(self.stem(planes.contiguous(memory_format=th.channels_last))))

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return self.trunk(self.input_planes(observations))


def set_mine_count(network: nn.Module, mines: int) -> None:
    """Tell every part of ``network`` that reads the mine count (``reads_mine_count``) the game's count."""
    for module in network.modules():
        if getattr(module, "reads_mine_count", False):
            module.set_mine_count(mines)  # type: ignore[operator]


def set_passes(network: nn.Module, passes: int) -> None:
    """Run every weight-tied iterated trunk of ``network`` for ``passes`` passes from now on (to think longer on a
    larger board than it was trained on, or shorter to save time).

    Raises:
        ValueError: ``network`` holds no :class:`IteratedTrunk` (only it runs a chosen number of passes).
    """
    trunks = [module for module in network.modules() if isinstance(module, IteratedTrunk)]
    if not trunks:
        raise ValueError("the network is not the iterated trunk: only it runs a chosen number of passes")
    for trunk in trunks:
        trunk.set_passes(passes)


def plane_readers(trunk: nn.Module) -> list[tuple[nn.Conv2d, int]]:
    """The convolutions of ``trunk`` that read the one-hot input planes, each with the index of its first plane."""
    if isinstance(trunk, CellTrunk):
        first = trunk.trunk[0]
        assert isinstance(first, nn.Conv2d)
        return [(first, 0)]
    readers: list[tuple[nn.Conv2d, int]] = [(trunk.stem, 0)]  # type: ignore[list-item]
    if isinstance(trunk, IteratedTrunk):
        readers.append((trunk.recall, trunk.features_dim))  # the block recalls the planes after its state
    return readers


def read_flags_as_hidden(trunk: nn.Module) -> None:
    """Give the flag plane the hidden plane's weights wherever ``trunk`` reads the planes, so that it reads a flagged
    cell exactly as a hidden one. A network trained without flags never moved its flag weights from their random
    start (the plane was always empty); started so, a player with marks plays the network's own moves (the marked
    cells left out) and training learns from there what a mark says."""
    hidden, flag = PLANE_CODES.index(HIDDEN), PLANE_CODES.index(FLAG)
    with th.no_grad():
        for conv, first in plane_readers(trunk):
            conv.weight[:, first + flag] = conv.weight[:, first + hidden]

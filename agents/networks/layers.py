"""The building blocks of the board networks: input planes, board-wide sums, per-cell heads (plain torch).

Every piece runs only convolutions over the cells or pools over them, so its weights fit any board size.
"""

from __future__ import annotations

import torch as th
import torch.nn.functional as F
from torch import nn

from mine_env.engine.constants import FLAG, HIDDEN, MINE

PLANE_CODES: tuple[int, ...] = (HIDDEN, FLAG, MINE, 0, 1, 2, 3, 4, 5, 6, 7, 8)
"""The grid codes in the order of the networks' one-hot input planes. Saved weights depend on this order, so the
network format owns it; it is the order of the env's ``planes`` observation (``mine_env.env.PLANE_CODES``), which
the agents may not import (a test holds the two equal)."""


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


def remaining_density(grid: th.Tensor, mines: int) -> th.Tensor:
    """Mines not yet shown per covered cell (hidden or flagged) of each grid in a batch: (N,) float."""
    covered = ((grid == HIDDEN) | (grid == FLAG)).flatten(1).sum(dim=1)
    shown = (grid == MINE).flatten(1).sum(dim=1)
    return (mines - shown).float() / covered.clamp(min=1).float()


def neighbour_sums(planes: th.Tensor) -> th.Tensor:
    """Each cell's sum over its 3x3 block, itself included, of every plane (N, C, H, W); zero beyond the board."""
    kernel = planes.new_ones(planes.shape[1], 1, 3, 3)
    return F.conv2d(planes, kernel, padding=1, groups=planes.shape[1])


class GlobalBias(nn.Module):
    """Global pooling for a residual block: every channel's mean, maximum and sum (per 256 cells) over the board,
    mapped by a linear layer to a bias added to every cell's channels.

    A convolution only sees its receptive field; what the endgame turns on is global: how many of the remaining
    mines the frontier holds, so whether the cells no number touches can hold the rest. A pooled bias gives
    every cell such board-wide sums in one block, on any board size. Growing a trained network into one with
    global pooling (:mod:`train.distill.grow`) starts these weights at zero, so the network computes what it did before.
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
    network grown into one with this pass (:mod:`train.distill.grow`) starts with the update at zero, so it computes
    what it did before it learns to use the checks. The same pass runs ``refine`` times, each
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
        """Refined features (N, C, H, W) from ``features`` and the planes of :meth:`BoardTrunk.input_planes`."""
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


def bounded_spread(scores: th.Tensor, valid: th.Tensor, bound: float) -> th.Tensor:
    """``scores`` (N, H * W) pulled to within ``bound`` of their mean over the ``valid`` cells: ``m + bound *
    tanh(s - m)``, ``m`` that mean (a dueling split whose advantages are held small: the board's level is learned
    freely, a cell's difference from it never exceeds ``bound``). A row with no valid cell keeps its mean at 0."""
    weights = valid.to(scores.dtype)
    level = (scores * weights).sum(dim=1, keepdim=True) / weights.sum(dim=1, keepdim=True).clamp(min=1.0)
    return level + bound * th.tanh(scores - level)


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
    one whose number tells most (:mod:`agents.solver.guess`). This head learns that choice from the features
    and from each cell's gap to the board's safest logit, and adds at most ``bound`` to a cell's logit: enough
    to reorder near-ties, never to put a risky cell above a certainly safe one (logits tens apart). Its last
    layer starts at zero, so a network given the head plays as it did until the head is trained
    (:mod:`train.distill.guess.preference`); the chances it predicts (the policy head) never change.
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
        # channels-last, as the trunks' planes: the concatenation hands them on channels-first, which oneDNN's small
        # convolutions run at about half the speed
        return self.bound * th.tanh(self.net(planes.contiguous(memory_format=th.channels_last))).flatten(1)

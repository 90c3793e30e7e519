"""What distillation minimises and how it steps: the cross-entropy of the safety logits against the oracle's
chances, the choice and count terms beside it, the cosine learning-rate schedule and one Adam step."""

from __future__ import annotations

import numpy as np
import torch as th
import torch.nn.functional as F

from mine_env.engine.constants import HIDDEN
from train.distill.guesses import SAFEST_TOLERANCE


def cosine_rate(start: float, step: int, total: int) -> float:
    """The learning rate after ``step`` of ``total`` steps: a cosine decay from ``start`` to 5% of it."""
    progress = min(1.0, step / max(total, 1))
    return start * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * progress)))


def adam_step(optimizer: th.optim.Optimizer, loss: th.Tensor, learning_rate: float) -> None:
    """One optimiser step on ``loss`` at ``learning_rate`` (the schedule's value now)."""
    for group in optimizer.param_groups:
        group["lr"] = learning_rate
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def distill_loss(logits: th.Tensor, grids: th.Tensor, labels: th.Tensor, weight: th.Tensor, revealed_weight: float,
                 choice_weight: float = 0.0, count_weight: float = 0.0,
                 targets: th.Tensor | None = None) -> th.Tensor:  # fmt: skip
    """Cross-entropy of the safety logits against ``1 - p`` over the hidden cells with ``weight`` 1, plus
    ``revealed_weight`` times that of a zero safety target over the revealed ones, plus ``choice_weight``
    times :func:`choice_loss` (towards ``targets`` where given) and ``count_weight`` times :func:`count_loss`
    (all (N, H * W))."""
    hidden = (grids == HIDDEN).float() * weight
    revealed = (grids != HIDDEN).float() * weight
    hidden_loss = F.binary_cross_entropy_with_logits(logits, 1.0 - labels, reduction="none")
    revealed_loss = F.binary_cross_entropy_with_logits(logits, th.zeros_like(logits), reduction="none")
    loss = (hidden_loss * hidden).sum() / hidden.sum().clamp(min=1.0)
    loss = loss + revealed_weight * (revealed_loss * revealed).sum() / revealed.sum().clamp(min=1.0)
    if choice_weight:
        loss = loss + choice_weight * choice_loss(logits, labels, hidden > 0, targets)
    if count_weight:
        loss = loss + count_weight * count_loss(logits, labels, hidden)
    return loss


LOG_ODDS_FLOOR = 1e-6
"""Exact chances nearer 0 or 1 than this are taken as certain by :func:`log_odds_loss` (the cross-entropy's)."""


def log_odds_loss(logits: th.Tensor, labels: th.Tensor, hidden: th.Tensor) -> th.Tensor:
    """The squared error of the network's mine log-odds (``-logits``) against the oracle's, averaged over the
    ``hidden`` cells whose exact chance is neither 0 nor 1 (within :data:`LOG_ODDS_FLOOR`).

    The cross-entropy's gradient on a cell is the difference of the two chances, so a cell of chance 0.003 that
    the network puts at 0.0003 costs it almost nothing, though a player who reveals cells under 1% pays for it,
    and a certainly safe cell must outrank it. On the log-odds scale that error is as large as any other.
    """
    uncertain = hidden & (labels > LOG_ODDS_FLOOR) & (labels < 1.0 - LOG_ODDS_FLOOR)
    if not uncertain.any():
        return logits.sum() * 0.0
    return ((-logits[uncertain] - th.logit(labels[uncertain].float())) ** 2).mean()


def count_loss(logits: th.Tensor, labels: th.Tensor, hidden: th.Tensor) -> th.Tensor:
    """The squared difference between the network's expected number of mines among the ``hidden`` cells (the sum
    of its mine chances ``sigmoid(-logit)``) and the oracle's, averaged over the positions.

    Over a whole board the oracle's sum is the number of mines left, whatever the position (expectation is
    linear); over a training window it is the window's expected count. A network whose cell-wise chances are each
    a little off can be a mine or more off in total, and in the endgame that total decides the cells no number
    touches (the mines the frontier does not hold are spread over them): this term asks for it directly.
    """
    error = ((th.sigmoid(-logits) - labels) * hidden).sum(dim=1)
    return (error**2).mean()


def choice_loss(logits: th.Tensor, labels: th.Tensor, candidates: th.Tensor,
                targets: th.Tensor | None = None) -> th.Tensor:  # fmt: skip
    """Minus the log of the softmax mass (over the ``candidates``) on the oracle's safest candidates, averaged
    over the positions with a candidate; in a position where ``targets`` (bool, like ``candidates``) marks a
    candidate, on those cells instead (the default solver's guess: ``--guess-target solver``).

    The cross-entropy above weighs every hidden cell alike, while the policy only plays the top one: this term
    trains the decision itself, and it does not care how the mass is shared among equally safe cells (a
    position with ten certainly safe cells is solved by any of them).
    """
    masked = logits.masked_fill(~candidates, float("-inf"))
    least = labels.masked_fill(~candidates, float("inf")).min(dim=1, keepdim=True).values
    safest = candidates & (labels <= least + SAFEST_TOLERANCE)
    if targets is not None:
        targets = targets & candidates
        safest = th.where(targets.any(dim=1, keepdim=True), targets, safest)
    rows = candidates.any(dim=1)
    if not rows.any():
        return logits.sum() * 0.0
    mass = th.logsumexp(masked.masked_fill(~safest, float("-inf"))[rows], dim=1)
    return (th.logsumexp(masked[rows], dim=1) - mass).mean()

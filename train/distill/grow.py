"""Grow a distilled network into a wider or deeper one that starts as the same function.

A distillation run with ``--init`` and larger ``--channels`` or more ``--dilations`` than the model it starts
from does not begin again from random weights: the small network is embedded in the large one so that, before
the first step, both give the same safety logits on every board (Net2Net-style growth, with zeros where the
new parts would feed the old ones):

- every weight of the small network is copied into the matching block and the first ``channels`` channels;
- a new channel's outgoing weights (into the old channels and into the head) are zero, so it changes nothing
  until training makes it useful; its incoming weights keep their random start so that it can;
- a new residual block (a dilation that is not in the small network's list) has zero weights into the old
  channels: ``relu(x + 0) = x`` for the non-negative features, so it is the identity on them;
- a global-pooling bias (:class:`train.sb3.networks.GlobalBias`) of a small block is copied like a convolution (its
  pooled inputs of the new channels get zero weights); one the small block lacks starts at zero, adding nothing;
- a count refinement (:class:`train.sb3.networks.CountRefinement`) the small network lacks drafts its chances with a
  copy of the head and starts with a zero update, so it passes the features through unchanged. A network that
  already has one is not grown (its passes can change in number, not in shape: load it into the same trunk).

The small network's dilations must appear, in order, within the large one's (a subsequence): each old block
is matched to the first later block of the same dilation.
"""

from __future__ import annotations

import torch as th
from torch import nn

from agents.networks.layers import CellLogits
from agents.networks.trunks import BoardTrunk


def match_blocks(small: tuple[int, ...], large: tuple[int, ...]) -> list[int | None]:
    """For every block of ``large``, the index of the ``small`` block it takes over (None: a new block).

    Raises:
        ValueError: ``small``'s dilations are not a subsequence of ``large``'s.
    """
    matched: list[int | None] = []
    next_small = 0
    for dilation in large:
        if next_small < len(small) and small[next_small] == dilation:
            matched.append(next_small)
            next_small += 1
        else:
            matched.append(None)
    if next_small < len(small):
        raise ValueError(
            f"cannot grow a network with dilations {','.join(map(str, small))} into one with "
            f"{','.join(map(str, large))}: the first must appear, in order, within the second"
        )
    return matched


@th.no_grad()
def grow(small: BoardTrunk, small_head: CellLogits, large: BoardTrunk, large_head: CellLogits) -> None:
    """Write ``small`` (and its head) into ``large`` (and its head) so that both compute the same logits.

    Raises:
        ValueError: ``large`` has fewer channels, its dilations do not contain ``small``'s in order, or ``small``
            has a count refinement.
    """
    old, new = small.features_dim, large.features_dim
    if small.refinement is not None:
        raise ValueError("a network with count refinement passes grows into nothing else: train it with the same "
                         "--channels, --dilations and --pooled and with --refine 1 or more (the passes share weights)")
    if new < old:
        raise ValueError(f"cannot grow a network of {old} channels into one of {new}: --channels must be {old} or more")
    matched = match_blocks(small.dilations, large.dilations)
    _check_pooling(small, large, matched)
    _copy_conv(small.stem, large.stem, old, copy_inputs=False)
    for index, (block, source) in enumerate(zip(large.blocks, matched, strict=True)):
        if source is None:
            block.weight[:old].zero_()
            block.bias[:old].zero_()
        else:
            _copy_conv(small.blocks[source], block, old, copy_inputs=True)
        if str(index) in large.global_biases:
            target = large.global_biases[str(index)].linear
            target.weight.zero_()
            target.bias.zero_()
            if source is not None and str(source) in small.global_biases:
                _copy_pooled(small.global_biases[str(source)].linear, target, old, new)
    large_head.conv.weight.zero_()
    large_head.conv.weight[:, :old] = small_head.conv.weight
    large_head.conv.bias.copy_(small_head.conv.bias)
    if large.refinement is not None:
        large.refinement.draft.load_state_dict(large_head.conv.state_dict())
        large.refinement.update.weight.zero_()
        large.refinement.update.bias.zero_()


def _check_pooling(small: BoardTrunk, large: BoardTrunk, matched: list[int | None]) -> None:
    """ValueError when a block of ``small`` with global pooling is matched to a block of ``large`` without."""
    kept = {source for source in matched if source is not None}
    lost = [index for index in small.pooled if index in kept and matched.index(index) not in large.pooled]
    if lost:
        targets = [matched.index(index) for index in lost]
        raise ValueError(f"blocks {lost} of the network to grow have global pooling, but the blocks they become "
                         f"do not: give --pooled the blocks {targets} too")  # fmt: skip


def _copy_pooled(source: nn.Linear, target: nn.Linear, old: int, new: int) -> None:
    """A global bias's weights into the target's first ``old`` outputs, for the pooled values of the old channels
    (each pool's ``old`` inputs sit at the start of its ``new``-wide group)."""
    for pool in range(source.in_features // old):
        target.weight[:old, pool * new : pool * new + old] = source.weight[:, pool * old : (pool + 1) * old]
    target.bias[:old] = source.bias


def _copy_conv(source: nn.Conv2d, target: nn.Conv2d, old: int, copy_inputs: bool) -> None:
    """The source's weights into the target's first ``old`` outputs; the new inputs of those outputs get zeros.

    ``copy_inputs`` False: the input channels are the same (the stem reads the input planes)."""
    if copy_inputs:
        target.weight[:old].zero_()
        target.weight[:old, :old] = source.weight
    else:
        target.weight[:old] = source.weight
    target.bias[:old] = source.bias

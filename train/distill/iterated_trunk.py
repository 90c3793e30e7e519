"""A weight-tied iterated trunk: one residual block applied again and again, the input recalled at every pass.

A cell's exact mine chance is settled by chains of constraints: the numbers around it, the numbers sharing cells
with those, and so on along the frontier, then the mines left over the cells no number touches. A stack of
distinct layers reads chains as long as its depth; one block applied ``k`` times reads chains ``k`` long with
the weights of one, and can be run for more passes than it was trained with, on a larger board, to think longer
(the recurrent "logical extrapolation" networks of Bansal et al., 2022, which also feed the input to every pass
so that late passes do not forget the question). Each pass here:

    update = conv2(relu(conv1([relu(h), x]))) + global_bias(relu(h))
    h = h + update                  (with state_norm: h = norm(h + update), each board's own statistics)

``x`` are the input planes (:meth:`train.sb3.networks.BoardFeatures.input_planes`: the one-hot grid, the board's
edge, the remaining-mine density), ``global_bias`` the board-wide means, maxima and sums of the features
(:class:`train.sb3.networks.GlobalBias`) that the mine count turns on. The features returned are ``relu(h)`` after
the passes asked for; :meth:`IteratedFeatures.stages` returns them after several pass counts at once, for a loss
at several depths, so that every depth is a usable answer and more passes refine it. Without the norm the state's
scale grows with every pass, so a pass beyond those trained meets a scale it never saw; the progressive loss
(:meth:`agents.networks.trunks.IteratedTrunk.progressive`, ``--progressive`` in the stream) trains the block to
improve whatever state it is handed.

The network is :class:`agents.networks.trunks.IteratedTrunk`; the class here is it as a stable-baselines3 features
extractor like :class:`train.sb3.networks.BoardFeatures` (it has the same ``input_planes``, ``trunk``,
``reads_mine_count`` and ``set_mine_count``), so a distilled model built on it saves in the model format that
``minesweeper eval --model`` plays.
"""

from __future__ import annotations

import gymnasium as gym

from agents.networks.trunks import IteratedTrunk
from train.sb3.networks import check_grid_space


class IteratedFeatures(IteratedTrunk):
    """Stem 3x3 convolution, then ``passes`` passes of one residual block (see the module docstring).

    Args:
        observation_space: The (rows, cols) grid observation.
        channels: Features per cell.
        passes: Passes of the block when the network plays (``set_passes`` changes it; the weights do not).
        mines: The total mine count the density plane is measured against (``set_mine_count``).
        state_norm: Normalise the state after every pass, so its scale stays the same however many passes run.
    """

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 96, passes: int = 12,
                 mines: int = 10, state_norm: bool = False) -> None:  # fmt: skip
        check_grid_space(observation_space, "IteratedFeatures")
        super().__init__(channels, passes, mines, state_norm)

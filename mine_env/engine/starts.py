"""How a game may start for the agent: the anchor rule that opens a random zero cell on the agent's behalf.

Under the ``none`` rule the layout is uniform and placed before any click. The *zero start* then reveals, for
the agent, a cell drawn uniformly from the layout's zero cells (no mine, no mine around), as the published
learned agents of expert Minesweeper are measured (docs/RESULTS.md): the game starts on an opening somewhere
on the board rather than on the agent's chosen first cell. The cell is a pure function of the layout and the
game's seed, so every agent of a suite starts every game on the same cell of the same board.
"""

from __future__ import annotations

import numpy as np

STARTS = ("agent", "zero")
"""How a game starts: ``agent``, the agent reveals its own first cell (under the board's first-click rule);
``zero``, a random zero cell of a uniform layout (the ``none`` rule) is revealed for it (:func:`zero_start_cell`)."""

ZERO_START_STREAM = 1
"""Spawn key of the zero start's random stream, kept apart from the stream that draws the layout key."""


def zero_start_cell(mines: np.ndarray, counts: np.ndarray, seed: int) -> int:
    """A uniformly drawn zero cell (flat index) of a layout: ``mines`` (1 = mine) and ``counts`` (mines around
    each cell), flat arrays of one board; -1 when the layout has none (the game then starts untouched).

    ``seed``: the game's seed (the env's reset seed); the draw uses its own stream of it.
    """
    zeros = np.flatnonzero((np.asarray(mines) == 0) & (np.asarray(counts) == 0))
    if zeros.size == 0:
        return -1
    rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(ZERO_START_STREAM,)))
    return int(zeros[rng.integers(zeros.size)])

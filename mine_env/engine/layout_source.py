"""Layout sources: where a game's mines come from when not from the engine's own uniform placement.

By default the first reveal places the layout of the game's key uniformly under the first-click rule
(:mod:`mine_env.engine.layout`). A *layout source* replaces that placement: given the layout keys and first
cells of games about to start, it returns their layouts, still a pure function of (key, first cell). The
no-guess boards are one (:mod:`mine_env.analysis.no_guess`, handed in by :mod:`mine_env.boards`): the engine
takes the source as a plain callable and imports nothing of its maker, so it stays below the analysis.

:class:`~mine_env.engine.board.Board` and :class:`~mine_env.engine.batch.BatchEngine` call the source just
before a first reveal (a valid reveal of a hidden cell on a game that has no layout yet) and start the game
on what it returns (:func:`mine_env.engine.rules.start_game_on`); the reveal then plays as usual.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mine_env.engine import rules as k
from mine_env.engine.constants import HIDDEN

LayoutSource = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``source(keys, first_cells) -> layouts``: int64 (m,) layout keys and flat first cells in, uint8
(m, rows * cols) layouts out (1 = mine), each a pure function of its (key, first cell)."""


def first_reveals(obs: np.ndarray, meta: np.ndarray, actions: np.ndarray, n_cells: int) -> np.ndarray:
    """The boards (rows of ``obs`` and ``meta``) whose action is the first reveal of their game: a reveal
    (``action < n_cells``) of a hidden cell on a board that has no layout yet."""
    starting = np.flatnonzero((meta[:, k.META_STATUS] == k.READY) & (actions >= 0) & (actions < n_cells))
    if starting.size:
        starting = starting[obs[starting, actions[starting]] == HIDDEN]
    return starting

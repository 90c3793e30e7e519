"""Every outcome of revealing one cell, counted exactly in one compiled call.

:meth:`~agents.analysis.probability.BoardAnalysis.reveal_outcomes` recounts the position once per number the
cell may show, each through :func:`~agents.analysis.probability.analyse` from Python: per count it pays the
kernel (~20 us on 16x16), boxing the whole :class:`~agents.analysis.counting.BoardCount` into Python objects
(~10 us) and the checks and wrapping of ``analyse`` (~5 us). The battle agents (:mod:`agents.battle`) count
thousands of outcomes per game; :func:`reveal_counts` does all the counts of one cell in one call and returns
only what they read, so a count costs the kernel alone. The numbers are the same floats: it is the same
:func:`~agents.analysis.counting.count_board` on the same grids.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.analysis.counting import count_board
from agents.analysis.counting_base import STATUS_OK
from agents.analysis.lookahead import hidden_neighbours
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.geometry import count_around

OUTCOMES = 10
"""Index 0: the cell is a mine (shown as MINE); index ``1 + v``: the cell shows the number v."""

_UNTRUSTED = np.zeros(1, np.bool_)
"""False typed as a plain bool read from an array: a literal would compile the count once more."""


@njit(cache=True)
def reveal_counts(flat, rows, cols, mines, cell, with_mine, with_numbers):  # type: ignore[no-untyped-def]
    """The exact count of each position revealing ``cell`` can lead to (flat int8 grid, flags untrusted).

    Counts the grid with ``cell`` shown as a mine when ``with_mine``, and as each number it may show (from the
    shown mines around it to those plus its hidden neighbours) when ``with_numbers``.

    Returns:
        (consistent[10], log_layouts[10], best[10], probability[10, n], certain_mine[10, n]) per outcome (index 0
        the mine, ``1 + v`` the number v): whether some layout fits, the log of how many, the highest mine
        probability among the position's hidden cells (0.0 when none is hidden), and per cell its exact mine
        probability and whether it is a mine in every layout. Rows of outcomes not counted or inconsistent are
        left unset (``consistent`` False, ``log_layouts`` -inf).
    """
    n = flat.shape[0]
    consistent = np.zeros(OUTCOMES, np.bool_)
    log_layouts = np.full(OUTCOMES, -np.inf)
    best = np.zeros(OUTCOMES)
    probability = np.empty((OUTCOMES, n))
    certain = np.empty((OUTCOMES, n), np.bool_)
    work = flat.copy()
    known = count_around(flat, rows, cols, cell // cols, cell % cols, MINE)
    first = 0 if with_mine else 1
    last = 1 + known + hidden_neighbours(flat, rows, cols, cell) if with_numbers else 0
    for index in range(first, last + 1):
        if index == 0:
            work[cell] = MINE
        elif index < 1 + known:
            continue
        else:
            work[cell] = index - 1
        counted = count_board(work, rows, cols, _UNTRUSTED[0], mines)
        if counted.status != STATUS_OK:
            continue
        consistent[index] = True
        log_layouts[index] = counted.combined.log_layouts
        cells = counted.cells
        for i in range(n):
            probability[index, i] = cells.probability[i]
            certain[index, i] = cells.mine[i]
            if work[i] == HIDDEN and cells.probability[i] > best[index]:
                best[index] = cells.probability[i]
    return consistent, log_layouts, best, probability, certain

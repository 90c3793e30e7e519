"""Long-term risk: how often a hidden cell ends up in a 50/50 that no later reveal can settle.

A guess that reveals such a cell now, while it can still be told apart from its partner, may spare a blind
50/50 later. The ``strong`` guess of :mod:`mine_env.analysis.guess` raises a candidate's score by this risk
(an idea of DavidNHill's JSMinesweeper solver; the code here is our own).

Two shapes are looked for, each by one exact recount of the position with the cells the shape needs set
as mines:

* a **pair** of neighbours in a row (or a column) whose flanking cells, the three beyond each end, are all
  mines or off the board: every number next to one of the pair then sees both, so they stay a 50/50;
* a **2x2 box** whose four diagonal outer corners are mines or off the board, with the mines on one
  diagonal of the box and the other diagonal safe.

A shape counts only if no flanking cell is revealed and at most a few flanking cells still have to be
mines (:data:`PAIR_MISSING`, :data:`BOX_MISSING`). The risk of a cell is the share of layouts that form
a pair through it (summed over its four pairs) plus the largest such share over its four boxes, capped
at its chance of being a mine and of being safe.

Compile time: every function here that recounts (:func:`fifty_fifty_risk` and the shares below it) is
inlined into its caller, so the recounts' kernel (:func:`mine_env.analysis.counting.count_board`) is linked
into the guess's compiled code once, not re-linked and re-optimised at each of four levels (see
docs/COLD_START.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mine_env.analysis.counting import count_position
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.geometry import is_known_mine, is_revealed

PAIR_MISSING = 4
"""A pair counts if its mine plus the flanking cells that still have to be mines are at most this many."""
BOX_MISSING = 5
"""A box counts if its two mines plus the outer corners that still have to be mines are at most this."""
_CERTAIN = 1.0 - 1e-9
"""A mine probability at least this high is a certain mine."""


@njit(cache=True)
def _open_cell(flat, probability, rows, cols, r, c):
    """Whether (r, c) is on the board, hidden and not a certain mine: a cell a 50/50 can be made of."""
    if r < 0 or r >= rows or c < 0 or c >= cols:
        return False
    cell = r * cols + c
    return flat[cell] == HIDDEN and probability[cell] < _CERTAIN


@njit(cache=True)
def _mines_to_place(flat, probability, rows, cols, at_rows, at_cols, out):
    """The flanking cells (on the board) that still have to become mines, written to ``out``.

    Returns how many, or -1 when one of them is revealed (its number sees the shape, so no 50/50).
    """
    found = 0
    for j in range(at_rows.shape[0]):
        r, c = at_rows[j], at_cols[j]
        if r < 0 or r >= rows or c < 0 or c >= cols:
            continue
        cell = r * cols + c
        if is_revealed(flat[cell]):
            return -1
        if is_known_mine(flat[cell], False) or probability[cell] >= _CERTAIN:
            continue
        out[found] = cell
        found += 1
    return found


@njit(cache=True, inline="always")
def _share_with(flat, rows, cols, mines, log_layouts, placed, n_placed, safe_a, safe_b):
    """Share of the position's layouts with the ``placed`` cells all mines and ``safe_a`` safe, and
    ``safe_b`` too when it is not -1 (both safe: 1 - P(a) - P(b) + P(a) P(b | a), one recount more)."""
    work = flat.copy()
    for j in range(n_placed):
        work[placed[j]] = MINE
    consistent, probability, _, log_placed = count_position(work, rows, cols, mines)
    if not consistent:
        return 0.0
    ratio = np.exp(log_placed - log_layouts)
    p_a = probability[safe_a]
    if safe_b < 0:
        return ratio * (1.0 - p_a)
    p_b, both = probability[safe_b], 0.0
    if p_a > 0.0:
        work[safe_a] = MINE
        consistent, given_a, _, _ = count_position(work, rows, cols, mines)
        if consistent:
            both = p_a * given_a[safe_b]
    return ratio * max(0.0, 1.0 - p_a - p_b + both)


@njit(cache=True, inline="always")
def pair_share(flat, rows, cols, mines, probability, log_layouts, mines_left, r, c, vertical):
    """Share of layouts where (r, c) and the cell right of it (below it when ``vertical``) form a pair
    50/50 with (r, c) the mine; 0 when the shape cannot form."""
    r2, c2 = (r + 1, c) if vertical else (r, c + 1)
    if not (_open_cell(flat, probability, rows, cols, r, c) and _open_cell(flat, probability, rows, cols, r2, c2)):
        return 0.0
    at_rows = np.empty(6, np.int64)
    at_cols = np.empty(6, np.int64)
    for k in range(3):
        if vertical:
            at_rows[k], at_cols[k], at_rows[3 + k], at_cols[3 + k] = r - 1, c - 1 + k, r + 2, c - 1 + k
        else:
            at_rows[k], at_cols[k], at_rows[3 + k], at_cols[3 + k] = r - 1 + k, c - 1, r - 1 + k, c + 2
    placed = np.empty(7, np.int64)
    found = _mines_to_place(flat, probability, rows, cols, at_rows, at_cols, placed)
    if found < 0 or found + 1 > min(PAIR_MISSING, mines_left):
        return 0.0
    placed[found] = r * cols + c
    return _share_with(flat, rows, cols, mines, log_layouts, placed, found + 1, r2 * cols + c2, -1)


@njit(cache=True, inline="always")
def box_share(flat, rows, cols, mines, probability, log_layouts, mines_left, r, c):
    """Share of layouts where the 2x2 box with top-left (r, c) forms a 50/50 with its main diagonal the
    mines; 0 when the shape cannot form."""
    for dr in range(2):
        for dc in range(2):
            if not _open_cell(flat, probability, rows, cols, r + dr, c + dc):
                return 0.0
    at_rows = np.array([r - 1, r - 1, r + 2, r + 2])
    at_cols = np.array([c - 1, c + 2, c - 1, c + 2])
    placed = np.empty(6, np.int64)
    found = _mines_to_place(flat, probability, rows, cols, at_rows, at_cols, placed)
    if found < 0 or found + 2 > min(BOX_MISSING, mines_left):
        return 0.0
    placed[found], placed[found + 1] = r * cols + c, (r + 1) * cols + c + 1
    return _share_with(flat, rows, cols, mines, log_layouts, placed, found + 2, r * cols + c + 1, (r + 1) * cols + c)


@njit(cache=True, inline="always")
def fifty_fifty_risk(flat, rows, cols, mines, probability, log_layouts, cell):
    """Share of the layouts in which ``cell`` belongs to a future pair or box 50/50 (see the module
    docstring), at most its chance of being a mine and of being safe."""
    mines_left = mines
    for i in range(flat.shape[0]):
        if is_known_mine(flat[i], False) or (flat[i] == HIDDEN and probability[i] >= _CERTAIN):
            mines_left -= 1
    r, c = cell // cols, cell % cols
    risk = 0.0
    for vertical in (False, True):
        for back in range(2):  # the pair starting at the cell, and the one ending there
            r0, c0 = (r - back, c) if vertical else (r, c - back)
            risk += pair_share(flat, rows, cols, mines, probability, log_layouts, mines_left, r0, c0, vertical)
    box = 0.0
    for dr in range(2):
        for dc in range(2):
            share = box_share(flat, rows, cols, mines, probability, log_layouts, mines_left, r - dr, c - dc)
            box = max(box, share)
    return min(risk + box, probability[cell], 1.0 - probability[cell])

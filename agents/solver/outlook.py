"""What revealing a cell leads to: the next positions, and the 50/50s it may meet now or later.

The guess policy (:mod:`agents.solver.guess`) scores its candidates by what this module says of each, every
recount through :func:`outlook_and_risk`:

* :func:`look_ahead` adds each number a hidden cell may show to the position and counts it again exactly,
  giving the :class:`Outlook` of the reveal;
* :func:`forced_fifty_fifty` finds two neighbouring cells, one of them a mine, that no later reveal can tell
  apart: they must be guessed some day, so ``strong`` guesses them at once;
* :func:`fifty_fifty_risk` (long-term risk) says how often a hidden cell ends up in a 50/50 that no later
  reveal can settle. A guess that reveals such a cell now, while it can still be told apart from its
  partner, may spare a blind 50/50 later; ``strong`` raises a candidate's score by this risk (an idea of
  DavidNHill's JSMinesweeper solver; the code here is our own).

A guess that reveals such a cell now, while it can still be told apart from its partner, may spare a blind
50/50 later. The ``strong`` guess of :mod:`agents.solver.guess` raises a candidate's score by this risk
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

from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.analysis.counting import count_position
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.geometry import (
    adjacent,
    block,
    hidden_neighbours,
    is_covered,
    is_known_mine,
    is_revealed,
    shared_block,
)

TIE_TOLERANCE = 1e-9
"""Relative distance under which two probabilities (or scores) count as equal."""


class Outlook(NamedTuple):
    """What revealing one cell leads to (:func:`look_ahead`)."""

    progress: float
    """The chance the cell is safe and gives at least one certainly safe cell."""
    values: int
    """How many numbers it may show (1 for a dead cell, whose reveal teaches nothing; 0 for a certain mine)."""
    blended: float
    """Blended survival: the chance it is safe, each next position scored (4 x best + second best safety) / 5."""
    next_safest: int
    """The cell that is the single safest of the next position whatever the number, or -1."""
    always_safe: np.ndarray
    """Per cell: whether it is certainly safe (and hidden) whatever the number."""


@njit(cache=True, inline="always")
def look_ahead(flat, rows, cols, mines, cell, mine_probability):
    """The :class:`Outlook` of revealing ``cell``, whose mine probability is ``mine_probability``: each number
    it may show is added to the position and the position counted again."""
    work = flat.copy()
    n = flat.shape[0]
    log_weight = np.full(9, -np.inf)
    progress = np.zeros(9, np.bool_)
    blend_next = np.zeros(9, np.float64)
    always_safe = np.ones(n, np.bool_)
    next_safest = -2  # -2: no number seen yet, -1: no single safest cell common to every number
    top = -np.inf
    for value in range(hidden_neighbours(flat, rows, cols, cell) + 1):
        work[cell] = value
        consistent, probability, safe, log_layouts = count_position(work, rows, cols, mines)
        if not consistent:
            continue
        log_weight[value] = log_layouts
        top = max(top, log_layouts)
        best, second, safest = 0.0, 0.0, -1
        for i in range(n):
            always_safe[i] = always_safe[i] and safe[i] and work[i] == HIDDEN
            if work[i] != HIDDEN:
                continue
            progress[value] = progress[value] or safe[i]
            safety = 1.0 - probability[i]
            if safety > best:
                best, second, safest = safety, best, i
            elif safety > second:
                second = safety
        blend_next[value] = (4.0 * best + second) / 5.0
        single = safest if best > second + TIE_TOLERANCE else -1
        next_safest = single if next_safest == -2 or next_safest == single else -1
    total = 0.0
    n_values = 0
    for value in range(9):
        if log_weight[value] > -np.inf:
            total += np.exp(log_weight[value] - top)
            n_values += 1
    if n_values == 0:  # a certain mine: no number to see
        always_safe[:] = False
    progress_chance = blended = 0.0
    for value in range(9):
        if log_weight[value] > -np.inf:
            share = (1.0 - mine_probability) * np.exp(log_weight[value] - top) / total
            blended += share * blend_next[value]
            if progress[value]:
                progress_chance += share
    return Outlook(progress_chance, n_values, blended, max(next_safest, -1), always_safe)


@njit(cache=True, inline="always")
def _certain_mine_or_outside(flat, rows, cols, r, c, probability):
    """Whether (r, c) lies off the board, is a shown mine or is a covered cell that is certainly a mine."""
    if r < 0 or r >= rows or c < 0 or c >= cols:
        return True
    cell = r * cols + c
    return is_known_mine(flat[cell], False) or (
        is_covered(flat[cell]) and probability[cell] >= 1.0 - TIE_TOLERANCE
    )


@njit(cache=True)
def _one_mine_between(flat, rows, cols, probability, a, b):
    """Whether a number next to both ``a`` and ``b`` says exactly one of them is a mine.

    Its other covered neighbours must all be certain mines, so what it still misses is ``a`` or ``b``.
    """
    r0, r1, c0, c1 = shared_block(a // cols, a % cols, b // cols, b % cols, rows, cols)
    for r in range(r0, r1):
        for c in range(c0, c1):
            number = r * cols + c
            if not is_revealed(flat[number]):
                continue
            missing, settled = int(flat[number]), True
            q0, q1, p0, p1 = block(r, c, rows, cols)
            for rr in range(q0, q1):
                for cc in range(p0, p1):
                    cell = rr * cols + cc
                    if cell in (a, b) or is_revealed(flat[cell]):
                        continue
                    if _certain_mine_or_outside(flat, rows, cols, rr, cc, probability):
                        missing -= 1
                    else:
                        settled = False
            if settled and missing == 1:
                return True
    return False


@njit(cache=True)
def _forced_pair(flat, rows, cols, probability, a, b):
    """Whether neighbours ``a`` and ``b`` are a 50/50 that no later reveal can settle.

    One of them is a mine, and every cell next to only one of them is off the board or certainly a mine
    (so never revealed): every number still to come sees both or neither.
    """
    ra, ca, rb, cb = a // cols, a % cols, b // cols, b % cols
    for r in range(min(ra, rb) - 1, max(ra, rb) + 2):  # not clipped: off the board counts as closed
        for c in range(min(ca, cb) - 1, max(ca, cb) + 2):
            one_sided = adjacent(ra, ca, r, c) != adjacent(rb, cb, r, c)
            if one_sided and not _certain_mine_or_outside(flat, rows, cols, r, c, probability):
                return False
    return _one_mine_between(flat, rows, cols, probability, a, b)


@njit(cache=True, inline="always")
def _half(p):
    """Whether a mine probability is one half."""
    return abs(p - 0.5) < TIE_TOLERANCE


@njit(cache=True)
def forced_fifty_fifty(flat, rows, cols, probability):
    """A cell of the first forced 50/50 pair in row-major order (see :func:`_forced_pair`), or -1."""
    for a in range(flat.shape[0]):
        if flat[a] != HIDDEN or not _half(probability[a]):
            continue
        r, c = a // cols, a % cols
        for b in (a + 1 if c + 1 < cols else -1, a + cols if r + 1 < rows else -1):
            pair = b >= 0 and flat[b] == HIDDEN and _half(probability[b])
            if pair and _forced_pair(flat, rows, cols, probability, a, b):
                return a
    return -1


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


@njit(cache=True)
def outlook_and_risk(flat, rows, cols, mines, probability, log_layouts, cell, with_risk):
    """The :class:`Outlook` of revealing ``cell`` and, when ``with_risk``, its long-term 50/50 risk
    (:func:`fifty_fifty_risk`; else 0.0).

    Every recount of a guess goes through here, with the look-ahead and the risk inlined, so the count is
    linked into one compiled layer below :func:`agents.solver.guess.decide` rather than two
    (docs/COLD_START.md). Callers pass ``with_risk`` as ``np.bool_(...)``: a literal True or False would
    compile a copy each.
    """
    outlook = look_ahead(flat, rows, cols, mines, cell, probability[cell])
    risk = fifty_fifty_risk(flat, rows, cols, mines, probability, log_layouts, cell) if with_risk else 0.0
    return outlook, risk

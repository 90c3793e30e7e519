"""What a guess leads to: exact recounts of each number a cell may show, and forced 50/50s.

:func:`look_ahead` adds each number a hidden cell may show to the position and counts it again exactly;
the guess policy (:mod:`mine_env.analysis.guess`) scores its candidates by the :class:`Outlook` it returns.
:func:`forced_fifty_fifty` finds two neighbouring cells, one of them a mine, that no later reveal can tell
apart: they must be guessed some day, so ``strong`` guesses them at once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.analysis.counting import count_position
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import adjacent, block, count_around, is_covered, is_known_mine, is_revealed, shared_block

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
def hidden_neighbours(flat, rows, cols, cell):
    """Hidden cells around ``cell``, the cell itself not counted."""
    return count_around(flat, rows, cols, cell // cols, cell % cols, HIDDEN) - (flat[cell] == HIDDEN)


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

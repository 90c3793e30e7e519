"""Deduction: the hidden cells a position proves safe, from one number, two numbers, else the exact count.

:func:`local_safe` needs no count: safe cells revealed in any order lead to the same position before the
next guess, so trying it first changes no game, and it spares most counts that would only find safe cells.
Two stages, each one pass:

1. **one number** (:func:`one_number_safe`): a number with as many covered neighbours as its value marks
   them all as mines (:func:`number_facts`); a number with that many marked mines around it clears its
   other hidden neighbours;
2. **two numbers** (:func:`two_number_safe`), only when the first stage clears nothing: a number ``a``
   puts at least its missing mines minus its unknown cells outside ``b`` into the cells it shares with a
   nearby number ``b``; when that uses up all of ``b``'s missing mines, ``b``'s other hidden cells are safe.

Flags are not trusted; shown mines count as mines. Nothing in these stages checks that the position fits.

:func:`certain_moves` is every caller's one function for the certain moves: :func:`local_safe`, else the
exact count's certainly safe cells, with what a guess needs when there are none. Compiled code (the solver's
:func:`agents.solver.guess.decide`, the no-guess generator :mod:`mine_env.analysis.no_guess`) inlines it;
Python code (the solver agent, the oracle wrappers) runs the same body as Python, ``certain_moves.py_func``,
whose two calls (:func:`local_safe`, :func:`~mine_env.analysis.counting.count_board`) are kernels compiled
anyway: the kernel itself called from Python would compile, and link the count into, a library of its own
on a cold start (docs/COLD_START.md).

:class:`agents.rules.RuleAgent` states the classic rules in plain Python and is the tested reference of this
kernel, with this exact relation (tests/agents/test_solver.py):

* in a position that fits, every cell the one-number stage clears, RuleAgent clears too: it starts from the
  same two one-number rules and applies them, with its subset rule, until nothing changes;
* the two-number stage asks no containment, where RuleAgent's subset rule needs one number's unknown cells
  to lie inside the other's, so it clears cells RuleAgent cannot: in ``2 . . / . . 1`` (mines: 2) the 2
  puts a mine in the two cells it shares with the 1, so (0, 2) is safe, and no subset says so;
* RuleAgent chains its rules to a fixed point, where this kernel makes one pass, so it also finds cells
  that :func:`local_safe` leaves to the count. Both are checked against the exact count.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.analysis.counting import count_board
from mine_env.analysis.counting_base import STATUS_OK
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import adjacent, block, is_covered, is_known_mine, is_revealed, shared_block

_PAIR_REACH = 2
"""Two numbers share neighbours only when they lie at most two cells apart."""
_UNTRUSTED = np.zeros(1, np.bool_)
"""``_UNTRUSTED[0]`` is False typed as a plain bool: a literal False would compile the count once more."""


class NumberFacts(NamedTuple):
    """What the numbers of a position say once the mines one number alone proves are marked (per cell)."""

    mine: np.ndarray
    """bool: a shown mine, or a covered cell that one number alone proves a mine."""
    unknown: np.ndarray
    """int64, on numbers only: covered neighbours not marked in ``mine``."""
    missing: np.ndarray
    """int64, on numbers only: mines still missing around the number beyond those marked in ``mine``."""


@njit(cache=True, inline="always")
def _covered_around(flat, rows, cols, r, c):
    """Covered cells (hidden, flagged or shown mines) around (r, c)."""
    r0, r1, c0, c1 = block(r, c, rows, cols)
    total = 0
    for rr in range(r0, r1):
        for cc in range(c0, c1):
            total += is_covered(flat[rr * cols + cc])
    return total


@njit(cache=True)
def _mark_around(flat, rows, cols, r, c, target, skip, only_hidden):
    """Set ``target`` on the covered cells (only the hidden ones when ``only_hidden``) around (r, c) that
    are not in ``skip``; returns how many were newly set.

    Callers pass ``only_hidden`` as ``np.bool_(...)``: a literal True or False would compile a copy each.
    """
    r0, r1, c0, c1 = block(r, c, rows, cols)
    newly = 0
    for rr in range(r0, r1):
        for cc in range(c0, c1):
            i = rr * cols + cc
            if is_covered(flat[i]) and (flat[i] == HIDDEN or not only_hidden) and not skip[i] and not target[i]:
                target[i] = True
                newly += 1
    return newly


@njit(cache=True)
def number_facts(flat, rows, cols):
    """The :class:`NumberFacts` of a position: one pass of the mine rule, then each number's balance."""
    n = flat.shape[0]
    mine = np.zeros(n, np.bool_)
    for i in range(n):
        mine[i] = is_known_mine(flat[i], False)
    for r in range(rows):
        for c in range(cols):
            value = flat[r * cols + c]
            if value > 0 and _covered_around(flat, rows, cols, r, c) == value:
                _mark_around(flat, rows, cols, r, c, mine, mine, np.bool_(False))  # see _mark_around
    unknown = np.zeros(n, np.int64)
    missing = np.zeros(n, np.int64)
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            if not is_revealed(flat[i]):
                continue
            r0, r1, c0, c1 = block(r, c, rows, cols)
            marked = 0
            for rr in range(r0, r1):
                for cc in range(c0, c1):
                    j = rr * cols + cc
                    marked += mine[j]
                    unknown[i] += is_covered(flat[j]) and not mine[j]
            missing[i] = flat[i] - marked
    return NumberFacts(mine, unknown, missing)


@njit(cache=True)
def one_number_safe(flat, rows, cols, facts):
    """Hidden cells around a number whose marked mines already make its value (bool per cell)."""
    safe = np.zeros(flat.shape[0], np.bool_)
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            if is_revealed(flat[i]) and facts.missing[i] == 0 and facts.unknown[i]:
                _mark_around(flat, rows, cols, r, c, safe, facts.mine, np.bool_(True))
    return safe


@njit(cache=True, inline="always")
def _shared_unknown(flat, rows, cols, ra, ca, rb, cb, mine):
    """Covered cells not marked in ``mine`` next to both (ra, ca) and (rb, cb)."""
    r0, r1, c0, c1 = shared_block(ra, ca, rb, cb, rows, cols)
    total = 0
    for r in range(r0, r1):
        for c in range(c0, c1):
            i = r * cols + c
            total += is_covered(flat[i]) and not mine[i]
    return total


@njit(cache=True, inline="always")
def _mark_beyond(flat, rows, cols, rb, cb, ra, ca, safe, mine):
    """Set ``safe`` on the hidden cells around (rb, cb), not marked in ``mine``, that are not next to
    (ra, ca)."""
    r0, r1, c0, c1 = block(rb, cb, rows, cols)
    for r in range(r0, r1):
        for c in range(c0, c1):
            i = r * cols + c
            if flat[i] == HIDDEN and not mine[i] and not safe[i] and not adjacent(ra, ca, r, c):
                safe[i] = True


@njit(cache=True)
def two_number_safe(flat, rows, cols, facts):
    """Hidden cells the two-number rule clears (bool per cell), between every number ``a`` and each number
    ``b`` at most two cells from it: ``b``'s unknown cells outside ``a`` hold at most ``b``'s missing mines
    minus the fewest that ``a`` must put in the unknown cells they share, so they are safe when that is 0."""
    mine, unknown, missing = facts.mine, facts.unknown, facts.missing
    safe = np.zeros(flat.shape[0], np.bool_)
    for rb in range(rows):
        for cb in range(cols):
            b = rb * cols + cb
            if unknown[b] == 0:
                continue
            r0, r1, c0, c1 = block(rb, cb, rows, cols, _PAIR_REACH)
            for ra in range(r0, r1):
                for ca in range(c0, c1):
                    a = ra * cols + ca
                    if a == b or unknown[a] == 0:
                        continue
                    shared = _shared_unknown(flat, rows, cols, ra, ca, rb, cb, mine)
                    if 0 < shared < unknown[b] and missing[b] <= missing[a] - (unknown[a] - shared):
                        _mark_beyond(flat, rows, cols, rb, cb, ra, ca, safe, mine)
    return safe


@njit(cache=True)
def local_safe(flat, rows, cols):
    """Hidden cells that one number, or else two numbers together, prove safe, in increasing order: no count
    needed (see the module docstring). Assumes the position fits."""
    facts = number_facts(flat, rows, cols)
    safe = one_number_safe(flat, rows, cols, facts)
    if not safe.any():
        safe = two_number_safe(flat, rows, cols, facts)
    return np.flatnonzero(safe)


@njit(cache=True, inline="always")
def certain_moves(flat, rows, cols, mines):  # type: ignore[no-untyped-def]
    """The hidden cells a position (flat int8 observation) proves safe, and the count a guess needs when none.

    Returns (cells, consistent, probability, log_layouts): the hidden cells one number, or two together,
    prove safe when there are any (:func:`local_safe`, no count needed: then
    ``probability`` is empty), else every certainly safe hidden cell of the exact count, in increasing order;
    ``consistent`` is False (and ``cells`` empty) when no layout fits. When ``cells`` is empty and the
    position fits, a guess is made from ``probability`` and ``log_layouts`` (the natural log of the number
    of layouts).
    """
    cells = local_safe(flat, rows, cols)
    if cells.shape[0]:
        return cells, True, np.empty(0, np.float64), 0.0
    board = count_board(flat, rows, cols, _UNTRUSTED[0], mines)
    probability, log_layouts = board.cells.probability, board.combined.log_layouts
    if board.status != STATUS_OK:
        return np.empty(0, np.int64), False, probability, log_layouts
    return np.flatnonzero(board.cells.safe & (flat == HIDDEN)), True, probability, log_layouts

"""The forward pass of the dynamic programme that counts one component of the frontier.

The boxes are placed one by one in a narrow order (:func:`mine_env.analysis.frontier.narrow_order`). After
each box the state is the row of partial sums of the numbers still open (see
:mod:`mine_env.analysis.state_table`), and every state carries a polynomial in the number of mines placed so
far, built here from the first box on; :mod:`mine_env.analysis.component` adds the backward pass and the
weights. A box of ``size`` cells holding ``k`` mines stands for ``C(size, k)`` layouts.

Weights are float64, divided by :data:`SCALE_LIMIT` (a power of two, so exactly) whenever a cut's weights
grow past it, with the steps counted.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.analysis.counting_base import SLOTS, grown, int_array
from mine_env.analysis.state_table import (
    COLUMNS,
    FWD_AT,
    FWD_LEN,
    FWD_LO,
    ROW,
    STEP,
    cleared_index,
    grown_table,
    row_hash,
    same_row,
)

SCALE_LIMIT = 2.0**100
"""Dynamic-programming weights are divided by this whenever they grow past it (and the steps counted).

Powers of two rescale exactly. The limit is far below float64's range so that mid-sized components (a few
dozen boxes) already take this path and the tests exercise it, not only giant boards."""


class LocalComponent(NamedTuple):
    """One component as the dynamic programme reads it: boxes in their narrow order, numbers renumbered."""

    sizes: np.ndarray
    """Cells per box."""
    cons: np.ndarray
    """(boxes, SLOTS): the component's (local) numbers touching each box."""
    n_cons: np.ndarray
    """Numbers touching each box."""
    targets: np.ndarray
    """Mines each local number still needs."""


class ForwardPass(NamedTuple):
    """The states of every cut (rows of the state table), their transitions and forward polynomials."""

    table: np.ndarray
    """The state table (columns: see mine_env.analysis.state_table), one row per state of every cut."""
    cut_start: np.ndarray
    """First state of each cut (boxes + 2 entries: the states of cut i are cut_start[i]..cut_start[i + 1])."""
    fwd: np.ndarray
    """The forward polynomials, where the table's FWD_* columns say."""
    fwd_scale: np.ndarray
    """Power-of-``SCALE_LIMIT`` steps taken out of each cut's forward weights (cumulative: the last entry is
    every step taken)."""
    rows: np.ndarray
    """The states' partial sums, where the table's ROW column says (with an open number, the last cut's rows
    hold its sum alone: see :func:`forward_pass`)."""
    open_slot: np.ndarray
    """Per cut: where the open number's partial sum sits in its states' rows (-1: not in them, or no open
    number)."""
    open_room: np.ndarray
    """Per cut: the cells of the open number's boxes from that cut on (what its sum may still grow by)."""


class _Cuts(NamedTuple):
    """Where each number opens and closes, and scratch space for the numbers open at the current cut."""

    first: np.ndarray
    """First DP position (box) of each local number."""
    last: np.ndarray
    """Last DP position of each local number."""
    capacity_after: np.ndarray
    """(boxes, SLOTS): cells of the box's j-th number in the boxes after it (a partial sum that cannot reach
    its target even with all of them full is cut off early)."""
    slot: np.ndarray
    """Position of each open number in a state's row at the current cut."""
    active: np.ndarray
    """The numbers open at the current cut, in row order."""
    next_active: np.ndarray
    """The numbers open at the next cut: those staying open, then those the box opens."""
    source: np.ndarray
    """Where each number of the next cut's row comes from in the current row (-1: it opens now)."""
    values: np.ndarray
    """The box's numbers' partial sums after the box (scratch)."""
    row: np.ndarray
    """The next cut's row being built (scratch)."""


@njit(cache=True)
def forward_pass(component: LocalComponent, low: np.ndarray, open_number: int) -> ForwardPass:
    """Every reachable state of every cut, its transitions and its forward polynomial.

    Each number's partial sums are kept within ``low[con]`` (less what the boxes after can add) and
    ``component.targets[con]``: ``low`` is the targets themselves, except for ``open_number`` (a local number,
    or -1 for none), whose target is left open between the two: it is never closed, so its sum stays in the
    states' rows to the last cut, whose states are then one per sum it can reach (without one, the last cut
    has one state, or none when no layout fits). A state of the programme with that number's target set to one
    value is a state here, with the same forward polynomial, summed in the same order (its predecessors are
    states of that programme too), as long as no cut was rescaled (the largest weight of a cut here may be
    larger).

    The loop over a cut's states and the mine counts of the box is written out here, not split into
    helpers: numba wraps an inlined helper that takes these arrays in reference counting, which made this
    pass 1.4 to 3 times slower.
    """
    sizes, cons, n_cons, targets = component.sizes, component.cons, component.n_cons, component.targets
    n_boxes = sizes.shape[0]
    cuts = _cuts(component, open_number)
    first, last, capacity_after, slot = cuts.first, cuts.last, cuts.capacity_after, cuts.slot
    next_active, source, values, row = cuts.next_active, cuts.source, cuts.values, cuts.row
    room = 8 * n_boxes + 16  # a few states per cut: the buffers are grown (copied) when they are short
    table = np.empty((room, COLUMNS), np.int64)
    cut_start = np.empty(n_boxes + 2, np.int64)
    rows_buffer = np.empty(4 * room, np.int64)
    index = np.empty(64, np.int64)
    fwd = np.empty(4 * room, np.float64)
    fwd_scale = np.empty(n_boxes + 1, np.int64)
    # Cut 0: one empty state, weight 1 at zero mines.
    table[0, ROW] = 0
    table[0, FWD_AT] = 0
    table[0, FWD_LO] = 0
    table[0, FWD_LEN] = 1
    fwd[0] = 1.0
    fwd_scale[0] = 0
    open_slot = int_array(n_boxes + 1, -1)
    cut_start[0] = 0
    cut_start[1] = 1
    # Counters read back from the arrays (1, 0, 1), so that numba types them as plain integers: a literal
    # initial value would make it compile extra constant-argument copies of the helpers they are passed to.
    n_states, rows_used, fwd_used = cut_start[1], table[0, ROW], table[0, FWD_LEN]
    n_open = 0
    for i in range(n_boxes):
        width = _next_open(i, component, cuts, n_open)
        begin, end = cut_start[i], cut_start[i + 1]
        candidates = (end - begin) * (sizes[i] + 1)
        index, mask = cleared_index(index, candidates)
        table = grown_table(table, n_states + candidates)
        for s in range(begin, end):
            base = table[s, ROW]
            for k in range(sizes[i] + 1):
                table[s, STEP + k] = -1
                # The partial sums of the box's numbers with k mines in it: each must stay within reach of
                # its target.
                valid = True
                for j in range(n_cons[i]):
                    con = cons[i, j]
                    value = k + (rows_buffer[base + slot[con]] if first[con] < i else 0)
                    values[j] = value
                    valid = valid and low[con] - capacity_after[i, j] <= value <= targets[con]
                if not valid:
                    continue
                # The next state's row: the numbers staying open carry their sums, those the box opens start.
                for q in range(width):
                    row[q] = rows_buffer[base + source[q]] if source[q] >= 0 else 0
                for j in range(n_cons[i]):
                    con = cons[i, j]
                    if last[con] != i:
                        for q in range(width):
                            if next_active[q] == con:
                                row[q] = values[j]
                # The state with these partial sums (see mine_env.analysis.state_table), new if there is none.
                h = row_hash(row, width, mask)
                t = index[h]
                while t >= 0 and not same_row(rows_buffer, table[t, ROW], row, width):
                    h = (h + np.uint64(1)) & mask
                    t = index[h]
                if t < 0:
                    t = n_states
                    n_states += 1
                    index[h] = t
                    rows_buffer = grown(rows_buffer, rows_used + width)
                    for q in range(width):
                        rows_buffer[rows_used + q] = row[q]
                    table[t, ROW] = rows_used
                    rows_used += width
                    table[t, FWD_LO] = table[s, FWD_LO] + k
                    table[t, FWD_LEN] = table[s, FWD_LEN]
                else:
                    _widen_forward_range(table, t, s, k)
                table[s, STEP + k] = t
        cut_start[i + 2] = n_states
        cut_fwd_begin = fwd_used
        fwd, fwd_used = _forward_polynomials(table, begin, end, n_states, sizes[i], fwd, fwd_used)
        fwd_scale[i + 1] = fwd_scale[i] + scale_down(fwd, cut_fwd_begin, fwd_used)
        n_open = _advance(cuts, width)
        open_slot[i + 1] = cuts.slot[open_number] if open_number >= 0 and first[open_number] <= i else -1
    return ForwardPass(table, cut_start, fwd, fwd_scale, rows_buffer, open_slot, _open_room(component, open_number))


@njit(cache=True, inline="always")
def _open_room(component: LocalComponent, open_number: int) -> np.ndarray:
    """Per cut, the cells of ``open_number``'s boxes from that cut on (all 0 when it is -1)."""
    n_boxes = component.sizes.shape[0]
    room = int_array(n_boxes + 1, 0)
    for i in range(n_boxes - 1, -1, -1):
        room[i] = room[i + 1]
        for j in range(component.n_cons[i]):
            if component.cons[i, j] == open_number:
                room[i] += component.sizes[i]
    return room


@njit(cache=True, inline="always")
def _widen_forward_range(table: np.ndarray, t: int, s: int, k: int) -> None:
    """Widen state ``t``'s forward mine-total range to cover state ``s``'s range shifted by ``k`` mines."""
    lo = min(table[t, FWD_LO], table[s, FWD_LO] + k)
    hi = max(table[t, FWD_LO] + table[t, FWD_LEN], table[s, FWD_LO] + k + table[s, FWD_LEN])
    table[t, FWD_LO] = lo
    table[t, FWD_LEN] = hi - lo


@njit(cache=True, inline="always")
def _cuts(component: LocalComponent, open_number: int) -> _Cuts:
    """First and last DP position of every local number (the open number's last is past the last box), the
    capacity left after each box, and scratch."""
    sizes, cons, n_cons = component.sizes, component.cons, component.n_cons
    n_boxes = sizes.shape[0]
    n_local = component.targets.shape[0]
    first = int_array(n_local, n_boxes)
    last = int_array(n_local, -1)
    capacity = int_array(n_local, 0)
    capacity_after = np.empty((n_boxes, SLOTS), np.int64)
    for i in range(n_boxes - 1, -1, -1):
        for j in range(n_cons[i]):
            con = cons[i, j]
            first[con] = i
            if last[con] < 0:
                last[con] = i
            capacity_after[i, j] = capacity[con]
        for j in range(n_cons[i]):
            capacity[cons[i, j]] += sizes[i]
    if open_number >= 0:
        last[open_number] = n_boxes
    return _Cuts(
        first, last, capacity_after, int_array(n_local, -1), np.empty(n_local + 1, np.int64),
        np.empty(n_local + 1, np.int64), np.empty(n_local + 1, np.int64), np.empty(SLOTS, np.int64),
        np.empty(n_local + 1, np.int64),
    )  # fmt: skip


@njit(cache=True, inline="always")
def _next_open(i: int, component: LocalComponent, cuts: _Cuts, n_open: int) -> int:
    """Lay out the row of the cut after box ``i`` in ``cuts.next_active`` / ``cuts.source``; its width."""
    width = 0
    for q in range(n_open):
        if cuts.last[cuts.active[q]] != i:
            cuts.next_active[width] = cuts.active[q]
            cuts.source[width] = q
            width += 1
    for j in range(component.n_cons[i]):
        con = component.cons[i, j]
        if cuts.first[con] == i and cuts.last[con] != i:
            cuts.next_active[width] = con
            cuts.source[width] = -1
            width += 1
    return width


@njit(cache=True, inline="always")
def _advance(cuts: _Cuts, width: int) -> int:
    """Make the next cut's open numbers the current ones; their number."""
    for q in range(width):
        cuts.active[q] = cuts.next_active[q]
        cuts.slot[cuts.next_active[q]] = q
    return width


@njit(cache=True, inline="always")
def _forward_polynomials(
    table: np.ndarray, begin: int, end: int, n_states: int, size: int, fwd: np.ndarray, fwd_used: int
) -> tuple[np.ndarray, int]:
    """Lay out and sum the forward polynomials of the states ``end..n_states`` reached from ``begin..end``.

    Returns the forward buffer (grown if needed) and its new used length.
    """
    binomial = binomials(size)
    cut_fwd_begin = fwd_used
    for t in range(end, n_states):
        table[t, FWD_AT] = fwd_used
        fwd_used += table[t, FWD_LEN]
    fwd = grown(fwd, fwd_used)
    for x in range(cut_fwd_begin, fwd_used):
        fwd[x] = 0.0
    for s in range(begin, end):
        for k in range(size + 1):
            t = table[s, STEP + k]
            if t < 0:
                continue
            into = table[t, FWD_AT] + table[s, FWD_LO] + k - table[t, FWD_LO]
            for a in range(table[s, FWD_LEN]):
                fwd[into + a] += binomial[k] * fwd[table[s, FWD_AT] + a]
    return fwd, fwd_used


_BINOMIALS = np.array([[math.comb(size, k) for k in range(SLOTS + 1)] for size in range(SLOTS + 1)], np.float64)
"""C(size, k) for size, k = 0..8 (0 where k > size), exact in float64: a constant of the compiled code."""


@njit(cache=True, inline="always")
def binomials(size: int) -> np.ndarray:
    """C(size, k) for k = 0..size (and 0 after), exact in float64 (size <= 8): a row of a constant table, so
    the dynamic programme's loop over boxes allocates nothing for it."""
    return _BINOMIALS[size]


@njit(cache=True)
def scale_down(buffer: np.ndarray, start: int, stop: int) -> int:
    """Divide buffer[start:stop] by SCALE_LIMIT while its maximum exceeds it; return the steps taken."""
    largest = 0.0
    for x in range(start, stop):
        largest = max(largest, buffer[x])
    steps = 0
    while largest > SCALE_LIMIT:
        largest /= SCALE_LIMIT
        steps += 1
        for x in range(start, stop):
            buffer[x] /= SCALE_LIMIT
    return steps

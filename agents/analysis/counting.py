"""Numba kernels of the exact mine-probability engine (see :mod:`agents.analysis.probability` and docs/PROBABILITY.md).

The counting works on *boxes*: hidden cells touched by exactly the same set of revealed numbers are
interchangeable, so a box of ``size`` cells holding ``k`` mines stands for ``C(size, k)`` layouts. Boxes that
share numbers form independent *components*. Each component is counted exactly by dynamic programming over
an ordering of its boxes: the state after placing a prefix of the boxes is the vector of partial sums of
the numbers that have boxes on both sides of the cut, and every state carries a polynomial in the number of
mines placed so far. A forward and a backward pass give, per component, the weight of its solutions by
mine total and, per box, the weighted mine (and safe) count by mine total. The components are then combined
over totals with the ``C(unconstrained cells, mines left)`` weights of the cells no number touches.

All weights are float64 with explicit power-of-two or logarithmic scale factors, so nothing overflows;
whether a cell is certainly safe (or a mine) is decided from exact zero / non-zero patterns, never from a
float tolerance.

Style note: the kernels spell out element loops and use no numpy function but ``np.empty``, and the
integers they pass to each other are read from arrays or returned by calls, never loop counters started
from a constant. Numba compiles every numpy overload, array method and each constant-argument
specialisation of a helper separately, which made a cold compile of this module several times slower; a
cold compile has to stay short for test runs.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mine_env.engine.constants import FLAG, HIDDEN, MINE

STATUS_OK = 0
STATUS_BAD_NUMBER = 1
"""A revealed number needs more mines than it has hidden neighbours, or fewer than the shown mines."""
STATUS_BAD_COMPONENT = 2
"""A group of numbers sharing hidden cells cannot be satisfied together."""
STATUS_BAD_TOTAL = 3
"""No split of the total mine count between the frontier and the unconstrained cells fits."""

_SLOTS = 8
"""A cell has at most 8 numbers around it, a number at most 8 boxes, a box at most 8 cells."""
_SCALE_LIMIT = 2.0**100
"""Dynamic-programming weights are divided by this whenever they grow past it (and the steps counted).

Powers of two rescale exactly. The limit is far below float64's range so that mid-sized components (a few
dozen boxes) already take this path and the tests exercise it, not only giant boards."""
_LOG_SCALE_LIMIT = 100.0 * math.log(2.0)

# Columns of the per-state table of the dynamic programme.
_ROW = 0  # start of the state's partial sums in the rows buffer
_FWD_AT = 1  # forward polynomial: start in the forward buffer, lowest total, length
_FWD_LO = 2
_FWD_LEN = 3
_BWD_AT = 4  # backward polynomial, likewise (length 0: the state cannot be completed)
_BWD_LO = 5
_BWD_LEN = 6
_STEP = 7  # _STEP + k: the state reached with k mines in the cut's box, -1 if that breaks a number
_COLUMNS = _STEP + _SLOTS + 1


# ----------------------------------------------------------------------------------------------------------
# Frontier: numbers, boxes and components.
# ----------------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _int_array(length, value):
    """An int64 array of ``length`` copies of ``value`` (inlined: no constant-argument copies to compile)."""
    array = np.empty(length, np.int64)
    for i in range(length):
        array[i] = value
    return array


@njit(cache=True)
def _frontier(flat, rows, cols, trust_flags):
    """Numbers as constraints, and hidden cells grouped into boxes.

    Returns (status, offending number cell, number of known mines, constraint cell, constraint target
    (mines still missing), box of each cell (-1: unconstrained), number of unconstrained unknown cells, box
    sizes, box constraints (boxes, 8), constraints per box, boxes of each constraint (constraints, 8), boxes
    per constraint).
    Constraint ids follow the row-major order of their number cells, so a cell's constraints come out
    sorted; cells sharing a box share their smallest constraint, so a new cell is only compared with the
    (at most 8) boxes filed under it.
    """
    n = rows * cols
    unknown = np.empty(n, np.bool_)
    known_mine = np.empty(n, np.bool_)
    n_known = 0
    for i in range(n):
        value = flat[i]
        unknown[i] = value == HIDDEN or (value == FLAG and not trust_flags)
        known_mine[i] = value == MINE or (value == FLAG and trust_flags)
        n_known += known_mine[i]

    constraint_of_cell = _int_array(n, -1)
    constraint_cell = np.empty(n, np.int64)
    target = np.empty(n, np.int64)
    n_cons = 0
    status, bad_cell = STATUS_OK, -1
    for i in range(n):
        if flat[i] < 0:
            continue
        r, c = i // cols, i % cols
        hidden, mines = 0, 0
        for rr in range(max(r - 1, 0), min(r + 2, rows)):
            for cc in range(max(c - 1, 0), min(c + 2, cols)):
                hidden += unknown[rr * cols + cc]
                mines += known_mine[rr * cols + cc]
        missing = flat[i] - mines
        if missing < 0 or missing > hidden:
            status, bad_cell = STATUS_BAD_NUMBER, i
            n_cons = 0
            break
        if hidden > 0:
            constraint_of_cell[i] = n_cons
            constraint_cell[n_cons] = i
            target[n_cons] = missing
            n_cons += 1

    box_of_cell = _int_array(n, -1)
    box_size = np.empty(n, np.int64)
    box_cons = np.empty((n, _SLOTS), np.int64)
    box_n_cons = np.empty(n, np.int64)
    cons_boxes = np.empty((n_cons + 1, _SLOTS), np.int64)
    cons_n_boxes = _int_array(n_cons + 1, 0)
    touching = np.empty(_SLOTS, np.int64)
    n_boxes = 0
    for i in range(n if n_cons > 0 else 0):
        if not unknown[i]:
            continue
        r, c = i // cols, i % cols
        count = 0
        for rr in range(max(r - 1, 0), min(r + 2, rows)):
            for cc in range(max(c - 1, 0), min(c + 2, cols)):
                con = constraint_of_cell[rr * cols + cc]
                if con >= 0:
                    touching[count] = con
                    count += 1
        if count == 0:
            continue
        smallest = touching[0]
        box = -1
        for q in range(cons_n_boxes[smallest]):
            candidate = cons_boxes[smallest, q]
            same = box_n_cons[candidate] == count and box_cons[candidate, 0] == smallest
            for j in range(count if same else 0):
                same = same and box_cons[candidate, j] == touching[j]
            if same:
                box = candidate
                break
        if box < 0:
            box = n_boxes
            n_boxes += 1
            box_size[box] = 0
            box_n_cons[box] = count
            for j in range(count):
                con = touching[j]
                box_cons[box, j] = con
                cons_boxes[con, cons_n_boxes[con]] = box
                cons_n_boxes[con] += 1
        box_of_cell[i] = box
        box_size[box] += 1
    interior = 0
    for i in range(n):
        interior += unknown[i] and box_of_cell[i] < 0
    return (
        status,
        bad_cell,
        n_known,
        constraint_cell[:n_cons],
        target[:n_cons],
        box_of_cell,
        interior,
        box_size[:n_boxes],
        box_cons[:n_boxes],
        box_n_cons[:n_boxes],
        cons_boxes,
        cons_n_boxes,
    )


@njit(cache=True)
def _components(cons_boxes, cons_n_boxes, n_cons, n_boxes):
    """Label boxes linked through shared constraints (union-find); labels follow their first box."""
    parent = np.empty(n_boxes, np.int64)
    for box in range(n_boxes):
        parent[box] = box
    for con in range(n_cons):
        for q in range(cons_n_boxes[con]):
            a, b = cons_boxes[con, 0], cons_boxes[con, q]
            while parent[a] != a:
                a = parent[a]
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            parent[b] = a
    label = _int_array(n_boxes, -1)
    component_of_box = np.empty(n_boxes, np.int64)
    n_components = 0
    for box in range(n_boxes):
        root = box
        while parent[root] != root:
            root = parent[root]
        if label[root] < 0:
            label[root] = n_components
            n_components += 1
        component_of_box[box] = label[root]
    return component_of_box, n_components


@njit(cache=True)
def _narrow_order(local_of_box, boxes, box_cons, box_n_cons, cons_boxes, cons_n_boxes):
    """An order of a component's boxes (local indices) with few numbers "open" at any cut.

    Breadth-first search from a pseudo-peripheral box (the last box reached by a first search from box 0)
    walks a frontier from one end to the other, which keeps the DP state small.
    """
    n = boxes.shape[0]
    order = np.empty(n, np.int64)
    seen = np.empty(n, np.bool_)
    order[n - 1] = 0
    for _ in range(2):
        for q in range(n):
            seen[q] = False
        order[0] = order[n - 1]
        seen[order[0]] = True
        head, tail = 0, 1
        while head < tail:
            box = boxes[order[head]]
            head += 1
            for j in range(box_n_cons[box]):
                con = box_cons[box, j]
                for q in range(cons_n_boxes[con]):
                    local = local_of_box[cons_boxes[con, q]]
                    if not seen[local]:
                        seen[local] = True
                        order[tail] = local
                        tail += 1
    return order


# ----------------------------------------------------------------------------------------------------------
# Counting one component.
# ----------------------------------------------------------------------------------------------------------


@njit(cache=True)
def _grown(array, needed):
    """``array`` itself, or a copy with at least twice as many rows when it has fewer than ``needed``."""
    if array.shape[0] >= needed:
        return array
    bigger = np.empty((max(needed, 2 * array.shape[0]), *array.shape[1:]), array.dtype)
    bigger[: array.shape[0]] = array
    return bigger


@njit(cache=True)
def _scale_down(buffer, start, stop):
    """Divide buffer[start:stop] by _SCALE_LIMIT while its maximum exceeds it; return the steps taken."""
    largest = 0.0
    for x in range(start, stop):
        largest = max(largest, buffer[x])
    steps = 0
    while largest > _SCALE_LIMIT:
        largest /= _SCALE_LIMIT
        steps += 1
        for x in range(start, stop):
            buffer[x] /= _SCALE_LIMIT
    return steps


@njit(cache=True)
def _binomials(size):
    """C(size, k) for k = 0..size, exact in float64 (size <= 8)."""
    row = np.empty(size + 1, np.float64)
    row[0] = 1.0
    for k in range(1, size + 1):
        row[k] = row[k - 1] * (size - k + 1) / k
    return row


@njit(cache=True)
def _cut_layout(sizes, cons, n_cons, n_local):
    """First and last DP position of every local constraint, and per (box, constraint) the capacity left.

    ``capacity_after[i, j]``: cells of constraint ``cons[i, j]`` in boxes after position ``i``; a partial sum
    that cannot reach its target even with all of them full is cut off early.
    """
    n_boxes = sizes.shape[0]
    first = _int_array(n_local, n_boxes)
    last = _int_array(n_local, -1)
    capacity = _int_array(n_local, 0)
    capacity_after = np.empty((n_boxes, _SLOTS), np.int64)
    for i in range(n_boxes - 1, -1, -1):
        for j in range(n_cons[i]):
            con = cons[i, j]
            first[con] = i
            if last[con] < 0:
                last[con] = i
            capacity_after[i, j] = capacity[con]
        for j in range(n_cons[i]):
            capacity[cons[i, j]] += sizes[i]
    return first, last, capacity_after


@njit(cache=True)
def _forward(sizes, cons, n_cons, targets):
    """Forward pass: every reachable state of every cut, its transitions and forward polynomial.

    Returns (state table (see the column constants), start of each cut's states (boxes + 2), rows buffer,
    forward buffer, power-of-_SCALE_LIMIT steps taken out of each cut's forward weights).
    """
    n_boxes = sizes.shape[0]
    n_local = targets.shape[0]
    first, last, capacity_after = _cut_layout(sizes, cons, n_cons, n_local)
    table = np.empty((16, _COLUMNS), np.int64)
    cut_start = np.empty(n_boxes + 2, np.int64)
    rows_buffer = np.empty(16, np.int64)
    fwd = np.empty(16, np.float64)
    fwd_scale = np.empty(n_boxes + 1, np.int64)
    # Cut 0: one empty state, weight 1 at zero mines.
    table[0, _ROW] = 0
    table[0, _FWD_AT] = 0
    table[0, _FWD_LO] = 0
    table[0, _FWD_LEN] = 1
    fwd[0] = 1.0
    fwd_scale[0] = 0
    cut_start[0] = 0
    cut_start[1] = 1
    # Counters read back from the arrays (1, 0, 1), so that numba types them as plain integers: a literal
    # initial value would make it compile extra constant-argument copies of the helpers they are passed to.
    n_states, rows_used, fwd_used = cut_start[1], table[0, _ROW], table[0, _FWD_LEN]

    slot = _int_array(n_local, -1)
    active = np.empty(n_local + 1, np.int64)
    n_active = 0
    next_active = np.empty(n_local + 1, np.int64)
    source = np.empty(n_local + 1, np.int64)
    row = np.empty(n_local + 1, np.int64)
    values = np.empty(_SLOTS, np.int64)
    for i in range(n_boxes):
        size = sizes[i]
        binomial = _binomials(size)
        # Layout of the next cut: open numbers that stay open, then the numbers this box opens.
        width = 0
        for q in range(n_active):
            if last[active[q]] != i:
                next_active[width] = active[q]
                source[width] = q
                width += 1
        for j in range(n_cons[i]):
            con = cons[i, j]
            if first[con] == i and last[con] != i:
                next_active[width] = con
                source[width] = -1
                width += 1

        begin, end = cut_start[i], cut_start[i + 1]
        candidates = (end - begin) * (size + 1)
        table_size = 1
        while table_size < 2 * candidates + 1:
            table_size *= 2
        index = _int_array(table_size, -1)
        table = _grown(table, n_states + candidates)
        for s in range(begin, end):
            base = table[s, _ROW]
            for k in range(size + 1):
                table[s, _STEP + k] = -1
                valid = True
                for j in range(n_cons[i]):
                    con = cons[i, j]
                    value = k + (rows_buffer[base + slot[con]] if first[con] < i else 0)
                    values[j] = value
                    valid = valid and targets[con] - capacity_after[i, j] <= value <= targets[con]
                if not valid:
                    continue
                for q in range(width):
                    row[q] = rows_buffer[base + source[q]] if source[q] >= 0 else 0
                for j in range(n_cons[i]):
                    con = cons[i, j]
                    if last[con] != i:
                        for q in range(width):
                            if next_active[q] == con:
                                row[q] = values[j]
                h = np.uint64(1469598103934665603)
                for q in range(width):
                    h = (h ^ np.uint64(row[q] + 1)) * np.uint64(1099511628211)
                h &= np.uint64(table_size - 1)
                while True:
                    t = index[h]
                    if t < 0:
                        t = n_states
                        n_states += 1
                        index[h] = t
                        rows_buffer = _grown(rows_buffer, rows_used + width)
                        for q in range(width):
                            rows_buffer[rows_used + q] = row[q]
                        table[t, _ROW] = rows_used
                        rows_used += width
                        table[t, _FWD_LO] = table[s, _FWD_LO] + k
                        table[t, _FWD_LEN] = table[s, _FWD_LEN]
                        break
                    same = True
                    for q in range(width):
                        same = same and rows_buffer[table[t, _ROW] + q] == row[q]
                    if same:
                        lo = min(table[t, _FWD_LO], table[s, _FWD_LO] + k)
                        hi = max(table[t, _FWD_LO] + table[t, _FWD_LEN], table[s, _FWD_LO] + k + table[s, _FWD_LEN])
                        table[t, _FWD_LO] = lo
                        table[t, _FWD_LEN] = hi - lo
                        break
                    h = (h + np.uint64(1)) & np.uint64(table_size - 1)
                table[s, _STEP + k] = t
        cut_start[i + 2] = n_states

        # Forward polynomials of the new cut.
        cut_fwd_begin = fwd_used
        for t in range(end, n_states):
            table[t, _FWD_AT] = fwd_used
            fwd_used += table[t, _FWD_LEN]
        fwd = _grown(fwd, fwd_used)
        for x in range(cut_fwd_begin, fwd_used):
            fwd[x] = 0.0
        for s in range(begin, end):
            for k in range(size + 1):
                t = table[s, _STEP + k]
                if t < 0:
                    continue
                into = table[t, _FWD_AT] + table[s, _FWD_LO] + k - table[t, _FWD_LO]
                for a in range(table[s, _FWD_LEN]):
                    fwd[into + a] += binomial[k] * fwd[table[s, _FWD_AT] + a]
        fwd_scale[i + 1] = fwd_scale[i] + _scale_down(fwd, cut_fwd_begin, fwd_used)

        for q in range(width):
            active[q] = next_active[q]
            slot[next_active[q]] = q
        n_active = width
    return table, cut_start, fwd, fwd_scale


@njit(cache=True)
def _backward(sizes, table, cut_start, buffer_hint):
    """Backward pass: per state, the weights of its completions by mines placed from its cut on.

    Fills the _BWD_* columns of ``table``; returns (backward buffer, scale steps per cut).
    """
    n_boxes = sizes.shape[0]
    bwd = np.empty(max(buffer_hint, 1), np.float64)
    bwd_scale = np.empty(n_boxes + 1, np.int64)
    final = cut_start[n_boxes]
    table[final, _BWD_AT] = 0
    table[final, _BWD_LO] = 0
    table[final, _BWD_LEN] = 1
    bwd[0] = 1.0
    bwd_scale[n_boxes] = 0
    bwd_used = table[final, _BWD_LEN]
    for i in range(n_boxes - 1, -1, -1):
        size = sizes[i]
        binomial = _binomials(size)
        cut_bwd_begin = bwd_used
        for s in range(cut_start[i], cut_start[i + 1]):
            lo, hi = n_boxes * _SLOTS + 1, -1
            for k in range(size + 1):
                t = table[s, _STEP + k]
                if t >= 0 and table[t, _BWD_LEN] > 0:
                    lo = min(lo, table[t, _BWD_LO] + k)
                    hi = max(hi, table[t, _BWD_LO] + k + table[t, _BWD_LEN] - 1)
            table[s, _BWD_AT] = bwd_used
            table[s, _BWD_LO] = lo
            table[s, _BWD_LEN] = max(hi - lo + 1, 0)
            if hi < lo:
                continue
            bwd = _grown(bwd, bwd_used + hi - lo + 1)
            for x in range(bwd_used, bwd_used + hi - lo + 1):
                bwd[x] = 0.0
            for k in range(size + 1):
                t = table[s, _STEP + k]
                if t < 0 or table[t, _BWD_LEN] == 0:
                    continue
                into = bwd_used + table[t, _BWD_LO] + k - lo
                for b in range(table[t, _BWD_LEN]):
                    bwd[into + b] += binomial[k] * bwd[table[t, _BWD_AT] + b]
            bwd_used += hi - lo + 1
        bwd_scale[i] = bwd_scale[i + 1] + _scale_down(bwd, cut_bwd_begin, bwd_used)
    return bwd, bwd_scale


@njit(cache=True)
def _weigh_component(sizes, table, cut_start, fwd, fwd_scale):
    """Finish counting a solvable component after :func:`_forward`: backward pass and per-box sums.

    Args:
        sizes: cells per box, boxes in DP order.
        table, cut_start, fwd, fwd_scale: the forward pass's results (the last cut has its one state).

    Returns:
        (lowest mine total, weights by total, per-box mine-weighted sums by total (boxes, span), per-box
        safe-weighted sums by total, natural log of the common scale). ``weights[m] * exp(scale)`` is the
        number of the component's layouts with ``lowest + m`` mines, ``mine_sums[b, m]`` the sum over those
        layouts of the mines in box b (same scale), ``safe_sums[b, m]`` of its safe cells.
    """
    n_boxes = sizes.shape[0]
    final = cut_start[n_boxes]
    lowest = table[final, _FWD_LO]
    span = table[final, _FWD_LEN]
    largest = 0.0
    for m in range(span):
        largest = max(largest, fwd[table[final, _FWD_AT] + m])
    weights = np.empty(span, np.float64)
    for m in range(span):
        weights[m] = fwd[table[final, _FWD_AT] + m] / largest
    bwd, bwd_scale = _backward(sizes, table, cut_start, fwd.shape[0])

    # Per box i: sum over all solutions of (mines in the box) and (safe cells in the box), by total. The
    # transitions into each state t of cut i + 1 are first summed into t's own mine- and safe-weighted
    # forward polynomials, so each state needs one product with its backward polynomial, not one per
    # incoming transition.
    mine_sums = np.empty((n_boxes, span), np.float64)
    safe_sums = np.empty((n_boxes, span), np.float64)
    mine_forward = np.empty(fwd.shape[0], np.float64)
    safe_forward = np.empty(fwd.shape[0], np.float64)
    for i in range(n_boxes):
        size = sizes[i]
        binomial = _binomials(size)
        for m in range(span):
            mine_sums[i, m] = 0.0
            safe_sums[i, m] = 0.0
        first, last = cut_start[i + 1], cut_start[i + 2] - 1
        for x in range(table[first, _FWD_AT], table[last, _FWD_AT] + table[last, _FWD_LEN]):
            mine_forward[x] = 0.0
            safe_forward[x] = 0.0
        for s in range(cut_start[i], cut_start[i + 1]):
            for k in range(size + 1):
                t = table[s, _STEP + k]
                if t < 0 or table[t, _BWD_LEN] == 0:
                    continue
                into = table[t, _FWD_AT] + table[s, _FWD_LO] + k - table[t, _FWD_LO]
                for a in range(table[s, _FWD_LEN]):
                    weighted = fwd[table[s, _FWD_AT] + a] * binomial[k]
                    mine_forward[into + a] += weighted * k
                    safe_forward[into + a] += weighted * (size - k)
        # Bring F_i * B_(i+1) to the scale of the weights (usually a factor of 1 / largest).
        factor = 1.0 / largest
        for _ in range(fwd_scale[i] + bwd_scale[i + 1] - fwd_scale[n_boxes]):
            factor *= _SCALE_LIMIT
        for _ in range(fwd_scale[n_boxes] - fwd_scale[i] - bwd_scale[i + 1]):
            factor /= _SCALE_LIMIT
        for t in range(first, last + 1):
            for a in range(table[t, _FWD_LEN] if table[t, _BWD_LEN] > 0 else 0):
                mine_part = mine_forward[table[t, _FWD_AT] + a] * factor
                safe_part = safe_forward[table[t, _FWD_AT] + a] * factor
                offset = table[t, _FWD_LO] + a + table[t, _BWD_LO] - lowest
                for b in range(table[t, _BWD_LEN] if mine_part > 0.0 or safe_part > 0.0 else 0):
                    mine_sums[i, offset + b] += mine_part * bwd[table[t, _BWD_AT] + b]
                    safe_sums[i, offset + b] += safe_part * bwd[table[t, _BWD_AT] + b]
    log_scale = fwd_scale[n_boxes] * _LOG_SCALE_LIMIT + math.log(largest)
    return lowest, weights, mine_sums, safe_sums, log_scale


# ----------------------------------------------------------------------------------------------------------
# Combining components with the unconstrained cells.
# ----------------------------------------------------------------------------------------------------------


@njit(cache=True)
def _log_interior_weights(lowest, span, interior, mines_left):
    """log C(interior, mines_left - m) for frontier totals m = lowest .. lowest + span - 1 (-inf: impossible).

    One lgamma anchor, then the exact ratio C(n, r - 1) / C(n, r) = r / (n - r + 1) step by step, so
    neighbouring totals keep full relative precision even for thousands of unconstrained cells.
    """
    logs = np.empty(span, np.float64)
    anchored = False
    for x in range(span):
        logs[x] = -np.inf
        rest = mines_left - (lowest + x)
        if rest < 0 or rest > interior:
            continue
        if anchored:  # valid rests form one run, each one less than the one before
            logs[x] = logs[x - 1] + math.log(rest + 1.0) - math.log(interior - rest)
        else:
            logs[x] = math.lgamma(interior + 1.0) - math.lgamma(rest + 1.0) - math.lgamma(interior - rest + 1.0)
            anchored = True
    return logs


@njit(cache=True)
def _prefixes(comp_lo, comp_span, comp_weight_start, weights):
    """P_j, the distribution of the total of components 0..j-1 (normalised per j), and its exact support.

    Returns (prefix weights (components + 1, width), possible (same shape, exact), length of P_j, sum of
    the logs of the normalisations, lowest frontier total).
    """
    n_comp = comp_span.shape[0]
    prefix_len = np.empty(n_comp + 1, np.int64)
    prefix_len[0] = 1
    for c in range(n_comp):
        prefix_len[c + 1] = prefix_len[c] + comp_span[c] - 1
    width = prefix_len[n_comp]
    prefix = np.empty((n_comp + 1, width), np.float64)
    possible = np.empty((n_comp + 1, width), np.bool_)
    for c in range(n_comp + 1):
        for x in range(width):
            prefix[c, x] = 0.0
            possible[c, x] = False
    prefix[0, 0] = 1.0
    possible[0, 0] = True
    log_prefix = 0.0
    for c in range(n_comp):
        start = comp_weight_start[c]
        for x in range(prefix_len[c]):
            for m in range(comp_span[c] if possible[c, x] else 0):
                if weights[start + m] > 0.0:
                    prefix[c + 1, x + m] += prefix[c, x] * weights[start + m]
                    possible[c + 1, x + m] = True
        largest = 0.0
        for x in range(prefix_len[c + 1]):
            largest = max(largest, prefix[c + 1, x])
        for x in range(prefix_len[c + 1]):
            prefix[c + 1, x] /= largest
        log_prefix += math.log(largest)
    lowest_total = 0
    for c in range(n_comp):
        lowest_total += comp_lo[c]
    return prefix, possible, prefix_len, log_prefix, lowest_total


@njit(cache=True)
def _outside_weights(comp_span, comp_weight_start, weights, prefix, possible, prefix_len, interior_exp, interior_ok):
    """O_c[m], the weight of the rest of the board when component c holds m more than its lowest total.

    With R_j[x] the weight of components j.. plus the unconstrained cells given x mines before component j,
    O_c[m] = sum_x P_c[x] R_(c+1)[x + m], and R_c[x] = sum_m W_c[m] R_(c+1)[x + m], from the last component
    back. Boolean twins of the recursions say exactly which totals are possible.
    """
    n_comp = comp_span.shape[0]
    width = interior_exp.shape[0]
    outside = np.empty(weights.shape[0], np.float64)
    outside_possible = np.empty(weights.shape[0], np.bool_)
    suffix = np.empty(width, np.float64)
    suffix_ok = np.empty(width, np.bool_)
    new_suffix = np.empty(width, np.float64)
    new_ok = np.empty(width, np.bool_)
    for x in range(width):
        suffix[x] = interior_exp[x]
        suffix_ok[x] = interior_ok[x]
    for c in range(n_comp - 1, -1, -1):
        start = comp_weight_start[c]
        best = 0.0
        for m in range(comp_span[c]):
            acc = 0.0
            ok = False
            for x in range(prefix_len[c]):
                if possible[c, x] and suffix_ok[x + m]:
                    acc += prefix[c, x] * suffix[x + m]
                    ok = True
            outside[start + m] = acc
            outside_possible[start + m] = ok and weights[start + m] > 0.0
            best = max(best, acc)
        for m in range(comp_span[c] if best > 0.0 else 0):
            outside[start + m] /= best
        largest = 0.0
        for x in range(prefix_len[c]):
            acc = 0.0
            ok = False
            for m in range(comp_span[c]):
                if weights[start + m] > 0.0 and suffix_ok[x + m]:
                    acc += weights[start + m] * suffix[x + m]
                    ok = True
            new_suffix[x] = acc
            new_ok[x] = ok
            largest = max(largest, acc)
        for x in range(prefix_len[c]):
            suffix[x] = new_suffix[x] / largest if largest > 0.0 else 0.0
            suffix_ok[x] = new_ok[x]
    return outside, outside_possible


@njit(cache=True)
def _certain_or_inward(p, safe, full):
    """Exact 0 / 1 for certain cells; otherwise ``p`` kept strictly inside (0, 1).

    So ``p == 0`` and ``p == 1`` mean "certain" and nothing else: an uncertain probability that rounds to
    an extreme is moved inward to the nearest float (its true value is closer to that than to the extreme).
    """
    if safe:
        return 0.0
    if full:
        return 1.0
    return min(max(p, 5e-324), 1.0 - 2.0**-53)


@njit(cache=True)
def _interior_summary(prefix, possible, width, log_interior, interior, mines_left, lowest_total):
    """Frontier totals against the unconstrained cells.

    Returns (lowest and highest feasible frontier total offset, or -1 when none fits; the lowest and highest
    total the numbers alone allow; interior mine probability; log of the summed weight; interior certainly
    safe; interior certainly all mines).
    """
    top = -np.inf
    lo_feasible, hi_feasible, lo_possible, hi_possible = -1, -1, -1, -1
    for x in range(width):
        if possible[x]:
            lo_possible = x if lo_possible < 0 else lo_possible
            hi_possible = x
            if log_interior[x] > -np.inf:
                lo_feasible = x if lo_feasible < 0 else lo_feasible
                hi_feasible = x
                if prefix[x] > 0.0:
                    top = max(top, math.log(prefix[x]) + log_interior[x])
    total, expected_interior_mines = 0.0, 0.0
    safe_interior, full_interior = True, True
    for x in range(lo_feasible, hi_feasible + 1 if lo_feasible >= 0 else 0):
        if possible[x] and log_interior[x] > -np.inf:
            rest = mines_left - (lowest_total + x)
            safe_interior = safe_interior and rest == 0
            full_interior = full_interior and rest == interior
            w = math.exp(math.log(prefix[x]) + log_interior[x] - top) if prefix[x] > 0.0 else 0.0
            total += w
            expected_interior_mines += w * rest
    probability = expected_interior_mines / total / interior if interior > 0 and total > 0.0 else 0.0
    log_total = math.log(total) + top if total > 0.0 else -np.inf
    return (
        lo_feasible,
        hi_feasible,
        lo_possible,
        hi_possible,
        probability,
        log_total,
        safe_interior,
        full_interior,
    )


@njit(cache=True)
def _solve_components(
    box_size, box_cons, box_n_cons, cons_boxes, cons_n_boxes, constraint_cell, target, comp_of_box, n_comp
):
    """Count every component; results concatenated in flat arrays.

    Returns (status, first number cell of an unsatisfiable component, lowest total per component, span per
    component, start of each component's weights, weights, start of each box's rows, mine sums, safe
    sums, log scale per component). The three flat float arrays are growable buffers, longer than used.
    """
    n_boxes = box_size.shape[0]
    n_cons = constraint_cell.shape[0]
    comp_box_start = _int_array(n_comp + 1, 0)
    for box in range(n_boxes):
        comp_box_start[comp_of_box[box] + 1] += 1
    for comp in range(n_comp):
        comp_box_start[comp + 1] += comp_box_start[comp]
    fill = np.empty(n_comp + 1, np.int64)
    for comp in range(n_comp + 1):
        fill[comp] = comp_box_start[comp]
    comp_boxes = np.empty(n_boxes, np.int64)
    for box in range(n_boxes):
        comp_boxes[fill[comp_of_box[box]]] = box
        fill[comp_of_box[box]] += 1
    local_of_box = np.empty(n_boxes, np.int64)
    local_of_con = _int_array(n_cons + 1, -1)

    comp_lo = np.empty(n_comp, np.int64)
    comp_span = np.empty(n_comp, np.int64)
    comp_weight_start = _int_array(n_comp + 1, 0)
    box_row_start = np.empty(n_boxes, np.int64)
    log_scales = np.empty(n_comp, np.float64)
    weights = np.empty(16, np.float64)
    mine_sums = np.empty(16, np.float64)
    safe_sums = np.empty(16, np.float64)
    total_rows = comp_weight_start[0]  # 0, read from an array (see the module's style note)
    status = STATUS_OK
    bad_cell = -1  # a cell of the first component no layout fits, when status says so
    for comp in range(n_comp):
        boxes = comp_boxes[comp_box_start[comp] : comp_box_start[comp + 1]]
        n_local_boxes = boxes.shape[0]
        for q in range(n_local_boxes):
            local_of_box[boxes[q]] = q
        order = _narrow_order(local_of_box, boxes, box_cons, box_n_cons, cons_boxes, cons_n_boxes)
        sizes = np.empty(n_local_boxes, np.int64)
        local_cons = np.empty((n_local_boxes, _SLOTS), np.int64)
        local_n = np.empty(n_local_boxes, np.int64)
        n_local = 0
        first_cell = constraint_cell[box_cons[boxes[0], 0]]
        for q in range(n_local_boxes):
            box = boxes[order[q]]
            sizes[q] = box_size[box]
            local_n[q] = box_n_cons[box]
            for j in range(box_n_cons[box]):
                con = box_cons[box, j]
                if local_of_con[con] < 0:
                    local_of_con[con] = n_local
                    n_local += 1
                local_cons[q, j] = local_of_con[con]
                first_cell = min(first_cell, constraint_cell[con])
        local_targets = np.empty(n_local, np.int64)
        for q in range(n_local_boxes):
            box = boxes[q]
            for j in range(box_n_cons[box]):
                local_targets[local_of_con[box_cons[box, j]]] = target[box_cons[box, j]]
        for q in range(n_local_boxes):
            box = boxes[q]
            for j in range(box_n_cons[box]):
                local_of_con[box_cons[box, j]] = -1
        # Count the component: forward pass, then (when its last cut was reached) the weights.
        table, cut_start, fwd, fwd_scale = _forward(sizes, local_cons, local_n, local_targets)
        if cut_start[n_local_boxes + 1] == cut_start[n_local_boxes]:
            status = STATUS_BAD_COMPONENT
            bad_cell = first_cell
            break
        lowest, w, m_sums, s_sums, log_scale = _weigh_component(sizes, table, cut_start, fwd, fwd_scale)
        span = w.shape[0]
        comp_lo[comp] = lowest
        comp_span[comp] = span
        comp_weight_start[comp + 1] = comp_weight_start[comp] + span
        log_scales[comp] = log_scale
        weights = _grown(weights, comp_weight_start[comp + 1])
        for m in range(span):
            weights[comp_weight_start[comp] + m] = w[m]
        mine_sums = _grown(mine_sums, total_rows + n_local_boxes * span)
        safe_sums = _grown(safe_sums, total_rows + n_local_boxes * span)
        for q in range(n_local_boxes):
            box_row_start[boxes[order[q]]] = total_rows
            for m in range(span):
                mine_sums[total_rows + m] = m_sums[q, m]
                safe_sums[total_rows + m] = s_sums[q, m]
            total_rows += span
    return (
        status,
        bad_cell,
        comp_lo,
        comp_span,
        comp_weight_start,
        weights,
        box_row_start,
        mine_sums,
        safe_sums,
        log_scales,
    )


@njit(cache=True)
def combine_board(
    comp_of_box,
    comp_lo,
    comp_span,
    comp_weight_start,
    weights,
    box_row_start,
    mine_sums,
    safe_sums,
    log_scales,
    interior,
    mines_left,
):
    """Weigh every component total against the rest of the board; probabilities per box.

    Args: the per-component counts of :func:`count_board`, the number of unconstrained unknown cells and
    the mines left once the known ones are taken off.

    Returns:
        (feasible, lowest and highest feasible frontier total (when infeasible: the range the numbers alone
        allow), probability / certainly safe / certainly full per box, interior mine probability, interior
        certainly safe, interior certainly all mines, log of the number of layouts).
    """
    prefix, possible, prefix_len, log_prefix, lowest_total = _prefixes(comp_lo, comp_span, comp_weight_start, weights)
    n_comp = comp_span.shape[0]
    n_boxes = comp_of_box.shape[0]
    width = prefix_len[n_comp]
    log_interior = _log_interior_weights(lowest_total, width, interior, mines_left)
    (
        lo_feasible,
        hi_feasible,
        lo_possible,
        hi_possible,
        interior_probability,
        log_total,
        safe_interior,
        full_interior,
    ) = _interior_summary(prefix[n_comp], possible[n_comp], width, log_interior, interior, mines_left, lowest_total)
    box_probability = np.empty(n_boxes, np.float64)
    box_safe = np.empty(n_boxes, np.bool_)
    box_full = np.empty(n_boxes, np.bool_)
    if lo_feasible < 0:
        return (
            False,
            lowest_total + lo_possible,
            lowest_total + hi_possible,
            box_probability,
            box_safe,
            box_full,
            0.0,
            False,
            False,
            0.0,
        )
    log_layouts = log_total + log_prefix
    for c in range(n_comp):
        log_layouts += log_scales[c]

    interior_top = -np.inf
    for x in range(width):
        interior_top = max(interior_top, log_interior[x])
    interior_exp = np.empty(width, np.float64)
    interior_ok = np.empty(width, np.bool_)
    for x in range(width):
        interior_ok[x] = log_interior[x] > -np.inf
        interior_exp[x] = math.exp(log_interior[x] - interior_top) if interior_ok[x] else 0.0
    outside, outside_possible = _outside_weights(
        comp_span, comp_weight_start, weights, prefix, possible, prefix_len, interior_exp, interior_ok
    )
    # Per box: exact certainty from the zero pattern over possible totals, probability from the weights.
    for box in range(n_boxes):
        comp = comp_of_box[box]
        start = comp_weight_start[comp]
        row = box_row_start[box]
        mines_part, safe_part = 0.0, 0.0
        box_safe[box], box_full[box] = True, True
        for m in range(comp_span[comp]):
            if outside_possible[start + m]:
                box_safe[box] = box_safe[box] and mine_sums[row + m] == 0.0
                box_full[box] = box_full[box] and safe_sums[row + m] == 0.0
                mines_part += mine_sums[row + m] * outside[start + m]
                safe_part += safe_sums[row + m] * outside[start + m]
        p = mines_part / (mines_part + safe_part) if mines_part + safe_part > 0.0 else 0.5
        box_probability[box] = _certain_or_inward(p, box_safe[box], box_full[box])
    interior_probability = _certain_or_inward(interior_probability, safe_interior, full_interior)
    return (
        True,
        lowest_total + lo_feasible,
        lowest_total + hi_feasible,
        box_probability,
        box_safe,
        box_full,
        interior_probability,
        safe_interior,
        full_interior,
        log_layouts,
    )


@njit(cache=True)
def cells_from_boxes(
    flat, trust_flags, box_of_cell, box_probability, box_safe, box_full, interior_probability, interior_safe,
    interior_full
):  # fmt: skip
    """Spread the per-box (and interior) results of :func:`combine_board` over the cells.

    Returns (probability, certainly safe, certainly a mine) per cell, flat: known mines (shown, or trusted
    flags) are certain mines with probability 1, revealed numbers 0 and neither safe nor mine.
    """
    n = flat.shape[0]
    probability = np.empty(n, np.float64)
    safe = np.empty(n, np.bool_)
    mine = np.empty(n, np.bool_)
    for i in range(n):
        value = flat[i]
        box = box_of_cell[i]
        known = value == MINE or (value == FLAG and trust_flags)
        unknown = value == HIDDEN or (value == FLAG and not trust_flags)
        if box >= 0:
            probability[i], safe[i], mine[i] = box_probability[box], box_safe[box], box_full[box]
        elif unknown:
            probability[i], safe[i], mine[i] = interior_probability, interior_safe, interior_full
        else:
            probability[i], safe[i], mine[i] = 1.0 if known else 0.0, False, known
    return probability, safe, mine


@njit(cache=True)
def count_position(flat, rows, cols, mines):
    """The exact count of an observation (flat int8, flags untrusted).

    Returns (consistent, mine probability per cell, certainly safe per cell, log of the number of layouts);
    the arrays are empty when no layout fits.
    """
    frontier = _frontier(flat, rows, cols, False)
    status, n_known, constraint_cell, target, box_of_cell, interior = (
        frontier[0],
        frontier[2],
        frontier[3],
        frontier[4],
        frontier[5],
        frontier[6],
    )
    box_size, box_cons, box_n_cons, cons_boxes, cons_n_boxes = frontier[7:]
    if status != STATUS_OK:
        return False, np.empty(0, np.float64), np.empty(0, np.bool_), 0.0
    comp_of_box, n_comp = _components(cons_boxes, cons_n_boxes, constraint_cell.shape[0], box_size.shape[0])
    solved = _solve_components(
        box_size, box_cons, box_n_cons, cons_boxes, cons_n_boxes, constraint_cell, target, comp_of_box, n_comp
    )
    if solved[0] != STATUS_OK:
        return False, np.empty(0, np.float64), np.empty(0, np.bool_), 0.0
    combined = combine_board(comp_of_box, *solved[2:], interior, mines - n_known)
    if not combined[0]:
        return False, np.empty(0, np.float64), np.empty(0, np.bool_), 0.0
    probability, safe, _ = cells_from_boxes(flat, False, box_of_cell, *combined[3:9])
    return True, probability, safe, combined[9]


def count_board(flat: np.ndarray, rows: int, cols: int, trust_flags: bool) -> tuple:
    """Find the frontier of a validated observation (flattened) and count each component exactly.

    Plain Python on purpose: a numba caller would link and re-optimise every kernel below it once more,
    seconds of extra compile for a few microseconds of dispatch saved.

    Returns:
        (status, offending cell (the bad number, or an unsatisfiable component's first number), box of each
        cell (-1: unconstrained or not unknown), unconstrained unknown cells, known mines, box sizes, then
        the arguments :func:`combine_board` takes: component of each box, per component lowest total,
        span, start of its weights, weights, start of each box's rows, mine sums, safe sums, log scale
        (see :func:`_weigh_component`).
    """
    frontier = _frontier(flat, rows, cols, trust_flags)
    status, bad_cell, n_known, constraint_cell, target, box_of_cell, interior = frontier[:7]
    box_size, box_cons, box_n_cons, cons_boxes, cons_n_boxes = frontier[7:]
    comp_of_box, n_comp = _components(cons_boxes, cons_n_boxes, constraint_cell.shape[0], box_size.shape[0])
    solved = _solve_components(
        box_size, box_cons, box_n_cons, cons_boxes, cons_n_boxes, constraint_cell, target, comp_of_box, n_comp
    )
    if status == STATUS_OK:
        status, bad_cell = solved[0], solved[1]
    comp_lo, comp_span, weight_start, weights, box_row_start, mine_sums, safe_sums, log_scales = solved[2:]
    # Trim the growable buffers to what the counted components use (nothing is used after a failure).
    rows_used = int(comp_span[comp_of_box].sum()) if status == STATUS_OK else 0
    weights_used = int(weight_start[-1]) if status == STATUS_OK else 0
    weights, mine_sums, safe_sums = weights[:weights_used], mine_sums[:rows_used], safe_sums[:rows_used]
    return (
        status, bad_cell, box_of_cell, interior, n_known, box_size, comp_of_box, comp_lo, comp_span,
        weight_start, weights, box_row_start, mine_sums, safe_sums, log_scales,
    )  # fmt: skip

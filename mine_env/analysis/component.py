"""Counting components exactly: the backward pass, the weights per mine total, and every component of a
position in turn.

After the forward pass (:mod:`mine_env.analysis.forward_pass`) every state of every cut has the weights of
the prefixes reaching it; the backward pass adds the weights of its completions. Their products give the
component's weight by mine total and, per box, the weighted mine (and safe) count by mine total.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.analysis.counting_base import SLOTS, STATUS_BAD_COMPONENT, STATUS_OK, grown, int_array
from mine_env.analysis.forward_pass import (
    SCALE_LIMIT,
    ForwardPass,
    LocalComponent,
    binomials,
    forward_pass,
    scale_down,
)
from mine_env.analysis.frontier import Frontier, narrow_order
from mine_env.analysis.state_table import BWD_AT, BWD_LEN, BWD_LO, FWD_AT, FWD_LEN, FWD_LO, ROW, STEP

_LOG_SCALE_LIMIT = 100.0 * math.log(2.0)
"""log(SCALE_LIMIT): a rescaling step in a weight's logarithm."""


class ComponentCount(NamedTuple):
    """The exact count of one component, by its mine total (weights share the scale ``exp(log_scale)``)."""

    solvable: bool
    """Whether any layout of the component fits its numbers (when not, the arrays are empty)."""
    lowest: int
    """The smallest mine total of a fitting layout."""
    weights: np.ndarray
    """``weights[m] * exp(log_scale)`` layouts hold ``lowest + m`` mines; the largest weight is 1."""
    mine_sums: np.ndarray
    """(boxes in DP order, span): over the layouts with ``lowest + m`` mines, the summed mines of each box."""
    safe_sums: np.ndarray
    """Likewise the summed safe cells of each box."""
    log_scale: float


_NO_OPEN = np.full(1, -1, np.int64)
"""-1 (no open number) typed as a plain integer read from an array: a literal would compile the pass once more."""


@njit(cache=True, inline="always")
def count_component(component: LocalComponent) -> ComponentCount:
    """Count one component: forward pass, then, when some layout fits, the backward pass and the weights.

    Inlined into :func:`count_components`: a compiled layer of its own would link and re-optimise both
    passes once more.
    """
    forward = forward_pass(component, component.targets, _NO_OPEN[0])
    n_boxes = component.sizes.shape[0]
    if forward.cut_start[n_boxes + 1] == forward.cut_start[n_boxes]:
        return unsolvable_count()
    return weigh(component.sizes, forward, forward.cut_start[n_boxes])


@njit(cache=True, inline="always")
def unsolvable_count() -> ComponentCount:
    """The count of a component no layout fits."""
    return ComponentCount(False, 0, np.empty(0, np.float64), np.empty((0, 0)), np.empty((0, 0)), 0.0)


@njit(cache=True)
def _backward(sizes: np.ndarray, forward: ForwardPass, final: int) -> tuple[np.ndarray, np.ndarray]:
    """Per state, the weights of its completions into the last cut's state ``final`` by mines placed from its
    cut on (the last cut's other states, which an open number has, complete nothing).

    Fills the BWD_* columns of the state table; returns (backward buffer, scale steps per cut).
    """
    table, cut_start = forward.table, forward.cut_start
    n_boxes = sizes.shape[0]
    bwd = np.empty(max(forward.fwd.shape[0], 1), np.float64)
    bwd_scale = np.empty(n_boxes + 1, np.int64)
    for s in range(cut_start[n_boxes], cut_start[n_boxes + 1]):
        table[s, BWD_LEN] = 0
    table[final, BWD_AT] = 0
    table[final, BWD_LO] = 0
    table[final, BWD_LEN] = 1
    bwd[0] = 1.0
    bwd_scale[n_boxes] = 0
    bwd_used = table[final, BWD_LEN]
    open_slot, open_room, rows = forward.open_slot, forward.open_room, forward.rows
    reached = rows[table[final, ROW] + open_slot[n_boxes]] if open_slot[n_boxes] >= 0 else 0  # the open sum at the end
    for i in range(n_boxes - 1, -1, -1):
        size = sizes[i]
        binomial = binomials(size)
        cut_bwd_begin = bwd_used
        slot = open_slot[i]
        for s in range(cut_start[i], cut_start[i + 1]):
            if slot >= 0:  # a state whose open sum cannot end at ``reached`` completes nothing (a shortcut)
                partial = rows[table[s, ROW] + slot]
                if partial > reached or partial + open_room[i] < reached:
                    table[s, BWD_LEN] = 0
                    continue
            lo, hi = n_boxes * SLOTS + 1, -1
            for k in range(size + 1):
                t = table[s, STEP + k]
                if t >= 0 and table[t, BWD_LEN] > 0:
                    lo = min(lo, table[t, BWD_LO] + k)
                    hi = max(hi, table[t, BWD_LO] + k + table[t, BWD_LEN] - 1)
            table[s, BWD_AT] = bwd_used
            table[s, BWD_LO] = lo
            table[s, BWD_LEN] = max(hi - lo + 1, 0)
            if hi < lo:
                continue
            bwd = grown(bwd, bwd_used + hi - lo + 1)
            for x in range(bwd_used, bwd_used + hi - lo + 1):
                bwd[x] = 0.0
            for k in range(size + 1):
                t = table[s, STEP + k]
                if t < 0 or table[t, BWD_LEN] == 0:
                    continue
                into = bwd_used + table[t, BWD_LO] + k - lo
                for b in range(table[t, BWD_LEN]):
                    bwd[into + b] += binomial[k] * bwd[table[t, BWD_AT] + b]
            bwd_used += hi - lo + 1
        bwd_scale[i] = bwd_scale[i + 1] + scale_down(bwd, cut_bwd_begin, bwd_used)
    return bwd, bwd_scale


@njit(cache=True)
def weigh(sizes: np.ndarray, forward: ForwardPass, final: int) -> ComponentCount:
    """Finish counting a solvable component after the forward pass, the layouts being those that end in the
    last cut's state ``final`` (its one state, or, with an open number, the one of a sum it reaches): backward
    pass and per-box sums.

    Per box i, the sums over all layouts of its mines and its safe cells, by total: the transitions into
    each state t of cut i + 1 are first summed into t's own mine- and safe-weighted forward polynomials, so
    each state needs one product with its backward polynomial, not one per incoming transition. (Written
    out in one loop for the reason :func:`~mine_env.analysis.forward_pass.forward_pass` gives.)
    """
    table, cut_start, fwd, fwd_scale = forward.table, forward.cut_start, forward.fwd, forward.fwd_scale
    n_boxes = sizes.shape[0]
    lowest, weights, largest = _final_weights(table, final, fwd)
    span = weights.shape[0]
    bwd, bwd_scale = _backward(sizes, forward, final)
    mine_sums = np.empty((n_boxes, span), np.float64)
    safe_sums = np.empty((n_boxes, span), np.float64)
    mine_forward = np.empty(fwd.shape[0], np.float64)
    safe_forward = np.empty(fwd.shape[0], np.float64)
    for i in range(n_boxes):
        size = sizes[i]
        binomial = binomials(size)
        for m in range(span):
            mine_sums[i, m] = 0.0
            safe_sums[i, m] = 0.0
        first, last = cut_start[i + 1], cut_start[i + 2] - 1
        for x in range(table[first, FWD_AT], table[last, FWD_AT] + table[last, FWD_LEN]):
            mine_forward[x] = 0.0
            safe_forward[x] = 0.0
        for s in range(cut_start[i], cut_start[i + 1]):
            for k in range(size + 1 if table[s, BWD_LEN] > 0 else 0):  # a state completing nothing leads to none
                t = table[s, STEP + k]
                if t < 0 or table[t, BWD_LEN] == 0:
                    continue
                into = table[t, FWD_AT] + table[s, FWD_LO] + k - table[t, FWD_LO]
                for a in range(table[s, FWD_LEN]):
                    weighted = fwd[table[s, FWD_AT] + a] * binomial[k]
                    mine_forward[into + a] += weighted * k
                    safe_forward[into + a] += weighted * (size - k)
        factor = _rescale_factor(largest, fwd_scale[i] + bwd_scale[i + 1] - fwd_scale[n_boxes])
        for t in range(first, last + 1):
            for a in range(table[t, FWD_LEN] if table[t, BWD_LEN] > 0 else 0):
                mine_part = mine_forward[table[t, FWD_AT] + a] * factor
                safe_part = safe_forward[table[t, FWD_AT] + a] * factor
                offset = table[t, FWD_LO] + a + table[t, BWD_LO] - lowest
                for b in range(table[t, BWD_LEN] if mine_part > 0.0 or safe_part > 0.0 else 0):
                    mine_sums[i, offset + b] += mine_part * bwd[table[t, BWD_AT] + b]
                    safe_sums[i, offset + b] += safe_part * bwd[table[t, BWD_AT] + b]
    log_scale = fwd_scale[n_boxes] * _LOG_SCALE_LIMIT + math.log(largest)
    return ComponentCount(True, lowest, weights, mine_sums, safe_sums, log_scale)


@njit(cache=True, inline="always")
def _final_weights(table: np.ndarray, final: int, fwd: np.ndarray) -> tuple[int, np.ndarray, float]:
    """The forward polynomial of the last cut's one state, divided by its largest weight.

    Returns (lowest mine total, weights by total, the largest weight divided out).
    """
    span = table[final, FWD_LEN]
    largest = 0.0
    for m in range(span):
        largest = max(largest, fwd[table[final, FWD_AT] + m])
    weights = np.empty(span, np.float64)
    for m in range(span):
        weights[m] = fwd[table[final, FWD_AT] + m] / largest
    return table[final, FWD_LO], weights, largest


@njit(cache=True, inline="always")
def _rescale_factor(largest: float, steps: int) -> float:
    """``SCALE_LIMIT ** steps / largest``, multiplied out step by step: what brings a product of a forward and
    a backward polynomial to the scale of the weights (usually just ``1 / largest``)."""
    factor = 1.0 / largest
    for _ in range(steps):
        factor *= SCALE_LIMIT
    for _ in range(-steps):
        factor /= SCALE_LIMIT
    return factor


class ComponentCounts(NamedTuple):
    """Every component of a position counted (see :class:`ComponentCount`), concatenated in flat arrays."""

    status: int
    """STATUS_OK, or STATUS_BAD_COMPONENT when a component has no fitting layout (counting stops there)."""
    bad_cell: int
    """The first number cell of that component (-1 when none)."""
    lowest: np.ndarray
    """Per component: the smallest mine total."""
    span: np.ndarray
    """Per component: the number of mine totals, ``lowest .. lowest + span - 1``."""
    weight_start: np.ndarray
    """Components + 1 entries: where each component's ``span`` weights start in ``weights`` (one after the
    other, the last entry their end; a count taken from a component store has the store's arrays here instead:
    see :func:`~mine_env.analysis.stored_components.resolved_counts`)."""
    weights: np.ndarray
    box_row_start: np.ndarray
    """Per box: where its ``span`` mine (and safe) sums start in ``mine_sums`` (and ``safe_sums``)."""
    mine_sums: np.ndarray
    safe_sums: np.ndarray
    log_scale: np.ndarray
    """Per component."""


@njit(cache=True, inline="always")
def count_components(frontier: Frontier) -> ComponentCounts:
    """Count every component of the frontier, each over a narrow order of its boxes.

    Inlined into :func:`mine_env.analysis.counting.count_board`, its one caller (a layer less to link).
    """
    n_boxes = frontier.box_size.shape[0]
    n_comp = frontier.n_components
    comp_boxes, comp_box_start = boxes_by_component(frontier)
    local_of_box = np.empty(n_boxes, np.int64)
    local_of_con = int_array(frontier.constraint_cell.shape[0] + 1, -1)

    comp_lo = np.empty(n_comp, np.int64)
    comp_span = np.empty(n_comp, np.int64)
    comp_weight_start = int_array(n_comp + 1, 0)
    box_row_start = np.empty(n_boxes, np.int64)
    log_scales = np.empty(n_comp, np.float64)
    weights = np.empty(16, np.float64)
    mine_sums = np.empty(16, np.float64)
    safe_sums = np.empty(16, np.float64)
    total_rows = comp_weight_start[0]  # 0, read from an array (see the style note of mine_env.analysis.counting)
    status = STATUS_OK
    bad_cell = -1
    for comp in range(n_comp):
        boxes = comp_boxes[comp_box_start[comp] : comp_box_start[comp + 1]]
        for q in range(boxes.shape[0]):
            local_of_box[boxes[q]] = q
        order = narrow_order(frontier, boxes, local_of_box)
        local, first_cell = local_component(frontier, boxes, order, local_of_con)
        count = count_component(local)
        if not count.solvable:
            status = STATUS_BAD_COMPONENT
            bad_cell = first_cell
            break
        count_weights, count_mine_sums, count_safe_sums = count.weights, count.mine_sums, count.safe_sums
        span = count_weights.shape[0]
        comp_lo[comp] = count.lowest
        comp_span[comp] = span
        comp_weight_start[comp + 1] = comp_weight_start[comp] + span
        log_scales[comp] = count.log_scale
        weights = grown(weights, comp_weight_start[comp + 1])
        for m in range(span):
            weights[comp_weight_start[comp] + m] = count_weights[m]
        mine_sums = grown(mine_sums, total_rows + boxes.shape[0] * span)
        safe_sums = grown(safe_sums, total_rows + boxes.shape[0] * span)
        for q in range(boxes.shape[0]):
            box_row_start[boxes[order[q]]] = total_rows
            for m in range(span):
                mine_sums[total_rows + m] = count_mine_sums[q, m]
                safe_sums[total_rows + m] = count_safe_sums[q, m]
            total_rows += span
    return ComponentCounts(
        status, bad_cell, comp_lo, comp_span, comp_weight_start, weights[: comp_weight_start[n_comp]],
        box_row_start, mine_sums[:total_rows], safe_sums[:total_rows], log_scales,
    )  # fmt: skip


@njit(cache=True, inline="always")
def boxes_by_component(frontier: Frontier) -> tuple[np.ndarray, np.ndarray]:
    """The boxes grouped by component (ascending within each) and where each component's group starts."""
    n_boxes = frontier.box_size.shape[0]
    n_comp = frontier.n_components
    comp_of_box = frontier.component_of_box
    comp_box_start = int_array(n_comp + 1, 0)
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
    return comp_boxes, comp_box_start


@njit(cache=True, inline="always")
def local_component(
    frontier: Frontier, boxes: np.ndarray, order: np.ndarray, local_of_con: np.ndarray
) -> tuple[LocalComponent, int]:
    """The component of ``boxes`` as the dynamic programme reads it, and its first number cell.

    Its boxes are taken in ``order``, its numbers renumbered 0.. in order of first use (``local_of_con``
    maps them while this runs and is all -1 again afterwards).
    """
    box_size, box_cons, box_n_cons = frontier.box_size, frontier.box_cons, frontier.box_n_cons
    constraint_cell, target = frontier.constraint_cell, frontier.target
    n_local_boxes = boxes.shape[0]
    sizes = np.empty(n_local_boxes, np.int64)
    local_cons = np.empty((n_local_boxes, SLOTS), np.int64)
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
    return LocalComponent(sizes, local_cons, local_n, local_targets), first_cell

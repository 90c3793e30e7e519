"""Weighing the counted components against the unconstrained cells: probabilities per box, then per cell.

The components are independent given their mine totals, and the interior cells (unknown cells no number
touches) take whatever mines are left: a frontier total ``t`` has weight ``C(interior, mines_left - t)``
times the product of the components' weights. Prefix sums over the components (``P_j``) and suffix sums
from the last one back (``R_j``) give, for each component and each of its totals, the weight of the rest of
the board, so every box's probability costs one pass over its component's totals.

Weights are normalised per step and their logarithms summed; which totals are possible at all is tracked
by boolean twins of the same recursions, so certainty never depends on a float underflow.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.analysis.component import ComponentCounts
from mine_env.analysis.frontier import Frontier
from mine_env.engine.geometry import is_known_mine, is_unknown


class Combined(NamedTuple):
    """The components weighed against the rest of the board (see :func:`combine`)."""

    feasible: bool
    """Whether some split of the mines left between the frontier and the interior fits."""
    lowest_total: int
    """The lowest feasible frontier total (when infeasible: the lowest the numbers alone allow)."""
    highest_total: int
    """The highest feasible frontier total (when infeasible: the highest the numbers alone allow)."""
    box_probability: np.ndarray
    """Mine probability of each box's cells (exactly 0 or 1 only when certain)."""
    box_safe: np.ndarray
    """Whether each box is safe in every layout."""
    box_full: np.ndarray
    """Whether each box is all mines in every layout."""
    interior_probability: float
    interior_safe: bool
    interior_full: bool
    log_layouts: float
    """Natural log of the number of layouts that fit (0.0 when infeasible)."""


class Cells(NamedTuple):
    """Per cell, flat: mine probability, certainly safe, certainly a mine."""

    probability: np.ndarray
    safe: np.ndarray
    mine: np.ndarray


class _Prefixes(NamedTuple):
    """P_j, the distribution of the total of components 0..j-1 (normalised per j), and its exact support."""

    weights: np.ndarray
    """(components + 1, width): ``weights[j, x]`` is P_j at ``lowest_total_j + x``."""
    possible: np.ndarray
    """Same shape, exact: whether that total is reachable."""
    length: np.ndarray
    """Length of P_j."""
    log_scale: float
    """Sum of the logs of the normalisations."""
    lowest_total: int
    """The lowest frontier total."""


class _InteriorSummary(NamedTuple):
    """Frontier totals against the unconstrained cells (see :func:`_interior_summary`)."""

    lo_feasible: int
    """Lowest feasible frontier total, as an offset from the lowest total (-1 when none fits)."""
    hi_feasible: int
    lo_possible: int
    """Lowest total the numbers alone allow, as an offset."""
    hi_possible: int
    probability: float
    """Interior mine probability."""
    log_total: float
    """Log of the summed weight."""
    safe: bool
    """Interior certainly safe."""
    full: bool
    """Interior certainly all mines."""


@njit(cache=True, inline="always")
def combine(frontier: Frontier, counts: ComponentCounts, mines: int) -> Combined:
    """Weigh every component total against the rest of the board (``mines`` in all); probabilities per box.

    Inlined into :func:`mine_env.analysis.counting.count_board`, its one caller (a layer less to link).
    """
    mines_left = mines - frontier.n_known
    interior = frontier.interior
    component_of_box = frontier.component_of_box
    span, box_row_start = counts.span, counts.box_row_start
    mine_sums, safe_sums, log_scale = counts.mine_sums, counts.safe_sums, counts.log_scale
    prefixes = _prefixes(counts)
    n_comp = span.shape[0]
    n_boxes = component_of_box.shape[0]
    width = prefixes.length[n_comp]
    log_interior = _log_interior_weights(prefixes.lowest_total, width, interior, mines_left)
    summary = _interior_summary(prefixes, log_interior, interior, mines_left)
    lowest_total = prefixes.lowest_total
    box_probability = np.empty(n_boxes, np.float64)
    box_safe = np.empty(n_boxes, np.bool_)
    box_full = np.empty(n_boxes, np.bool_)
    if summary.lo_feasible < 0:
        return Combined(
            False, lowest_total + summary.lo_possible, lowest_total + summary.hi_possible, box_probability,
            box_safe, box_full, 0.0, False, False, 0.0,
        )  # fmt: skip
    log_layouts = summary.log_total + prefixes.log_scale
    for c in range(n_comp):
        log_layouts += log_scale[c]

    interior_top = -np.inf
    for x in range(width):
        interior_top = max(interior_top, log_interior[x])
    interior_exp = np.empty(width, np.float64)
    interior_ok = np.empty(width, np.bool_)
    for x in range(width):
        interior_ok[x] = log_interior[x] > -np.inf
        interior_exp[x] = math.exp(log_interior[x] - interior_top) if interior_ok[x] else 0.0
    outside, outside_possible, outside_start = _outside_weights(counts, prefixes, interior_exp, interior_ok)
    # Per box: exact certainty from the zero pattern over possible totals, probability from the weights.
    for box in range(n_boxes):
        comp = component_of_box[box]
        start = outside_start[comp]
        row = box_row_start[box]
        mines_part, safe_part = 0.0, 0.0
        box_safe[box], box_full[box] = True, True
        for m in range(span[comp]):
            if outside_possible[start + m]:
                box_safe[box] = box_safe[box] and mine_sums[row + m] == 0.0
                box_full[box] = box_full[box] and safe_sums[row + m] == 0.0
                mines_part += mine_sums[row + m] * outside[start + m]
                safe_part += safe_sums[row + m] * outside[start + m]
        p = mines_part / (mines_part + safe_part) if mines_part + safe_part > 0.0 else 0.5
        box_probability[box] = certain_or_inward(p, box_safe[box], box_full[box])
    interior_probability = certain_or_inward(summary.probability, summary.safe, summary.full)
    return Combined(
        True, lowest_total + summary.lo_feasible, lowest_total + summary.hi_feasible, box_probability, box_safe,
        box_full, interior_probability, summary.safe, summary.full, log_layouts,
    )  # fmt: skip


@njit(cache=True)
def spread_to_cells(flat: np.ndarray, trust_flags: bool, box_of_cell: np.ndarray, combined: Combined) -> Cells:
    """Spread the per-box (and interior) results of :func:`combine` over the cells.

    Known mines (shown, or trusted flags) are certain mines with probability 1, revealed numbers 0 and
    neither safe nor mine.
    """
    box_probability, box_safe, box_full = combined.box_probability, combined.box_safe, combined.box_full
    interior_probability = combined.interior_probability
    interior_safe, interior_full = combined.interior_safe, combined.interior_full
    n = flat.shape[0]
    probability = np.empty(n, np.float64)
    safe = np.empty(n, np.bool_)
    mine = np.empty(n, np.bool_)
    for i in range(n):
        box = box_of_cell[i]
        known = is_known_mine(flat[i], trust_flags)
        if box >= 0:
            probability[i], safe[i], mine[i] = box_probability[box], box_safe[box], box_full[box]
        elif is_unknown(flat[i], trust_flags):
            probability[i], safe[i], mine[i] = interior_probability, interior_safe, interior_full
        else:
            probability[i], safe[i], mine[i] = 1.0 if known else 0.0, False, known
    return Cells(probability, safe, mine)


@njit(cache=True)
def certain_or_inward(p: float, safe: bool, full: bool) -> float:
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
def _log_interior_weights(lowest: int, span: int, interior: int, mines_left: int) -> np.ndarray:
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
def _prefixes(counts: ComponentCounts) -> _Prefixes:
    """P_j for j = 0..components, from the components' weights (see :class:`_Prefixes`)."""
    comp_span, comp_weight_start, weights = counts.span, counts.weight_start, counts.weights
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
        lowest_total += counts.lowest[c]
    return _Prefixes(prefix, possible, prefix_len, log_prefix, lowest_total)


@njit(cache=True)
def _interior_summary(
    prefixes: _Prefixes, log_interior: np.ndarray, interior: int, mines_left: int
) -> _InteriorSummary:
    """The feasible and possible frontier totals, the interior's probability and the log of the total weight."""
    last = prefixes.length.shape[0] - 1
    prefix, possible = prefixes.weights[last], prefixes.possible[last]
    width, lowest_total = prefixes.length[last], prefixes.lowest_total
    top = -np.inf
    lo_feasible, hi_feasible, lo_possible, hi_possible = -1, -1, -1, -1
    log_weight = np.empty(width, np.float64)  # each log computed once, read again below
    for x in range(width):
        if possible[x]:
            lo_possible = x if lo_possible < 0 else lo_possible
            hi_possible = x
            if log_interior[x] > -np.inf:
                lo_feasible = x if lo_feasible < 0 else lo_feasible
                hi_feasible = x
                if prefix[x] > 0.0:
                    log_weight[x] = math.log(prefix[x]) + log_interior[x]
                    top = max(top, log_weight[x])
    total, expected_interior_mines = 0.0, 0.0
    safe_interior, full_interior = True, True
    for x in range(lo_feasible, hi_feasible + 1 if lo_feasible >= 0 else 0):
        if possible[x] and log_interior[x] > -np.inf:
            rest = mines_left - (lowest_total + x)
            safe_interior = safe_interior and rest == 0
            full_interior = full_interior and rest == interior
            w = math.exp(log_weight[x] - top) if prefix[x] > 0.0 else 0.0
            total += w
            expected_interior_mines += w * rest
    probability = expected_interior_mines / total / interior if interior > 0 and total > 0.0 else 0.0
    log_total = math.log(total) + top if total > 0.0 else -np.inf
    return _InteriorSummary(
        lo_feasible, hi_feasible, lo_possible, hi_possible, probability, log_total, safe_interior, full_interior
    )


@njit(cache=True)
def _outside_weights(
    counts: ComponentCounts, prefixes: _Prefixes, interior_exp: np.ndarray, interior_ok: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """O_c[m], the weight of the rest of the board when component c holds m more than its lowest total.

    With R_j[x] the weight of components j.. plus the unconstrained cells given x mines before component j,
    O_c[m] = sum_x P_c[x] R_(c+1)[x + m], and R_c[x] = sum_m W_c[m] R_(c+1)[x + m], from the last component
    back. Boolean twins of the recursions say exactly which totals are possible. Returns (O, possible, where
    each component's totals start in them): one after the other (the weights may lie elsewhere: in a store).
    """
    comp_span, comp_weight_start, weights = counts.span, counts.weight_start, counts.weights
    prefix, possible, prefix_len = prefixes.weights, prefixes.possible, prefixes.length
    n_comp = comp_span.shape[0]
    width = interior_exp.shape[0]
    outside_start = np.empty(n_comp + 1, np.int64)
    outside_start[0] = 0
    for c in range(n_comp):
        outside_start[c + 1] = outside_start[c] + comp_span[c]
    outside = np.empty(outside_start[n_comp], np.float64)
    outside_possible = np.empty(outside_start[n_comp], np.bool_)
    suffix = np.empty(width, np.float64)
    suffix_ok = np.empty(width, np.bool_)
    new_suffix = np.empty(width, np.float64)
    new_ok = np.empty(width, np.bool_)
    for x in range(width):
        suffix[x] = interior_exp[x]
        suffix_ok[x] = interior_ok[x]
    for c in range(n_comp - 1, -1, -1):
        start, at = comp_weight_start[c], outside_start[c]
        best = 0.0
        for m in range(comp_span[c]):
            acc = 0.0
            ok = False
            for x in range(prefix_len[c]):
                if possible[c, x] and suffix_ok[x + m]:
                    acc += prefix[c, x] * suffix[x + m]
                    ok = True
            outside[at + m] = acc
            outside_possible[at + m] = ok and weights[start + m] > 0.0
            best = max(best, acc)
        for m in range(comp_span[c] if best > 0.0 else 0):
            outside[at + m] /= best
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
    return outside, outside_possible, outside_start

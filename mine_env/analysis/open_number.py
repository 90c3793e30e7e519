"""Every number a clicked cell may show, counted in one dynamic programme and put in the component store.

The positions after "the cell shows v" differ only in the target of the cell's own number, so the component
holding that number is a new component for each v (:func:`~battle.counting.outcomes.reveal_counts_stored`
found it new for 61% of the numbers it tried, on look-ahead self-play games): counted apart, it costs one
dynamic programme per number. :func:`count_and_store`, the store's one counting site, runs the forward pass once
with that target left open (:func:`~mine_env.analysis.forward_pass.forward_pass`: its sum stays in the states to
the end, so the last cut has one state per number) and the backward pass and per-box sums once per number, from
that number's last state.

The floats are those of counting each number apart: a state of the programme for one number is a state of the
open one, with the same forward polynomial summed in the same order, and its backward pass, from the number's
last state, visits the same states in the same order. The one exception is a rescaled cut (weights past
2^100, a component of thousands of layouts per state): the largest weight of a cut may then differ, so such a
component is left to be counted number by number. Each number's count is stored under the key counting it
apart would have (the component's local form with that target), so the count that follows finds it there.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mine_env.analysis.component import unsolvable_count, weigh
from mine_env.analysis.component_store import ComponentStore, find_component, key_hash, store_component
from mine_env.analysis.forward_pass import LocalComponent, forward_pass
from mine_env.analysis.state_table import ROW

_NO_OPEN = np.full(1, -1, np.int64)
"""-1 (no open number) typed as a plain integer read from an array: a literal would compile the pass once more."""


@njit(cache=True, inline="always")
def count_and_store(local: LocalComponent, store: ComponentStore, key: np.ndarray, length: int, h: int, at: int,
                    low: int, high: int) -> int:  # fmt: skip
    """Count the component ``local`` (whose key is ``key[:length]``, hash ``h``) and store it; returns its index
    in the store (-1: larger than the whole store). When ``at`` >= 0 and ``high`` > ``low``, ``key[at]`` is the
    target of the clicked cell's own number, and every other target ``low..high`` the store lacks is counted in the
    same programme and stored too (before this one, whose index is returned: storing may empty a full store, and
    the caller checks that). ``key`` is as it was on return; ``local.targets`` is not."""
    n_boxes, n_local = local.sizes.shape[0], local.targets.shape[0]
    current = key[at] if at >= 0 else 0
    open_local = at - (length - n_local) if at >= 0 and high > low else _NO_OPEN[0]  # the targets end the key
    lows = local.targets
    if open_local >= 0:
        lows = local.targets.copy()
        lows[open_local] = low
        local.targets[open_local] = high
    forward = forward_pass(local, lows, open_local)
    if open_local >= 0 and forward.fwd_scale[n_boxes] > 0:  # rescaled: this target alone (see the docstring)
        local.targets[open_local] = current
        open_local = _NO_OPEN[0]
        forward = forward_pass(local, local.targets, open_local)
    table, cut_start, rows = forward.table, forward.cut_start, forward.rows
    span = high - low + 1 if open_local >= 0 else 0
    found = -1
    for k in range(span + 1):  # the other targets, then this one
        target = low + k if k < span else current
        if k < span and target == current:
            continue
        hashed = h
        if at >= 0:
            key[at] = target
        if k < span:
            hashed = key_hash(key, length)
            if find_component(store, key, length, hashed) >= 0:
                continue
        final = _NO_OPEN[0]  # the last state of this target (without an open number, the last cut has one, or none)
        for s in range(cut_start[n_boxes], cut_start[n_boxes + 1]):
            if open_local < 0 or rows[table[s, ROW]] == target:
                final = s
        count = unsolvable_count() if final < 0 else weigh(local.sizes, forward, final)
        found = store_component(store, key, length, hashed, count.solvable, count.lowest, count.weights,
                                count.mine_sums, count.safe_sums, count.log_scale)  # fmt: skip
    return found

"""Every number a clicked cell may show, counted in one dynamic programme and put in the component store.

The positions after "the cell shows v" differ only in the target of the cell's own number, so the component
holding that number is a new component for each v (:func:`~agents.analysis.outcomes.reveal_counts_stored`
found it new for 61% of the numbers it tried, on look-ahead self-play games): counted apart, it costs one
dynamic programme per number. :func:`store_every_number` runs the forward pass once with that target left open
(:func:`~agents.analysis.forward_pass.forward_pass`: its sum stays in the states to the end, so the last cut has
one state per number) and the backward pass and per-box sums once per number, from that number's last state.

The floats are those of counting each number apart: a state of the programme for one number is a state of the
open one, with the same forward polynomial summed in the same order, and its backward pass, from the number's
last state, visits the same states in the same order. The one exception is a rescaled cut (weights past
2^100, a component of thousands of layouts per state): the largest weight of a cut may then differ, so such a
component is left to be counted number by number. Each number's count is stored under the key counting it
apart would have (the component's local form with that target), so the count that follows finds it there.
"""

from __future__ import annotations

from numba import njit

from agents.analysis.component import local_component, unsolvable_count, weigh
from agents.analysis.component_store import ComponentStore, find_component, key_hash, store_component
from agents.analysis.counting_base import int_array
from agents.analysis.forward_pass import forward_pass
from agents.analysis.frontier import Frontier
from agents.analysis.state_table import ROW


@njit(cache=True, inline="always")
def store_every_number(frontier: Frontier, prepared, store: ComponentStore, own: int, key_at: int,  # type: ignore[no-untyped-def]
                       low: int, high: int) -> None:  # fmt: skip
    """Count the component of constraint ``own`` (whose target sits at ``prepared.keys[key_at]``) for each
    target ``low..high`` in one programme, and store every count the store lacks (nothing when it holds them
    all). Leaves ``frontier.target[own]`` and the key's target changed: the caller sets them per number."""
    comp = frontier.component_of_box[frontier.cons_boxes[own, 0]]
    begin, stop = prepared.key_start[comp], prepared.key_start[comp + 1]
    key = prepared.keys[begin:stop]
    length, at = stop - begin, key_at - begin
    missing = 0
    for target in range(low, high + 1):
        key[at] = target
        missing += find_component(store, key, length, key_hash(key, length)) < 0
    if missing < 2:  # one number counted apart costs what the open programme costs
        return
    frontier.target[own] = high
    boxes_begin, boxes_stop = prepared.comp_box_start[comp], prepared.comp_box_start[comp + 1]
    local_of_con = int_array(frontier.constraint_cell.shape[0] + 1, -1)
    local, _ = local_component(frontier, prepared.comp_boxes[boxes_begin:boxes_stop],
                               prepared.order[boxes_begin:boxes_stop], local_of_con)  # fmt: skip
    n_local = local.targets.shape[0]
    open_local = at - (length - n_local)  # the targets end the key, in local order
    lows = local.targets.copy()
    lows[open_local] = low
    forward = forward_pass(local, lows, open_local)
    n_boxes = local.sizes.shape[0]
    if forward.fwd_scale[n_boxes] > 0:  # rescaled: left to the count of each number apart (see the docstring)
        return
    table, cut_start, rows = forward.table, forward.cut_start, forward.rows
    for target in range(low, high + 1):
        key[at] = target
        h = key_hash(key, length)
        if find_component(store, key, length, h) >= 0:
            continue
        final = -1
        for s in range(cut_start[n_boxes], cut_start[n_boxes + 1]):
            if rows[table[s, ROW]] == target:
                final = s
        count = unsolvable_count() if final < 0 else weigh(local.sizes, forward, final)
        store_component(store, key, length, h, count.solvable, count.lowest, count.weights, count.mine_sums,
                        count.safe_sums, count.log_scale)  # fmt: skip

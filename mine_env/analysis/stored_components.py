"""The component stage of the count given a store of counted components
(:class:`~mine_env.analysis.component_store.ComponentStore`): each component found in the store is taken from it.

:func:`~mine_env.analysis.counting.count_board` with a ``store`` runs its own stages (the frontier, the
combination, the cells) and only its component stage is this module's :func:`count_components_stored` instead of
:func:`~mine_env.analysis.component.count_components`: the dynamic programme of a component already in the store
is skipped, and its stored result is the result the programme gives (the store matches the component's whole
local form). So the counts are the same floats as without a store (tests/analysis/test_stored_components.py
checks them); the battle agents, which count every outcome of many hypothetical clicks
(:mod:`battle.counting.outcomes`, through :func:`resolved_counts`), run the dynamic programme only for the
components a click touches.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.analysis.component import ComponentCounts, boxes_by_component, local_component
from mine_env.analysis.component_store import ComponentStore, find_component, key_hash, sized_store
from mine_env.analysis.counting_base import STATUS_BAD_COMPONENT, STATUS_OK, grown, int_array
from mine_env.analysis.frontier import Frontier, narrow_order
from mine_env.analysis.open_number import count_and_store

_NONE = np.full(1, -1, np.int64)
"""-1 (no component) typed as a plain integer read from an array (see the style note of
:mod:`mine_env.analysis.counting`)."""


class OpenNumber(NamedTuple):
    """A component whose key holds the target of the clicked cell's own number, which may be any of
    ``low..high`` (see :func:`~mine_env.analysis.open_number.count_and_store`)."""

    comp: int
    """The component (-1: none)."""
    at: int
    """Where the target sits in the component's key."""
    low: int
    high: int


CLOSED = OpenNumber(-1, -1, 0, 0)
"""No open number."""


@njit(cache=True, inline="always")
def count_components_stored(frontier: Frontier, store: ComponentStore) -> ComponentCounts:
    """:func:`~mine_env.analysis.component.count_components` with the store: each component is looked up by its
    local form and counted (and stored) only when the store does not hold it; the counts lie in the store's
    arrays. Inlined into :func:`~mine_env.analysis.counting.count_board`, its one caller."""
    prepared = prepare_components(frontier)
    stored = np.empty(frontier.n_components, np.int64)
    return resolved_counts(frontier, prepared, store, stored, _NONE[0], gather_buffers(prepared), CLOSED)


class PreparedComponents(NamedTuple):
    """Each component of a frontier in the form the store is searched by (see :func:`prepare_components`)."""

    comp_boxes: np.ndarray
    """The boxes grouped by component, ascending within each."""
    comp_box_start: np.ndarray
    """Components + 1 entries: where each component's boxes start in ``comp_boxes``."""
    order: np.ndarray
    """Each component's narrow order (indices into its boxes), where ``comp_boxes`` has it."""
    keys: np.ndarray
    """The components' keys (:func:`_write_key`), one after the other."""
    key_start: np.ndarray
    """Components + 1 entries."""
    hashes: np.ndarray


@njit(cache=True, inline="always")
def prepare_components(frontier: Frontier) -> PreparedComponents:
    """Every component's boxes, narrow order and key: what the store is searched by, and what a component
    needs to be counted."""
    n_boxes = frontier.box_size.shape[0]
    n_comp = frontier.n_components
    comp_boxes, comp_box_start = boxes_by_component(frontier)
    local_of_box = np.empty(n_boxes, np.int64)
    local_of_con = int_array(frontier.constraint_cell.shape[0] + 1, -1)
    orders = np.empty(n_boxes, np.int64)
    keys = np.empty(1024, np.int64)
    key_start = int_array(n_comp + 1, 0)
    hashes = np.empty(n_comp, np.int64)
    for comp in range(n_comp):
        begin = comp_box_start[comp]
        boxes = comp_boxes[begin : comp_box_start[comp + 1]]
        for q in range(boxes.shape[0]):
            local_of_box[boxes[q]] = q
        order = narrow_order(frontier, boxes, local_of_box)
        for q in range(boxes.shape[0]):
            orders[begin + q] = order[q]
        keys, length = _write_key(frontier, boxes, order, local_of_con, keys, key_start[comp])
        hashes[comp] = key_hash(keys[key_start[comp] :], length)
        key_start[comp + 1] = key_start[comp] + length
    return PreparedComponents(comp_boxes, comp_box_start, orders, keys, key_start, hashes)


@njit(cache=True, inline="always")
def _write_key(frontier: Frontier, boxes: np.ndarray, order: np.ndarray, local_of_con: np.ndarray, keys: np.ndarray,
               at: int) -> tuple[np.ndarray, int]:  # fmt: skip
    """Write at ``keys[at:]`` (grown when short) the key of the component of ``boxes`` in ``order``: every integer
    of its :func:`~mine_env.analysis.component.local_component` (boxes, numbers, each box's size and number count,
    the numbers of each box, the targets), read from the frontier directly (making the local component first cost
    its arrays, for every component of every count). Returns (the buffer, the key's length); ``local_of_con`` is
    all -1 again afterwards."""
    box_size, box_cons, box_n_cons, target = frontier.box_size, frontier.box_cons, frontier.box_n_cons, frontier.target
    n_local_boxes = boxes.shape[0]
    needed = 2 + 2 * n_local_boxes
    for q in range(n_local_boxes):
        needed += 2 * box_n_cons[boxes[q]]  # its numbers, and at most as many targets
    keys = grown(keys, at + needed)
    keys[at] = n_local_boxes
    length = 2
    n_local = 0
    for q in range(n_local_boxes):
        box = boxes[order[q]]
        keys[at + length] = box_size[box]
        keys[at + length + 1] = box_n_cons[box]
        length += 2
        for j in range(box_n_cons[box]):
            con = box_cons[box, j]
            if local_of_con[con] < 0:
                local_of_con[con] = n_local
                n_local += 1
            keys[at + length] = local_of_con[con]
            length += 1
    keys[at + 1] = n_local
    for q in range(n_local_boxes):
        box = boxes[q]
        for j in range(box_n_cons[box]):
            keys[at + length + local_of_con[box_cons[box, j]]] = target[box_cons[box, j]]
    for q in range(n_local_boxes):
        box = boxes[q]
        for j in range(box_n_cons[box]):
            local_of_con[box_cons[box, j]] = -1
    return keys, length + n_local


@njit(cache=True)
def resolved_counts(frontier: Frontier, prepared: PreparedComponents, store: ComponentStore, stored: np.ndarray,
                    changed: int, buffers: GatherBuffers, open_number: OpenNumber) -> ComponentCounts:  # fmt: skip
    """The :class:`ComponentCounts` of the prepared components: each found in the store, or counted and stored
    (its index kept in ``stored``). ``changed`` >= 0 says that ``stored`` holds every component's index from a
    search since which the store was not emptied, and only component ``changed`` has a new key: only it is
    searched. If the store is emptied on the way (it was full), the earlier indices are gone, so the search
    starts again once, for every component; a frontier whose components do not fit in the whole store is
    counted with a store made for it alone (and ``stored`` is left all -1). The counts lie in the arrays of
    the store that holds them and in ``buffers`` (:func:`_gathered`; with ``changed`` >= 0, only that
    component's entries are written: the others are those of the last search): read them before either
    changes. ``open_number``'s component, counted, is counted for each of its targets the store lacks (on the
    first search only: a store emptied on the way is searched again target by target)."""
    active = store
    for attempt in range(3):  # one call site of the search, a kernel of its own (inlined, its IR's copy cost more)
        emptied = active.used[4]
        status, bad_cell = _resolve(frontier, prepared, active, stored, changed if attempt == 0 else -1,
                                    open_number.comp if attempt == 0 else -1, open_number)  # fmt: skip
        if status != STATUS_OK:
            return _failed(stored.shape[0], frontier.box_size.shape[0], bad_cell)
        if active.used[4] == emptied:
            counts = _gathered(active, stored, prepared, buffers, changed if attempt == 0 else -1)
            for comp in range(stored.shape[0] if attempt == 2 else 0):
                stored[comp] = -1  # indices into the store made for this frontier
            return counts
        if attempt == 1:
            active = _store_for(frontier, prepared)
    return _failed(stored.shape[0], frontier.box_size.shape[0], -1)  # not reached: the last store has room


@njit(cache=True, inline="always")
def _store_for(frontier: Frontier, prepared: PreparedComponents) -> ComponentStore:
    """An empty store with room for every component of the frontier (a component of B boxes and C cells has at
    most C + 1 mine totals)."""
    n_comp = prepared.key_start.shape[0] - 1
    weights, sums = 0, 0
    for comp in range(n_comp):
        cells = 0
        for q in range(prepared.comp_box_start[comp], prepared.comp_box_start[comp + 1]):
            cells += frontier.box_size[prepared.comp_boxes[q]]
        weights += cells + 1
        sums += (prepared.comp_box_start[comp + 1] - prepared.comp_box_start[comp]) * (cells + 1)
    return sized_store(n_comp, prepared.key_start[n_comp], weights, sums)


@njit(cache=True)
def _resolve(frontier: Frontier, prepared: PreparedComponents, store: ComponentStore, stored: np.ndarray,
             changed: int, open_comp: int, open_number: OpenNumber) -> tuple[int, int]:  # fmt: skip
    """Find (or count and store) each prepared component (only ``changed``, when it is >= 0; component
    ``open_comp`` for every target of ``open_number``); (STATUS_OK, -1), or (STATUS_BAD_COMPONENT, its first
    number) for the first component no layout fits."""
    keys, key_start, hashes = prepared.keys, prepared.key_start, prepared.hashes
    local_of_con = np.empty(0, np.int64)  # made at the first component not found
    for comp in range(stored.shape[0]):
        if changed >= 0 and comp != changed:
            continue
        key = keys[key_start[comp] : key_start[comp + 1]]
        length = key.shape[0]
        c = find_component(store, key, length, hashes[comp])
        begin, stop = prepared.comp_box_start[comp], prepared.comp_box_start[comp + 1]
        if c < 0:
            if local_of_con.shape[0] == 0:
                local_of_con = int_array(frontier.constraint_cell.shape[0] + 1, -1)
            boxes = prepared.comp_boxes[begin:stop]
            local, _ = local_component(frontier, boxes, prepared.order[begin:stop], local_of_con)
            opened = comp == open_comp
            c = count_and_store(local, store, key, length, hashes[comp], open_number.at if opened else -1,
                                open_number.low, open_number.high)  # fmt: skip
            if c < 0:  # larger than the whole store, which store_component emptied: the caller sees it
                return STATUS_OK, -1
        if not store.solvable[c]:
            return STATUS_BAD_COMPONENT, _first_number(frontier, prepared.comp_boxes[begin:stop])
        stored[comp] = c
    return STATUS_OK, -1


@njit(cache=True, inline="always")
def _first_number(frontier: Frontier, boxes: np.ndarray) -> int:
    """The first number cell (row-major) of the component of ``boxes``: what count_components reports."""
    first = frontier.constraint_cell[frontier.box_cons[boxes[0], 0]]
    for q in range(boxes.shape[0]):
        for j in range(frontier.box_n_cons[boxes[q]]):
            first = min(first, frontier.constraint_cell[frontier.box_cons[boxes[q], j]])
    return first


class GatherBuffers(NamedTuple):
    """Where :func:`_gathered` lays out the per-component and per-box entries of a frontier's counts."""

    lowest: np.ndarray
    span: np.ndarray
    weight_start: np.ndarray
    log_scale: np.ndarray
    box_row_start: np.ndarray


@njit(cache=True, inline="always")
def gather_buffers(prepared: PreparedComponents) -> GatherBuffers:
    """Buffers for the counts of the prepared components (one set per frontier, reused from count to count)."""
    n_comp = prepared.key_start.shape[0] - 1
    return GatherBuffers(np.empty(n_comp, np.int64), np.empty(n_comp, np.int64), np.empty(n_comp + 1, np.int64),
                         np.empty(n_comp, np.float64), np.empty(prepared.comp_boxes.shape[0], np.int64))  # fmt: skip


@njit(cache=True, inline="always")
def _gathered(store: ComponentStore, stored: np.ndarray, prepared: PreparedComponents, buffers: GatherBuffers,
              only: int) -> ComponentCounts:  # fmt: skip
    """The :class:`ComponentCounts` of the components ``stored`` (indices in the store), over the store's own
    arrays: no weight or sum is copied, only where each component's weights and each box's sums start in them
    (so they are read before the store changes), written into ``buffers`` for every component, or for component
    ``only`` alone when it is >= 0 (the others' entries are kept from before)."""
    comp_box_start, comp_boxes, order = prepared.comp_box_start, prepared.comp_boxes, prepared.order
    lowest, span, weight_start = buffers.lowest, buffers.span, buffers.weight_start
    log_scale, box_row_start = buffers.log_scale, buffers.box_row_start
    n_comp = stored.shape[0]
    for comp in range(n_comp):
        if only >= 0 and comp != only:
            continue
        c = stored[comp]
        lowest[comp], span[comp], log_scale[comp] = store.lowest[c], store.span[c], store.log_scale[c]
        weight_start[comp] = store.weight_start[c]
        begin = comp_box_start[comp]
        for q in range(comp_box_start[comp + 1] - begin):
            box_row_start[comp_boxes[begin + order[begin + q]]] = store.sums_start[c] + q * span[comp]
    weight_start[n_comp] = store.used[2]
    return ComponentCounts(STATUS_OK, -1, lowest, span, weight_start, store.weights, box_row_start, store.mine_sums,
                           store.safe_sums, log_scale)  # fmt: skip


@njit(cache=True, inline="always")
def _failed(n_comp: int, n_boxes: int, first_cell: int) -> ComponentCounts:
    """The counts of a frontier with an unsatisfiable component (its first number ``first_cell``): empty."""
    no_floats = np.empty(0, np.float64)
    return ComponentCounts(
        STATUS_BAD_COMPONENT, first_cell, np.empty(n_comp, np.int64), np.empty(n_comp, np.int64),
        int_array(n_comp + 1, 0), no_floats, np.empty(n_boxes, np.int64), no_floats, no_floats,
        np.empty(n_comp, np.float64),
    )  # fmt: skip

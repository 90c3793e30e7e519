"""Every outcome of revealing one cell, counted exactly in one compiled call.

:meth:`~mine_env.analysis.probability.BoardAnalysis.reveal_outcomes` recounts the position once per number the
cell may show, each through :func:`~mine_env.analysis.probability.analyse` from Python: per count it pays the
kernel (~20 us on 16x16), boxing the whole :class:`~mine_env.analysis.counting.BoardCount` into Python objects
(~10 us) and the checks and wrapping of ``analyse`` (~5 us). The battle agents (:mod:`battle.players`) count
thousands of outcomes per game; :func:`reveal_counts` does all the counts of one cell in one call and returns
only what they read, so a count costs the kernel alone. The numbers are the same floats: it is the same
:func:`~mine_env.analysis.counting.count_board` on the same grids.

:func:`reveal_counts_stored` is the same with a :class:`~mine_env.analysis.component_store.ComponentStore`
(the count's component stage given a store, :mod:`mine_env.analysis.stored_components`): the components a click
leaves untouched come from the store, so the dynamic programme runs only for the ones it changes. Same floats again;
:func:`reveal_counts` stays as the plain path it is checked against.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.analysis.combine import Cells, combine
from mine_env.analysis.component_store import key_hash
from mine_env.analysis.counting import count_board
from mine_env.analysis.counting_base import STATUS_OK, int_array
from mine_env.analysis.frontier import find_frontier
from mine_env.analysis.stored_components import OpenNumber, gather_buffers, prepare_components, resolved_counts
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.geometry import block, count_around, hidden_neighbours, is_known_mine, is_unknown

OUTCOMES = 10
"""Index 0: the cell is a mine (shown as MINE); index ``1 + v``: the cell shows the number v."""

_UNTRUSTED = np.zeros(1, np.bool_)
"""False typed as a plain bool read from an array: a literal would compile the count once more."""
_MINE = np.full(1, MINE, np.int64)
"""MINE typed as a plain integer, for the same reason."""


class RevealCounts(NamedTuple):
    """Per outcome (index 0 the mine, ``1 + v`` the number v), what :func:`reveal_counts` returns (in this
    order)."""

    consistent: np.ndarray
    """Whether some layout fits (False for outcomes not counted)."""
    log_layouts: np.ndarray
    """The log of how many layouts fit (-inf where none, or not counted)."""
    best: np.ndarray
    """The highest mine probability among the position's hidden cells (0.0 when none is hidden)."""
    probability: np.ndarray
    """(10, cells): each cell's exact mine probability (rows of outcomes not consistent are unset)."""
    certain_mine: np.ndarray
    """(10, cells): whether each cell is a mine in every layout (likewise)."""


@njit(cache=True)
def reveal_counts(flat, rows, cols, mines, cell, with_mine, with_numbers):  # type: ignore[no-untyped-def]
    """The exact count of each position revealing ``cell`` can lead to (flat int8 grid, flags untrusted).

    Counts the grid with ``cell`` shown as a mine when ``with_mine``, and as each number it may show (from the
    shown mines around it to those plus its hidden neighbours) when ``with_numbers``. Returns the fields of
    :class:`RevealCounts`, as a plain tuple (boxing a named tuple costs more).
    """
    counts = _no_outcomes(flat.shape[0])
    work = flat.copy()
    first, last = _outcome_range(flat, rows, cols, cell, with_mine, with_numbers)
    for index in range(first, last + 1):
        if _shown(work, flat, rows, cols, cell, index):
            counted = count_board(work, rows, cols, _UNTRUSTED[0], mines)
            if counted.status == STATUS_OK:
                _record(counts, index, work, counted.combined.log_layouts, counted.cells)
    return counts.consistent, counts.log_layouts, counts.best, counts.probability, counts.certain_mine


@njit(cache=True)
def reveal_counts_stored(  # type: ignore[no-untyped-def]
    flat, rows, cols, mines, cell, with_mine, with_numbers, store, probability
):
    """:func:`reveal_counts`, each count taking the components ``store`` holds from it (and adding the others).

    The numbers ``cell`` may show give positions that differ only in the target of the cell's own number, so
    their frontier (constraints, boxes, components, ids) is found and prepared once and only that target, and
    the key of its component, change from one number to the next (:func:`_count_shown`). ``probability`` is
    the position's own count (flat): a number below the shown and certain mines around the cell, or above those
    plus its undecided neighbours, fits no layout, so it is not counted (it is as :func:`reveal_counts` leaves
    an outcome no layout fits).
    """
    counts = _no_outcomes(flat.shape[0])
    work = flat.copy()
    known = count_around(flat, rows, cols, cell // cols, cell % cols, MINE)
    lowest, highest = _possible_numbers(flat, rows, cols, cell, probability, known)
    for numbers in range(2):  # the mine, then the numbers: one call site
        if with_numbers if numbers else with_mine:
            base = known if numbers else _MINE[0]
            _count_shown(counts, work, rows, cols, mines, cell, store, base, lowest if numbers else base,
                         highest if numbers else base)  # fmt: skip
    return counts.consistent, counts.log_layouts, counts.best, counts.probability, counts.certain_mine


@njit(cache=True)
def _count_shown(counts, work, rows, cols, mines, cell, store, base, lowest, highest):  # type: ignore[no-untyped-def]
    """Count ``cell`` showing each code ``lowest..highest`` (MINE alone, or numbers) into ``counts``, on one
    frontier, found with the cell showing ``base``: the codes change only the target of the cell's own number
    (a mine has none), so only that target, and the key of its component, change from one code to the next.

    A compiled kernel of its own, called at the one call site of :func:`reveal_counts_stored` for the mine and
    then the numbers: inlined there, with the whole stored pipeline inlined into it, numba's copying of its IR
    cost more compile time (a fifth of the first battle move's, docs/COLD_START.md) than the layer it saves.
    """
    work[cell] = base
    frontier = find_frontier(work, rows, cols, _UNTRUSTED[0])
    if frontier.status != STATUS_OK:  # another number is bad, whatever this cell shows
        return
    prepared = prepare_components(frontier)
    stored = np.empty(frontier.n_components, np.int64)
    buffers = gather_buffers(prepared)
    own, key_at = _own_number(frontier, prepared, cell)
    own_comp = frontier.component_of_box[frontier.cons_boxes[own, 0]] if own >= 0 else -1
    at = key_at - prepared.key_start[own_comp] if own >= 0 else -1
    open_number = OpenNumber(own_comp, at, lowest - base, highest - base)  # its numbers in one programme
    searched = -1  # the store's emptying count when ``stored`` last got every component, -1 when it has not
    for code in range(lowest, highest + 1):
        work[cell] = code
        if own >= 0:  # the number's target (the shown mines around it are ``base``), in the frontier and key
            frontier.target[own] = code - base
            prepared.keys[key_at] = code - base
            begin, stop = prepared.key_start[own_comp], prepared.key_start[own_comp + 1]
            prepared.hashes[own_comp] = key_hash(prepared.keys[begin:stop], stop - begin)
        changed = own_comp if searched == store.used[4] else -1  # the other components are as they were
        component_counts = resolved_counts(frontier, prepared, store, stored, changed, buffers, open_number)
        complete = component_counts.status == STATUS_OK and (own_comp < 0 or stored[own_comp] >= 0)
        searched = store.used[4] if complete else -1
        if component_counts.status == STATUS_OK:
            index = 0 if code == MINE else 1 + code
            _record_combined(counts, index, work, frontier, combine(frontier, component_counts, mines))


@njit(cache=True, inline="always")
def _possible_numbers(work, rows, cols, cell, probability, known):  # type: ignore[no-untyped-def]
    """(lowest, highest) number ``cell`` can show: ``known`` shown mines around it, plus its hidden neighbours
    that are mines in every layout (and, for the highest, those that may be)."""
    r0, r1, c0, c1 = block(cell // cols, cell % cols, rows, cols)
    lowest, highest = known, known
    for r in range(r0, r1):
        for c in range(c0, c1):
            i = r * cols + c
            if i != cell and work[i] == HIDDEN:
                lowest += probability[i] == 1.0
                highest += probability[i] > 0.0
    return lowest, highest


@njit(cache=True, inline="always")
def _own_number(frontier, prepared, cell):  # type: ignore[no-untyped-def]
    """The constraint of the number at ``cell`` and where its target sits in the prepared keys ((-1, -1) when
    the cell has no hidden neighbour, so no constraint). Local numbers are numbered in order of first use over
    the component's boxes in their narrow order, as :func:`~mine_env.analysis.component.local_component` does."""
    own = -1
    for con in range(frontier.constraint_cell.shape[0]):
        if frontier.constraint_cell[con] == cell:
            own = con
    if own < 0:
        return own, own
    comp = frontier.component_of_box[frontier.cons_boxes[own, 0]]
    begin, stop = prepared.comp_box_start[comp], prepared.comp_box_start[comp + 1]
    local_of_con = int_array(frontier.constraint_cell.shape[0] + 1, -1)
    n_local = 0
    for q in range(stop - begin):
        box = prepared.comp_boxes[begin + prepared.order[begin + q]]
        for j in range(frontier.box_n_cons[box]):
            con = frontier.box_cons[box, j]
            if local_of_con[con] < 0:
                local_of_con[con] = n_local
                n_local += 1
    return own, prepared.key_start[comp + 1] - n_local + local_of_con[own]


@njit(cache=True, inline="always")
def _no_outcomes(n: int) -> RevealCounts:
    """Every outcome not counted (yet)."""
    return RevealCounts(np.zeros(OUTCOMES, np.bool_), np.full(OUTCOMES, -np.inf), np.zeros(OUTCOMES),
                        np.empty((OUTCOMES, n)), np.empty((OUTCOMES, n), np.bool_))  # fmt: skip


@njit(cache=True, inline="always")
def _outcome_range(flat, rows, cols, cell, with_mine, with_numbers):  # type: ignore[no-untyped-def]
    """The outcome indices to count: 0 (the mine) when ``with_mine``, up to ``1 +`` the largest number."""
    known = count_around(flat, rows, cols, cell // cols, cell % cols, MINE)
    first = 0 if with_mine else 1
    last = 1 + known + hidden_neighbours(flat, rows, cols, cell) if with_numbers else 0
    return first, last


@njit(cache=True, inline="always")
def _shown(work, flat, rows, cols, cell, index):  # type: ignore[no-untyped-def]
    """Show outcome ``index`` at ``cell`` in ``work``; False for a number below the shown mines around it."""
    if index == 0:
        work[cell] = MINE
        return True
    if index < 1 + count_around(flat, rows, cols, cell // cols, cell % cols, MINE):
        return False
    work[cell] = index - 1
    return True


@njit(cache=True, inline="always")
def _record(counts: RevealCounts, index: int, work: np.ndarray, log_layouts: float, cells: Cells) -> None:
    """Keep what the agents read of outcome ``index``'s count (one some layout fits)."""
    counts.consistent[index] = True
    counts.log_layouts[index] = log_layouts
    best = 0.0
    for i in range(work.shape[0]):
        counts.probability[index, i] = cells.probability[i]
        counts.certain_mine[index, i] = cells.mine[i]
        if work[i] == HIDDEN and cells.probability[i] > best:
            best = cells.probability[i]
    counts.best[index] = best


@njit(cache=True, inline="always")
def _record_combined(counts: RevealCounts, index: int, work: np.ndarray, frontier, combined) -> None:  # type: ignore[no-untyped-def]
    """:func:`_record` of a count's combination, when some layout fits: each cell's probability and certainty
    read from its box (or the interior), as :func:`~mine_env.analysis.combine.spread_to_cells` spreads them (flags
    untrusted), without making the per-cell arrays first."""
    if not combined.feasible:
        return
    box_of_cell, box_probability, box_full = frontier.box_of_cell, combined.box_probability, combined.box_full
    counts.consistent[index] = True
    counts.log_layouts[index] = combined.log_layouts
    best = 0.0
    for i in range(work.shape[0]):
        box = box_of_cell[i]
        if box >= 0:
            probability, mine = box_probability[box], box_full[box]
        elif is_unknown(work[i], _UNTRUSTED[0]):
            probability, mine = combined.interior_probability, combined.interior_full
        else:
            mine = is_known_mine(work[i], _UNTRUSTED[0])
            probability = 1.0 if mine else 0.0
        counts.probability[index, i] = probability
        counts.certain_mine[index, i] = mine
        if work[i] == HIDDEN and probability > best:
            best = probability
    counts.best[index] = best

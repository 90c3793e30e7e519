"""The exact mine-probability count of a position: the one pipeline every caller goes through.

See :mod:`mine_env.analysis.probability` for the Python API and docs/PROBABILITY.md for the method. The count
works on *boxes*: hidden cells touched by exactly the same set of revealed numbers are interchangeable, so
a box of ``size`` cells holding ``k`` mines stands for ``C(size, k)`` layouts. Boxes that share numbers
form independent *components*. Each component is counted exactly by dynamic programming over an ordering
of its boxes: the state after placing a prefix of the boxes is the vector of partial sums of the numbers
that have boxes on both sides of the cut, and every state carries a polynomial in the number of mines
placed so far. A forward and a backward pass give, per component, the weight of its solutions by mine
total and, per box, the weighted mine (and safe) count by mine total. The components are then combined
over totals with the ``C(unconstrained cells, mines left)`` weights of the cells no number touches.

:func:`count_board` chains the stages, one module each:

1. :func:`~mine_env.analysis.frontier.find_frontier`: numbers as constraints, boxes, components;
2. :func:`~mine_env.analysis.component.count_components`: each component over a narrow order of its boxes
   (:mod:`mine_env.analysis.forward_pass`, :mod:`mine_env.analysis.state_table`, :mod:`mine_env.analysis.component`);
   given a store of counted components (:mod:`mine_env.analysis.component_store`), the same stage takes each
   component the store holds from it and counts only the others
   (:func:`~mine_env.analysis.stored_components.count_components_stored`): the same floats;
3. :func:`~mine_env.analysis.combine.combine`: the components against the unconstrained cells, per box;
4. :func:`~mine_env.analysis.combine.spread_to_cells`: per cell.

All weights are float64 with explicit power-of-two or logarithmic scale factors, so nothing overflows;
whether a cell is certainly safe (or a mine) is decided from exact zero / non-zero patterns, never from a
float tolerance.

Compile time: numba compiles every numpy overload, array method and each constant-argument specialisation
of a helper separately, which made a cold compile of these kernels several times slower; a cold compile has
to stay short for test runs. So the kernels spell out element loops and use no numpy function but
``np.empty`` (not even a slice assignment, whose shape checks cost seconds of compile), and the integers
and booleans they pass to each other are read from arrays or returned by calls, never literals or loop
counters started from a constant. And a numba function that calls another links and re-optimises the
callee's code once more: Python callers and compiled ones alike call :func:`count_board` (or
:func:`count_position`, inlined into its compiled callers), so the stages are linked into one root, and
the stages with one caller and much below them (:func:`~mine_env.analysis.component.count_components`,
:func:`~mine_env.analysis.combine.combine`) are inlined into it (docs/COLD_START.md measures what each
layer costs).

Speed: numba wraps array-taking helpers inlined into a hot loop in reference counting, so the innermost
loops (the dynamic programme's per-state work) are written out in their functions rather than split into
helpers, and the fields of the named tuples the stages pass each other are read into locals before loops.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.analysis.combine import Cells, Combined, combine, spread_to_cells
from mine_env.analysis.component import ComponentCounts, count_components
from mine_env.analysis.component_store import ComponentStore
from mine_env.analysis.counting_base import STATUS_BAD_TOTAL, STATUS_OK
from mine_env.analysis.frontier import Frontier, find_frontier
from mine_env.analysis.stored_components import count_components_stored


class BoardCount(NamedTuple):
    """Everything the count of a position gives (see :func:`count_board`)."""

    status: int
    """STATUS_OK, or why no layout fits: STATUS_BAD_NUMBER, STATUS_BAD_COMPONENT or STATUS_BAD_TOTAL."""
    bad_cell: int
    """The offending number (a bad number, or an unsatisfiable component's first number), else -1."""
    frontier: Frontier
    counts: ComponentCounts
    """Empty when a number is bad; partial when a component is."""
    combined: Combined
    """Empty unless the numbers fit (when only the total does not, it says which totals they allow)."""
    cells: Cells
    """Per cell, flat; empty unless some layout fits."""


class PositionCount(NamedTuple):
    """The count of an observation as the solver's kernels read it (see :func:`count_position`)."""

    consistent: bool
    probability: np.ndarray
    """Mine probability per cell, flat (empty when no layout fits)."""
    safe: np.ndarray
    """Certainly safe per cell, flat (empty when no layout fits)."""
    log_layouts: float
    """Natural log of the number of layouts (0.0 when none fits)."""


_UNTRUSTED = np.zeros(1, np.bool_)
"""``_UNTRUSTED[0]`` is False typed as a plain bool: a literal False would compile the stages once more."""


@njit(cache=True)
def count_board(flat: np.ndarray, rows: int, cols: int, trust_flags: bool, mines: int,
                store: ComponentStore | None = None) -> BoardCount:  # fmt: skip
    """Count an observation (flat int8, rows x cols) with ``mines`` mines in all: the one counting pipeline.

    With a ``store``, the components it holds are taken from it and the others counted and added to it (the
    same floats; its counts lie in the store's arrays, so read them before the store changes). Without one
    (the argument left out), numba compiles the plain stage alone. Stops at the first stage that finds no
    layout fits; the later stages' results are then empty.
    """
    frontier = find_frontier(flat, rows, cols, trust_flags)
    if frontier.status != STATUS_OK:
        return BoardCount(frontier.status, frontier.bad_cell, frontier, _no_counts(), no_combination(), no_cells())
    if store is None:
        return counted_board(flat, trust_flags, mines, frontier, count_components(frontier))
    return counted_board(flat, trust_flags, mines, frontier, count_components_stored(frontier, store))


@njit(cache=True, inline="always")
def counted_board(flat: np.ndarray, trust_flags: bool, mines: int, frontier: Frontier, counts: ComponentCounts
                  ) -> BoardCount:  # fmt: skip
    """The stages after the components' count (a frontier whose numbers fit): the components against the
    unconstrained cells, then per cell, whether the components were counted with a store or without;
    inlined."""
    if counts.status != STATUS_OK:
        return BoardCount(counts.status, counts.bad_cell, frontier, counts, no_combination(), no_cells())
    combined = combine(frontier, counts, mines)
    if not combined.feasible:
        return BoardCount(STATUS_BAD_TOTAL, -1, frontier, counts, combined, no_cells())
    cells = spread_to_cells(flat, trust_flags, frontier.box_of_cell, combined)
    return BoardCount(STATUS_OK, -1, frontier, counts, combined, cells)


@njit(cache=True, inline="always")
def count_position(flat: np.ndarray, rows: int, cols: int, mines: int) -> PositionCount:
    """The exact count of an observation (flat int8, flags untrusted), for the solver's kernels.

    Inlined into its compiled callers, which so link :func:`count_board` directly.
    """
    board = count_board(flat, rows, cols, _UNTRUSTED[0], mines)
    return PositionCount(
        board.status == STATUS_OK, board.cells.probability, board.cells.safe, board.combined.log_layouts
    )


@njit(cache=True, inline="always")
def _no_counts() -> ComponentCounts:
    """The component counts of a frontier with a bad number: nothing counted."""
    no_ints, no_floats = np.empty(0, np.int64), np.empty(0, np.float64)
    return ComponentCounts(
        STATUS_OK, -1, no_ints, no_ints, no_ints, no_floats, no_ints, no_floats, no_floats, no_floats
    )


@njit(cache=True, inline="always")
def no_combination() -> Combined:
    """The combination of components that were not all counted: nothing combined."""
    no_flags = np.empty(0, np.bool_)
    return Combined(False, 0, 0, np.empty(0, np.float64), no_flags, no_flags, 0.0, False, False, 0.0)


@njit(cache=True, inline="always")
def no_cells() -> Cells:
    """The cells of a position no layout fits: none."""
    return Cells(np.empty(0, np.float64), np.empty(0, np.bool_), np.empty(0, np.bool_))

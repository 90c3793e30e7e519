"""The frontier of a position: numbers as constraints, boxes, components and a narrow order of boxes.

A revealed number with unknown neighbours is a *constraint*: its unknown neighbours hold exactly its value
less the known mines around it. Unknown cells touched by exactly the same constraints are interchangeable
and form a *box*; boxes linked through shared constraints form independent *components*, each counted on
its own (:mod:`mine_env.analysis.component`). Unknown cells no number touches are the *interior*.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.analysis.counting_base import SLOTS, STATUS_BAD_NUMBER, STATUS_OK, int_array
from mine_env.engine.geometry import block, is_known_mine, is_revealed, is_unknown


class Frontier(NamedTuple):
    """The constraints of a position and the boxes and components of the unknown cells they touch.

    Constraint ids follow the row-major order of their number cells, box ids the row-major order of each
    box's first cell, component ids the order of each component's first box.
    """

    status: int
    """STATUS_OK, or STATUS_BAD_NUMBER when a number cannot be satisfied (then there are no constraints)."""
    bad_cell: int
    """The number that cannot be satisfied (-1 when none)."""
    n_known: int
    """Known mines: shown mines, and flags when they are trusted."""
    interior: int
    """Unknown cells no constraint touches."""
    constraint_cell: np.ndarray
    """The number cell of each constraint."""
    target: np.ndarray
    """Mines each constraint still needs among its unknown neighbours."""
    box_of_cell: np.ndarray
    """Box of each cell (-1: an interior cell, or not unknown)."""
    box_size: np.ndarray
    """Cells per box."""
    box_cons: np.ndarray
    """(boxes, SLOTS): the constraints touching each box, ascending."""
    box_n_cons: np.ndarray
    """Constraints touching each box."""
    cons_boxes: np.ndarray
    """(constraints + 1, SLOTS): the boxes each constraint touches."""
    cons_n_boxes: np.ndarray
    """Boxes each constraint touches."""
    component_of_box: np.ndarray
    """Component of each box."""
    n_components: int


class _Constraints(NamedTuple):
    """The numbers with unknown neighbours (see :func:`_constraints`)."""

    status: int
    bad_cell: int
    of_cell: np.ndarray
    cell: np.ndarray
    target: np.ndarray


class _Boxes(NamedTuple):
    """The unknown cells grouped by the constraints touching them (see :func:`_boxes`)."""

    of_cell: np.ndarray
    size: np.ndarray
    cons: np.ndarray
    n_cons: np.ndarray
    cons_boxes: np.ndarray
    cons_n_boxes: np.ndarray


@njit(cache=True)
def find_frontier(flat: np.ndarray, rows: int, cols: int, trust_flags: bool) -> Frontier:
    """Numbers as constraints, the unknown cells they touch grouped into boxes, the boxes into components."""
    n = rows * cols
    unknown = np.empty(n, np.bool_)
    known_mine = np.empty(n, np.bool_)
    n_known = 0
    for i in range(n):
        unknown[i] = is_unknown(flat[i], trust_flags)
        known_mine[i] = is_known_mine(flat[i], trust_flags)
        n_known += known_mine[i]
    constraints = _constraints(flat, rows, cols, unknown, known_mine)
    boxes = _boxes(rows, cols, unknown, constraints.of_cell, constraints.cell.shape[0])
    box_of_cell = boxes.of_cell
    interior = 0
    for i in range(n):
        interior += unknown[i] and box_of_cell[i] < 0
    component_of_box, n_components = _label_components(boxes.cons_boxes, boxes.cons_n_boxes, boxes.size.shape[0])
    return Frontier(
        constraints.status, constraints.bad_cell, n_known, interior, constraints.cell, constraints.target,
        boxes.of_cell, boxes.size, boxes.cons, boxes.n_cons, boxes.cons_boxes, boxes.cons_n_boxes,
        component_of_box, n_components,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _constraints(flat: np.ndarray, rows: int, cols: int, unknown: np.ndarray, known_mine: np.ndarray) -> _Constraints:
    """Every number with unknown neighbours, in row-major order; none when a number cannot be satisfied."""
    n = rows * cols
    constraint_of_cell = int_array(n, -1)
    constraint_cell = np.empty(n, np.int64)
    target = np.empty(n, np.int64)
    n_cons = 0
    status, bad_cell = STATUS_OK, -1
    for i in range(n):
        if not is_revealed(flat[i]):
            continue
        r0, r1, c0, c1 = block(i // cols, i % cols, rows, cols)
        hidden, mines = 0, 0
        for rr in range(r0, r1):
            for cc in range(c0, c1):
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
    return _Constraints(status, bad_cell, constraint_of_cell, constraint_cell[:n_cons], target[:n_cons])


@njit(cache=True, inline="always")
def _boxes(rows: int, cols: int, unknown: np.ndarray, constraint_of_cell: np.ndarray, n_cons: int) -> _Boxes:
    """Group the unknown cells next to a constraint into boxes of cells touched by the same constraints.

    A cell's constraints come out sorted (constraint ids follow the cells), and cells sharing a box share
    their smallest constraint, so a new cell is only compared with the (at most 8) boxes filed under it.
    """
    n = rows * cols
    box_of_cell = int_array(n, -1)
    box_size = np.empty(n, np.int64)
    box_cons = np.empty((n, SLOTS), np.int64)
    box_n_cons = np.empty(n, np.int64)
    cons_boxes = np.empty((n_cons + 1, SLOTS), np.int64)
    cons_n_boxes = int_array(n_cons + 1, 0)
    touching = np.empty(SLOTS, np.int64)
    n_boxes = 0
    for i in range(n if n_cons > 0 else 0):
        if not unknown[i]:
            continue
        r0, r1, c0, c1 = block(i // cols, i % cols, rows, cols)
        count = 0
        for rr in range(r0, r1):
            for cc in range(c0, c1):
                con = constraint_of_cell[rr * cols + cc]
                if con >= 0:
                    touching[count] = con
                    count += 1
        if count == 0:
            continue
        box = _box_touched_by(touching, count, box_cons, box_n_cons, cons_boxes, cons_n_boxes)
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
    return _Boxes(box_of_cell, box_size[:n_boxes], box_cons[:n_boxes], box_n_cons[:n_boxes], cons_boxes, cons_n_boxes)


@njit(cache=True, inline="always")
def _box_touched_by(
    touching: np.ndarray, count: int, box_cons: np.ndarray, box_n_cons: np.ndarray, cons_boxes: np.ndarray,
    cons_n_boxes: np.ndarray,
) -> int:  # fmt: skip
    """The box touched by exactly the constraints ``touching[:count]`` (ascending), -1 when there is none yet."""
    smallest = touching[0]
    for q in range(cons_n_boxes[smallest]):
        candidate = cons_boxes[smallest, q]
        same = box_n_cons[candidate] == count and box_cons[candidate, 0] == smallest
        for j in range(count if same else 0):
            same = same and box_cons[candidate, j] == touching[j]
        if same:
            return candidate
    return -1


@njit(cache=True, inline="always")
def _label_components(cons_boxes: np.ndarray, cons_n_boxes: np.ndarray, n_boxes: int) -> tuple[np.ndarray, int]:
    """Label boxes linked through shared constraints (union-find); labels follow their first box."""
    parent = np.empty(n_boxes, np.int64)
    for box in range(n_boxes):
        parent[box] = box
    for con in range(cons_n_boxes.shape[0] - 1):
        for q in range(cons_n_boxes[con]):
            a, b = cons_boxes[con, 0], cons_boxes[con, q]
            while parent[a] != a:
                a = parent[a]
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            parent[b] = a
    label = int_array(n_boxes, -1)
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
def narrow_order(frontier: Frontier, boxes: np.ndarray, local_of_box: np.ndarray) -> np.ndarray:
    """An order of a component's boxes (indices into ``boxes``) with few numbers "open" at any cut.

    Breadth-first search from a pseudo-peripheral box (the last box reached by a first search from box 0)
    walks a frontier from one end to the other, which keeps the dynamic programme's state small.
    ``local_of_box`` maps each of the component's boxes to its index in ``boxes``.
    """
    box_cons, box_n_cons, cons_boxes, cons_n_boxes = (
        frontier.box_cons,
        frontier.box_n_cons,
        frontier.cons_boxes,
        frontier.cons_n_boxes,
    )
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

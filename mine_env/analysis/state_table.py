"""The state table of the dynamic programme over a component's boxes, and the interning of its states.

A *state* of a cut (the point after placing a prefix of the boxes) is the row of partial sums of the
numbers open at that cut: numbers with boxes on both sides of it. Each state is one row of an int64 table
whose columns say where its partial sums and its forward and backward polynomials lie in flat buffers and
which state each choice of mines in the next box leads to. The states of a cut are found again by their
partial sums through an open-addressing hash index (FNV-1a over the row, linear probing), built per cut:
look at ``index[row_hash(row, width, mask)]`` and the slots after it until a free one (-1) or a state with
the ``same_row``. (The probe loop is written out by its caller: numba adds reference counting around an
inlined helper that takes the growing buffers, which cost a third of the forward pass's time.)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mine_env.analysis.counting_base import SLOTS

# Columns of the state table.
ROW = 0
"""Start of the state's partial sums in the rows buffer."""
FWD_AT = 1
"""Forward polynomial (weights of the prefixes reaching the state, by mines placed): start in its buffer."""
FWD_LO = 2
"""The forward polynomial's lowest mine total."""
FWD_LEN = 3
"""The forward polynomial's length."""
BWD_AT = 4
"""Backward polynomial (weights of the state's completions), likewise."""
BWD_LO = 5
BWD_LEN = 6
"""Length 0: the state cannot be completed."""
STEP = 7
"""Column ``STEP + k``: the state reached with k mines in the cut's box, -1 if that breaks a number."""
COLUMNS = STEP + SLOTS + 1

_FNV_OFFSET = 1469598103934665603
_FNV_PRIME = 1099511628211


@njit(cache=True)
def grown_table(table: np.ndarray, needed: int) -> np.ndarray:
    """``table`` itself, or a copy with at least twice as many rows when it has fewer than ``needed``."""
    if table.shape[0] >= needed:
        return table
    bigger = np.empty((max(needed, 2 * table.shape[0]), COLUMNS), np.int64)
    for t in range(table.shape[0]):
        for column in range(COLUMNS):
            bigger[t, column] = table[t, column]
    return bigger


@njit(cache=True, inline="always")
def cleared_index(buffer: np.ndarray, candidates: int) -> tuple[np.ndarray, np.uint64]:
    """An empty index for up to ``candidates`` states, in ``buffer`` (a new one when it is short, so one buffer
    serves every cut of a pass): its first slots, a power of two of them, at most half full, made free (-1).
    Returns (the buffer, the slots less one: the mask of a probe)."""
    size = 1
    while size < 2 * candidates + 1:
        size *= 2
    if buffer.shape[0] < size:
        buffer = np.empty(size, np.int64)
    for slot in range(size):
        buffer[slot] = -1
    return buffer, np.uint64(size - 1)


@njit(cache=True, inline="always")
def row_hash(row: np.ndarray, width: int, mask: np.uint64) -> np.uint64:
    """Where the partial sums ``row[:width]`` are first looked for in an index of ``mask + 1`` slots."""
    h = np.uint64(_FNV_OFFSET)
    for q in range(width):
        h = (h ^ np.uint64(row[q] + 1)) * np.uint64(_FNV_PRIME)
    return h & mask


@njit(cache=True, inline="always")
def same_row(rows_buffer: np.ndarray, at: int, row: np.ndarray, width: int) -> bool:
    """Whether the partial sums stored at ``rows_buffer[at:]`` are ``row[:width]``."""
    same = True
    for q in range(width):
        same = same and rows_buffer[at + q] == row[q]
    return same

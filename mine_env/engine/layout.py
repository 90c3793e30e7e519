"""Where the mines lie: placement under the first-click rules, and the counts around every cell.

A layout is a pure function of a layout key (see :mod:`mine_env.engine.rng`) and the first revealed cell: a
partial Fisher-Yates shuffle of the cells the rule allows, driven by the key's SplitMix64 stream.
:mod:`mine_env.engine.reference` restates it in plain Python, and the tests hold the two to the same layouts.

Cells are flat row-major indices; the placement and the flood fill of :mod:`mine_env.engine.rules` also
carry cells *packed* as ``row << 8 | col`` (:func:`pack`, :func:`unpack`), which unpack without a division.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mine_env.engine.constants import MAX_SIDE
from mine_env.engine.geometry import block, protected_block
from mine_env.engine.rng import draw_below

_COL_BITS = 8
_COL_MASK = (1 << _COL_BITS) - 1
assert MAX_SIDE <= 1 << _COL_BITS, "a column must fit the low bits of a packed cell"


@njit(cache=True)
def pack(row: int, col: int) -> int:
    """A cell as ``row << 8 | col``: unpacking it needs no division."""
    return (row << _COL_BITS) | col


@njit(cache=True, inline="always")
def unpack(packed: int) -> tuple[int, int]:
    """(row, col) of a cell packed by :func:`pack`."""
    return packed >> _COL_BITS, packed & _COL_MASK


@njit(cache=True)
def place_mines(
    mines: np.ndarray, cells: np.ndarray, rows: int, cols: int, n_mines: int, rule: int, first_cell: int, key: int
) -> None:
    """Place ``n_mines`` uniformly over the cells the rule allows, as a pure function of (key, first cell).

    A partial Fisher-Yates shuffle of the allowed cells (in row-major order) driven by a SplitMix64 stream
    seeded with ``key``. ``cells`` is int32 scratch of at least ``rows * cols`` entries: on return its first
    ``n_mines`` entries are the mined cells, packed by :func:`pack`, ready for :func:`count_mines`. Rows and
    columns are walked directly: a division per cell would cost more than the whole shuffle.
    """
    r0, r1, c0, c1 = protected_block(rows, cols, rule, first_cell)
    m = 0
    for r in range(rows):
        row_protected = r0 <= r < r1
        for c in range(cols):
            if not (row_protected and c0 <= c < c1):
                cells[m] = pack(r, c)
                m += 1
    mines[:] = 0
    state = np.uint64(key)
    for j in range(n_mines):
        state, offset = draw_below(state, m - j)
        k = j + offset
        chosen = cells[k]
        cells[k] = cells[j]
        cells[j] = chosen
        r, c = unpack(chosen)
        mines[r * cols + c] = 1


@njit(cache=True)
def count_mines(counts: np.ndarray, mined: np.ndarray, n_mines: int, rows: int, cols: int) -> None:
    """Fill ``counts`` with the mines around every cell, given the ``n_mines`` mined cells packed in ``mined``.

    A mine does not count itself.
    """
    counts[:] = 0
    for j in range(n_mines):
        r, c = unpack(mined[j])
        r0, r1, c0, c1 = block(r, c, rows, cols)
        for rr in range(r0, r1):
            for cc in range(c0, c1):
                counts[rr * cols + cc] += 1
        counts[r * cols + c] -= 1


@njit(cache=True)
def compute_counts(mines: np.ndarray, counts: np.ndarray, rows: int, cols: int) -> None:
    """Fill ``counts`` with the number of mines around every cell of a given layout (1 = mine)."""
    mined = np.empty(rows * cols, dtype=np.int32)
    m = 0
    for r in range(rows):
        for c in range(cols):
            if mines[r * cols + c]:
                mined[m] = pack(r, c)
                m += 1
    count_mines(counts, mined, m, rows, cols)


def neighbour_counts(layout: np.ndarray) -> np.ndarray:
    """Mines around every cell of a bool layout (rows, cols), as int8 (rows, cols); a Python convenience."""
    layout = np.asarray(layout, dtype=bool)
    rows, cols = layout.shape
    counts = np.zeros(layout.size, dtype=np.int8)
    compute_counts(layout.ravel().astype(np.uint8), counts, rows, cols)
    return counts.reshape(rows, cols)

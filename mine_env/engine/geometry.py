"""Board geometry and what a cell's code means: written once, inlined into every kernel that needs it.

Cells are flat indices into a row-major board (cell ``i`` is row ``i // cols``, column ``i % cols``). The
neighbourhood of a cell is the 3x3 block around it clipped to the board; kernels walk it as

    r0, r1, c0, c1 = block(r, c, rows, cols)
    for rr in range(r0, r1):
        for cc in range(c0, c1):
            ...

which compiles to the same loops as writing the bounds out by hand (the helpers are inlined), so the hot
paths (flood fill, counting) lose nothing. :func:`neighbours` is the plain-Python statement of the same
geometry, for tests and Python callers.

What a code means (the codes are those of :mod:`mine_env.engine.constants`): a cell is *unknown* when the
player does not know its content (hidden, or flagged when flags are not trusted), a *known mine* when it is
a shown mine (or a flag that is trusted), *revealed* when it shows a number.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from mine_env.engine.constants import FLAG, HIDDEN, MINE

# First-click rules as integer codes (see mine_env.engine.constants.FIRST_CLICK_RULES for their meaning).
RULE_NONE, RULE_SAFE, RULE_OPENING = 0, 1, 2
RULE_CODES: dict[str, int] = {"none": RULE_NONE, "safe": RULE_SAFE, "opening": RULE_OPENING}


@njit(cache=True, inline="always")
def block(r: int, c: int, rows: int, cols: int, reach: int = 1) -> tuple[int, int, int, int]:
    """The square of cells within ``reach`` of (r, c), clipped to the board, as [r0, r1) x [c0, c1)."""
    return max(r - reach, 0), min(r + reach + 1, rows), max(c - reach, 0), min(c + reach + 1, cols)


@njit(cache=True, inline="always")
def shared_block(ra: int, ca: int, rb: int, cb: int, rows: int, cols: int) -> tuple[int, int, int, int]:
    """The cells next to (or on) both (ra, ca) and (rb, cb), as [r0, r1) x [c0, c1) (empty when none)."""
    return max(max(ra, rb) - 1, 0), min(min(ra, rb) + 2, rows), max(max(ca, cb) - 1, 0), min(min(ca, cb) + 2, cols)


@njit(cache=True, inline="always")
def adjacent(ra: int, ca: int, rb: int, cb: int) -> bool:
    """Whether (rb, cb) lies in the 3x3 block around (ra, ca) (a cell is adjacent to itself)."""
    return abs(ra - rb) <= 1 and abs(ca - cb) <= 1


@njit(cache=True, inline="always")
def is_unknown(code: int, trust_flags: bool) -> bool:
    """Whether the player does not know the cell's content: hidden, or flagged and flags are not trusted."""
    return code == HIDDEN or (code == FLAG and not trust_flags)


@njit(cache=True, inline="always")
def is_known_mine(code: int, trust_flags: bool) -> bool:
    """Whether the cell is certainly a mine from its code alone: a shown mine, or a trusted flag."""
    return code == MINE or (code == FLAG and trust_flags)


@njit(cache=True, inline="always")
def is_revealed(code: int) -> bool:
    """Whether the cell shows a number (0..8)."""
    return code >= 0


@njit(cache=True, inline="always")
def is_covered(code: int) -> bool:
    """Whether the cell shows no number: hidden, flagged or a shown mine."""
    return code < 0


@njit(cache=True, inline="always")
def count_around(flat, rows: int, cols: int, r: int, c: int, code: int) -> int:  # type: ignore[no-untyped-def]
    """Cells showing ``code`` in the 3x3 block around (r, c), the cell itself included."""
    r0, r1, c0, c1 = block(r, c, rows, cols)
    total = 0
    for rr in range(r0, r1):
        for cc in range(c0, c1):
            total += flat[rr * cols + cc] == code
    return total


@njit(cache=True, inline="always")
def hidden_neighbours(flat, rows: int, cols: int, cell: int) -> int:  # type: ignore[no-untyped-def]
    """Hidden cells around ``cell``, the cell itself not counted: the bound on the number a reveal may show that
    the solver's look-ahead and the battle AIs' outcomes count up to."""
    return count_around(flat, rows, cols, cell // cols, cell % cols, HIDDEN) - (flat[cell] == HIDDEN)


@njit(cache=True, inline="always")
def touches_revealed(flat, rows: int, cols: int, cell: int) -> bool:  # type: ignore[no-untyped-def]
    """Whether a revealed number lies in the 3x3 block around ``cell`` (the cell itself included)."""
    r0, r1, c0, c1 = block(cell // cols, cell % cols, rows, cols)
    for rr in range(r0, r1):
        for cc in range(c0, c1):
            if is_revealed(flat[rr * cols + cc]):
                return True
    return False


@njit(cache=True, inline="always")
def protected_block(rows: int, cols: int, rule: int, first_cell: int) -> tuple[int, int, int, int]:
    """The rectangle the first-click rule keeps free of mines, as row and column ranges [r0, r1) x [c0, c1).

    Empty under the ``none`` rule (or before a first cell, ``first_cell < 0``), the first cell under
    ``safe``, the first cell and its neighbours (clipped to the board) under ``opening``.
    """
    if rule == RULE_NONE or first_cell < 0:
        return 0, 0, 0, 0
    r, c = first_cell // cols, first_cell % cols
    if rule == RULE_SAFE:
        return r, r + 1, c, c + 1
    return block(r, c, rows, cols)


def protected_cells(rows: int, cols: int, rule: str, first_cell: int) -> list[int]:
    """The cells the first-click rule keeps free of mines, flat and in increasing order (plain Python)."""
    r0, r1, c0, c1 = protected_block(rows, cols, RULE_CODES[rule], first_cell)
    return [r * cols + c for r in range(r0, r1) for c in range(c0, c1)]


def neighbours(cell: int, rows: int, cols: int) -> list[int]:
    """The cells around ``cell`` (not the cell itself), flat and in increasing order: the plain statement of
    :func:`block` for tests and Python callers."""
    r, c = divmod(cell, cols)
    return [
        rr * cols + cc
        for rr in range(r - 1, r + 2)
        for cc in range(c - 1, c + 2)
        if 0 <= rr < rows and 0 <= cc < cols and (rr, cc) != (r, c)
    ]


def cells_where(grid: np.ndarray, meaning: Callable[..., bool], *args: bool) -> np.ndarray:
    """Bool mask (``grid``'s shape) of the cells whose code has ``meaning``, one of the tests above, given its
    further arguments (``trust_flags``): plain Python for Python callers, each distinct code asked once."""
    return np.isin(grid, [code for code in np.unique(grid).tolist() if meaning(code, *args)])

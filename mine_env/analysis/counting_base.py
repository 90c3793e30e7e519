"""What every kernel of the exact count shares: the status codes, the slot bound and two array helpers.

See :mod:`mine_env.analysis.counting` for the pipeline these serve and for the style note on compile time
that the helpers follow (they are inlined, so no constant-argument copies of them are compiled).
"""

from __future__ import annotations

import numpy as np
from numba import njit

STATUS_OK = 0
STATUS_BAD_NUMBER = 1
"""A revealed number needs more mines than it has hidden neighbours, or fewer than the shown mines."""
STATUS_BAD_COMPONENT = 2
"""A group of numbers sharing hidden cells cannot be satisfied together."""
STATUS_BAD_TOTAL = 3
"""No split of the total mine count between the frontier and the unconstrained cells fits."""

SLOTS = 8
"""A cell has at most 8 numbers around it, a number at most 8 boxes, a box at most 8 cells."""


@njit(cache=True, inline="always")
def int_array(length: int, value: int) -> np.ndarray:
    """An int64 array of ``length`` copies of ``value`` (inlined: no constant-argument copies to compile)."""
    array = np.empty(length, np.int64)
    for i in range(length):
        array[i] = value
    return array


@njit(cache=True)
def grown(array: np.ndarray, needed: int) -> np.ndarray:
    """``array`` (1-D) itself, or a copy at least twice as long when it is shorter than ``needed``.

    Copied element by element: a slice assignment would compile numba's shape-checking error paths.
    """
    if array.shape[0] >= needed:
        return array
    bigger = np.empty(max(needed, 2 * array.shape[0]), array.dtype)
    for x in range(array.shape[0]):
        bigger[x] = array[x]
    return bigger

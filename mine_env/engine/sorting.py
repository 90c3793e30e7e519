"""A stable argsort for the kernels: the order of ``np.argsort(keys, kind="mergesort")``, cheaper to compile.

numba's own mergesort is generic code that takes seconds to compile per key type on a cold start (it was about
a tenth of the first solver game's and the first battle move's compile, docs/COLD_START.md); this bottom-up
merge sort compiles in a fraction of that. A stable sort's order is unique (ascending keys, equal keys in index
order), so the two give the same indices for keys without NaN.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def stable_argsort(keys):  # type: ignore[no-untyped-def]
    """The indices (int64) that sort ``keys`` (1-d, no NaN) ascending, equal keys in index order."""
    n = keys.shape[0]
    order = np.empty(n, np.int64)
    merged = np.empty(n, np.int64)
    for i in range(n):
        order[i] = i
    width = 1
    while width < n:
        for start in range(0, n, 2 * width):
            middle, stop = min(start + width, n), min(start + 2 * width, n)
            i, j = start, middle
            for k in range(start, stop):
                if j < stop and (i == middle or keys[order[j]] < keys[order[i]]):
                    merged[k] = order[j]
                    j += 1
                else:
                    merged[k] = order[i]
                    i += 1
        order, merged = merged, order
        width *= 2
    return order

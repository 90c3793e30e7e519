"""The kernels' stable argsort gives numpy's stable order, ties in index order."""

from __future__ import annotations

import numpy as np
import pytest

from mine_env.engine.sorting import stable_argsort


@pytest.mark.parametrize("size", [0, 1, 2, 3, 7, 64, 257])
def test_stable_argsort_is_numpys_stable_order_for_ints_and_floats(size: int) -> None:
    rng = np.random.default_rng(size)
    for keys in (rng.random(size), rng.integers(0, 3, size), -rng.integers(0, 4, size).astype(np.float64)):
        order = stable_argsort(keys)
        assert order.dtype == np.int64
        np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))


def test_equal_keys_keep_their_index_order() -> None:
    np.testing.assert_array_equal(stable_argsort(np.array([2.0, 1.0, 2.0, 1.0, 0.5])), [4, 1, 3, 0, 2])

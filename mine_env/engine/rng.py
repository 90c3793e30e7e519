"""The engine's random numbers: layout keys drawn from NumPy generators, and the SplitMix64 stream they seed.

A game's layout is a pure function of one *layout key* and the first revealed cell. The env draws one key per
``reset`` from its ``np_random`` (:func:`draw_layout_key`); the batched engine draws blocks of keys from a
generator per board (:func:`draw_layout_keys`), which gives the same keys in the same order. Inside the compiled
mine placement the key seeds a SplitMix64 stream (:func:`splitmix64`), read through :func:`draw_below`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

KEY_LIMIT = 2**63
"""Layout keys lie in [0, KEY_LIMIT)."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def draw_layout_key(rng: np.random.Generator) -> int:
    """The next layout key from a generator: the one draw the env makes per ``reset``."""
    return int(rng.integers(0, KEY_LIMIT))


def draw_layout_keys(rng: np.random.Generator, count: int) -> np.ndarray:
    """The next ``count`` layout keys from a generator (int64), the same as ``count`` calls of
    :func:`draw_layout_key`, at the cost of one call."""
    return rng.integers(0, KEY_LIMIT, size=count)


def layout_key(seed: int | None) -> int:
    """The layout key of the game an env plays after ``reset(seed=seed)``."""
    return draw_layout_key(np.random.default_rng(seed))


@njit(cache=True)
def splitmix64(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    """Advance a SplitMix64 stream: returns (new state, 64 random bits).

    The cast keeps the arithmetic in uint64 when the state arrives as a signed integer (numba would
    otherwise promote int64 + uint64 to float64 and lose bits).
    """
    state = np.uint64(state) + _GOLDEN
    z = state
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return state, z ^ (z >> _S31)


@njit(cache=True)
def draw_below(state: np.uint64, bound: int) -> tuple[np.uint64, int]:
    """An unbiased integer in [0, bound) by masked rejection; returns (new state, value)."""
    limit = np.uint64(bound - 1)
    mask = np.uint64(0)
    while mask < limit:
        mask = (mask << np.uint64(1)) | np.uint64(1)
    while True:
        state, bits = splitmix64(state)
        value = bits & mask
        if value < np.uint64(bound):
            return state, int(value)

"""A store of counted components, so that a component met again is not counted again.

The count of a component (:func:`~mine_env.analysis.component.count_component`) depends on nothing but the
component as the dynamic programme reads it: its boxes' sizes in their narrow order, the numbers touching each
box and each number's target (:class:`~mine_env.analysis.forward_pass.LocalComponent`). A hypothetical click
changes the numbers around one cell, so every other component of the position after it is one the position
before it had, with the same local form, and its count is the same floats. The battle agents count thousands of
such positions per game (:mod:`battle.counting.outcomes`); with a store they run the dynamic programme only for
the components a click touches, and find the rest here.

The store is a hash table over the local form (its *key*: every integer of the ``LocalComponent``), kept in
plain arrays that the kernels fill. A component is found only when its whole key is equal, so a result taken
from the store is the result counting would give. When a section is full the store is emptied and fills again:
what it holds changes only the speed, never a result.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

_HASH_MULTIPLIER = 1099511628211
"""FNV-1a's 64-bit prime (int64 arithmetic wraps in compiled code)."""
_HASH_SEED = 1469598103934665603


class ComponentStore(NamedTuple):
    """Counted components by their key (see the module docstring); every array is filled by the kernels.

    Component ``c`` has its key at ``keys[key_start[c] : key_start[c] + key_length[c]]``, its weights at
    ``weights[weight_start[c] : weight_start[c] + span[c]]`` and its per-box sums, box by box in the dynamic
    programme's order, at ``mine_sums[sums_start[c] :]`` (and ``safe_sums``), ``span[c]`` per box.
    """

    table: np.ndarray
    """Open addressing: 0 an empty slot, else the component's index + 1 (a power of two, at least twice the
    components, so a probe always ends)."""
    used: np.ndarray
    """How much is filled: components, key integers, weights, sums; then how many times it was emptied (a
    caller holding indices into the store checks it: emptying invalidates them)."""
    hashes: np.ndarray
    key_start: np.ndarray
    key_length: np.ndarray
    keys: np.ndarray
    solvable: np.ndarray
    lowest: np.ndarray
    log_scale: np.ndarray
    weight_start: np.ndarray
    span: np.ndarray
    weights: np.ndarray
    sums_start: np.ndarray
    mine_sums: np.ndarray
    safe_sums: np.ndarray


def new_component_store(components: int = 4096, key_ints: int = 1 << 18, sums: int = 1 << 19) -> ComponentStore:
    """An empty store with room for ``components`` components, ``key_ints`` key integers and ``sums`` per-box
    sums (a component of B boxes with S mine totals takes B * S); weights get room for ``sums // 4``.

    The defaults take about 11 MB (allocated, touched only as it fills) and hold the components of a few
    hundred battle moves on 16x16.
    """
    if components < 1 or key_ints < 1 or sums < 4:
        raise ValueError(f"a component store needs room: got {components}, {key_ints} and {sums}")
    slots = 1 << (2 * components - 1).bit_length()  # a power of two, at least twice the components
    return ComponentStore(
        table=np.zeros(slots, np.int64), used=np.zeros(5, np.int64),
        hashes=np.empty(components, np.int64), key_start=np.empty(components, np.int64),
        key_length=np.empty(components, np.int64), keys=np.empty(key_ints, np.int64),
        solvable=np.empty(components, np.bool_), lowest=np.empty(components, np.int64),
        log_scale=np.empty(components, np.float64), weight_start=np.empty(components, np.int64),
        span=np.empty(components, np.int64), weights=np.empty(sums // 4, np.float64),
        sums_start=np.empty(components, np.int64), mine_sums=np.empty(sums, np.float64),
        safe_sums=np.empty(sums, np.float64),
    )  # fmt: skip


@njit(cache=True, inline="always")
def sized_store(components: int, key_ints: int, weights: int, sums: int) -> ComponentStore:
    """An empty store with room for exactly this much (what :func:`new_component_store` makes, in compiled code)."""
    slots = 2
    while slots < 2 * components:
        slots *= 2
    table = np.empty(slots, np.int64)
    used = np.empty(5, np.int64)
    for slot in range(slots):
        table[slot] = 0
    for x in range(5):
        used[x] = 0
    return ComponentStore(
        table, used, np.empty(components, np.int64), np.empty(components, np.int64), np.empty(components, np.int64),
        np.empty(key_ints, np.int64), np.empty(components, np.bool_), np.empty(components, np.int64),
        np.empty(components, np.float64), np.empty(components, np.int64), np.empty(components, np.int64),
        np.empty(weights, np.float64), np.empty(components, np.int64), np.empty(sums, np.float64),
        np.empty(sums, np.float64),
    )  # fmt: skip


@njit(cache=True, inline="always")
def key_hash(key: np.ndarray, length: int) -> int:
    """FNV-1a over the key's integers."""
    h = _HASH_SEED
    for x in range(length):
        h = (h ^ key[x]) * _HASH_MULTIPLIER
    return h


@njit(cache=True, inline="always")
def find_component(store: ComponentStore, key: np.ndarray, length: int, h: int) -> int:
    """The stored component with exactly this key, or -1."""
    table, hashes, key_start, key_length, keys = (store.table, store.hashes, store.key_start, store.key_length,
                                                  store.keys)  # fmt: skip
    mask = table.shape[0] - 1
    slot = h & mask
    while table[slot] != 0:
        c = table[slot] - 1
        same = hashes[c] == h and key_length[c] == length
        start = key_start[c]
        for x in range(length if same else 0):
            same = same and keys[start + x] == key[x]
        if same:
            return c
        slot = (slot + 1) & mask
    return -1


@njit(cache=True, inline="always")
def _empty(store: ComponentStore) -> None:
    """Forget every stored component."""
    table, used = store.table, store.used
    for slot in range(table.shape[0]):
        table[slot] = 0
    for x in range(4):
        used[x] = 0
    used[4] += 1


@njit(cache=True, inline="always")
def _fits(store: ComponentStore, length: int, span: int, rows: int) -> bool:
    """Whether one more component of this key length, span and sums fits in what is left."""
    used = store.used
    return (
        used[0] < store.hashes.shape[0] and used[1] + length <= store.keys.shape[0]
        and used[2] + span <= store.weights.shape[0] and used[3] + rows <= store.mine_sums.shape[0]
    )  # fmt: skip


@njit(cache=True, inline="always")
def store_component(
    store: ComponentStore, key: np.ndarray, length: int, h: int, solvable: bool, lowest: int, weights: np.ndarray,
    mine_sums: np.ndarray, safe_sums: np.ndarray, log_scale: float,
) -> int:  # fmt: skip
    """Add a counted component (``mine_sums`` and ``safe_sums`` (boxes, span), as the count gives them); returns
    its index, or -1 when it is larger than the whole store. A full store is emptied first."""
    span = weights.shape[0]
    n_boxes = mine_sums.shape[0]
    if not _fits(store, length, span, n_boxes * span):
        _empty(store)
        if not _fits(store, length, span, n_boxes * span):
            return -1
    used = store.used
    c = used[0]
    store.hashes[c] = h
    store.key_start[c] = used[1]
    store.key_length[c] = length
    for x in range(length):
        store.keys[used[1] + x] = key[x]
    store.solvable[c] = solvable
    store.lowest[c] = lowest
    store.log_scale[c] = log_scale
    store.weight_start[c] = used[2]
    store.span[c] = span
    for m in range(span):
        store.weights[used[2] + m] = weights[m]
    store.sums_start[c] = used[3]
    for q in range(n_boxes):
        for m in range(span):
            store.mine_sums[used[3] + q * span + m] = mine_sums[q, m]
            store.safe_sums[used[3] + q * span + m] = safe_sums[q, m]
    used[0] += 1
    used[1] += length
    used[2] += span
    used[3] += n_boxes * span
    table = store.table
    mask = table.shape[0] - 1
    slot = h & mask
    while table[slot] != 0:
        slot = (slot + 1) & mask
    table[slot] = c + 1
    return c

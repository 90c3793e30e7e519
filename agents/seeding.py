"""numpy's ``default_rng(seed).integers(0, 2**63)`` in compiled code, for many seeds at once.

The solver seeds its random stream with one draw of ``np.random.default_rng(seed)``. Building a numpy
generator costs about 0.04 ms, as much as a whole beginner game at the ``fast`` setting, so playing a suite
in compiled code would spend a third of its time seeding. This module restates the two steps numpy takes,
for a seed in [0, 2**64): ``SeedSequence`` hashes the seed's 32-bit words into a 128-bit state and a
128-bit increment (``generate_state(4, uint64)``), and ``PCG64`` (XSL-RR output) is seeded with them and
draws one 64-bit word. ``integers(0, 2**63)`` keeps that word's top 63 bits (Lemire's method with a
power-of-two range never rejects). The tests check the result equals numpy's, seed for seed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT16 = np.uint64(16)
_SHIFT32 = np.uint64(32)
_ONE = np.uint64(1)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_POOL_SIZE = 4
_PCG_MULT_HIGH = np.uint64(2549297995355413924)
_PCG_MULT_LOW = np.uint64(4865540595714422341)


@njit(cache=True)
def _hashmix(value, hash_const):
    """SeedSequence's hash of one 32-bit word; returns (hashed word, next hash constant)."""
    value = (value ^ hash_const) & _MASK32
    hash_const = (hash_const * _MULT_A) & _MASK32
    value = (value * hash_const) & _MASK32
    return value ^ (value >> _SHIFT16), hash_const


@njit(cache=True)
def _mix(x, y):
    """SeedSequence's mix of two 32-bit words."""
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return result ^ (result >> _SHIFT16)


@njit(cache=True)
def _pool(seed):
    """The 4-word entropy pool SeedSequence(seed) builds for a seed in [0, 2**64)."""
    words = np.zeros(2, np.uint64)
    words[0] = seed & _MASK32
    words[1] = seed >> _SHIFT32
    n_words = 2 if words[1] else 1
    pool = np.zeros(_POOL_SIZE, np.uint64)
    hash_const = _INIT_A
    for i in range(_POOL_SIZE):
        pool[i], hash_const = _hashmix(words[i] if i < n_words else np.uint64(0), hash_const)
    for src in range(_POOL_SIZE):
        for dst in range(_POOL_SIZE):
            if src != dst:
                hashed, hash_const = _hashmix(pool[src], hash_const)
                pool[dst] = _mix(pool[dst], hashed)
    return pool


@njit(cache=True)
def _generated_words(pool):
    """``generate_state(4, np.uint64)``: four 64-bit words, each two hashed 32-bit words (low first)."""
    words = np.zeros(4, np.uint64)
    hash_const = _INIT_B
    for i in range(8):
        value = (pool[i % _POOL_SIZE] ^ hash_const) & _MASK32
        hash_const = (hash_const * _MULT_B) & _MASK32
        value = (value * hash_const) & _MASK32
        value ^= value >> _SHIFT16
        words[i // 2] |= value << (_SHIFT32 * np.uint64(i % 2))
    return words


@njit(cache=True)
def _mul_64(a, b):
    """The full 128-bit product of two 64-bit words, as (high, low)."""
    a_low, a_high = a & _MASK32, a >> _SHIFT32
    b_low, b_high = b & _MASK32, b >> _SHIFT32
    low_low = a_low * b_low
    cross = (low_low >> _SHIFT32) + (a_high * b_low & _MASK32) + a_low * b_high
    high = a_high * b_high + (a_high * b_low >> _SHIFT32) + (cross >> _SHIFT32)
    return high, (cross << _SHIFT32) | (low_low & _MASK32)


@njit(cache=True)
def _pcg_step(high, low, inc_high, inc_low):
    """One step of PCG64's 128-bit LCG: state * multiplier + increment, modulo 2**128."""
    product_high, product_low = _mul_64(low, _PCG_MULT_LOW)
    product_high += high * _PCG_MULT_LOW + low * _PCG_MULT_HIGH
    new_low = product_low + inc_low
    carry = _ONE if new_low < product_low else np.uint64(0)
    return product_high + inc_high + carry, new_low


@njit(cache=True)
def numpy_first_draws(seeds):
    """``np.random.default_rng(s).integers(0, 2**63)`` for each seed ``s`` (uint64 array) in [0, 2**64)."""
    out = np.empty(seeds.shape[0], np.uint64)
    for g in range(seeds.shape[0]):
        words = _generated_words(_pool(seeds[g]))
        inc_high = (words[2] << _ONE) | (words[3] >> np.uint64(63))
        inc_low = (words[3] << _ONE) | _ONE
        high, low = _pcg_step(np.uint64(0), np.uint64(0), inc_high, inc_low)
        low_sum = low + words[1]
        high = high + words[0] + (_ONE if low_sum < low else np.uint64(0))
        high, low = _pcg_step(high, low_sum, inc_high, inc_low)
        high, low = _pcg_step(high, low, inc_high, inc_low)
        rotation = high >> np.uint64(58)
        mixed = high ^ low
        output = (mixed >> rotation) | (mixed << ((np.uint64(64) - rotation) & np.uint64(63)))
        out[g] = output >> _ONE
    return out

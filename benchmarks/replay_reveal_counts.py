"""The replay half of benchmarks/bench_reveal_counts.py, run in a child process at the checkout being timed.

Usage (by bench_reveal_counts.py): ``PYTHONPATH=TREE python replay_reveal_counts.py CALLS.npz REPEATS WAYS``, WAYS
``stored``, ``plain`` or both, comma-separated. Replays the recorded calls in one compiled loop per component
store (fresh stores each time), ``REPEATS`` times per way, then once more from Python to collect what each call
gives; prints one JSON line: per way the best time in microseconds per call and the digest of the outcomes, and
with both ways whether the plain path's flags are equal and the largest relative gap of its floats. It imports
only what the code before the outcome-counting work of issue 21 already had.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time

import numpy as np
from numba import njit

from battle.counting.outcomes import reveal_counts, reveal_counts_stored
from mine_env.analysis.component_store import new_component_store

FIELDS = ("flat", "probability", "cell", "with_mine", "with_numbers")
"""The per-call arrays of the recording, in the order the loops take them."""


@njit
def stored_loop(flats, probabilities, cells, with_mine, with_numbers, rows, cols, mines, store):  # type: ignore[no-untyped-def]
    """Every call through the store path (the sum read back keeps the calls from being optimised away)."""
    total = 0.0
    for i in range(flats.shape[0]):
        counted = reveal_counts_stored(
            flats[i], rows, cols, mines, cells[i], with_mine[i], with_numbers[i], store, probabilities[i]
        )
        total += counted[2][0]
    return total


@njit
def plain_loop(flats, probabilities, cells, with_mine, with_numbers, rows, cols, mines, store):  # type: ignore[no-untyped-def]
    """Every call through the plain path (``store`` unused: the two loops take the same arguments)."""
    total = 0.0
    for i in range(flats.shape[0]):
        total += reveal_counts(flats[i], rows, cols, mines, cells[i], with_mine[i], with_numbers[i])[2][0]
    return total


def replay(loop, fields: list[np.ndarray], groups: list[np.ndarray], shape: tuple[int, int, int]) -> float:  # type: ignore[no-untyped-def]
    """CPU seconds of every call through ``loop``, one compiled call per store, each store starting empty."""
    seconds = 0.0
    for group in groups:
        store = new_component_store()
        args = [field[group] for field in fields]
        start = time.process_time()
        loop(*args, *shape, store)
        seconds += time.process_time() - start
    return seconds


def outcomes(way: str, fields: list[np.ndarray], groups: list[np.ndarray], shape: tuple[int, int, int]
             ) -> tuple[str, list[tuple[np.ndarray, np.ndarray]]]:  # fmt: skip
    """Per call, what the agents read of the counted outcomes: (flags, floats); and their digest."""
    rows, cols, mines = shape
    digest, kept = hashlib.sha256(), []
    for group in groups:
        store = new_component_store()
        for i in group:
            flat, probability, cell, with_mine, with_numbers = (field[i] for field in fields)
            if way == "stored":
                got = reveal_counts_stored(flat, rows, cols, mines, cell, with_mine, with_numbers, store, probability)
            else:
                got = reveal_counts(flat, rows, cols, mines, cell, with_mine, with_numbers)
            fits = got[0]
            flags = np.concatenate([fits, got[4][fits].ravel()])
            floats = np.concatenate([got[1][fits], got[2][fits], got[3][fits].ravel()])
            kept.append((flags, floats))
            digest.update(flags.tobytes() + floats.tobytes())
    return digest.hexdigest(), kept


def largest_gap(kept: list[tuple[np.ndarray, np.ndarray]], reference: list[tuple[np.ndarray, np.ndarray]]
                ) -> tuple[bool, float]:  # fmt: skip
    """(whether every flag is equal, the largest relative gap between the floats: inf where one is infinite
    and the other not)."""
    worst = 0.0
    for (flags, floats), (flags_ref, floats_ref) in zip(kept, reference, strict=True):
        if not np.array_equal(flags, flags_ref):
            return False, float("inf")
        if not np.array_equal(np.isfinite(floats), np.isfinite(floats_ref)):
            return True, float("inf")
        finite = np.isfinite(floats)
        a, b = floats[finite], floats_ref[finite]
        scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), 1e-300)
        worst = max(worst, float(np.max(np.abs(a - b) / scale, initial=0.0)))
    return True, worst


def main() -> None:
    calls = np.load(sys.argv[1])
    repeats, ways = int(sys.argv[2]), sys.argv[3].split(",")
    shape = tuple(int(x) for x in calls["shape"])
    groups = [np.flatnonzero(calls["store"] == s) for s in np.unique(calls["store"])]
    fields = [calls[name] for name in FIELDS]
    result, kept = {}, {}
    for way in ways:
        loop = stored_loop if way == "stored" else plain_loop
        loop(*[field[groups[0][:4]] for field in fields], *shape, new_component_store())  # compile it, untimed
        seconds = [replay(loop, fields, groups, shape) for _ in range(repeats)]
        digest, kept[way] = outcomes(way, fields, groups, shape)
        result[way] = {"us_per_call": 1e6 * min(seconds) / calls["cell"].shape[0], "digest": digest}
    if "plain" in kept and "stored" in kept:
        flags_equal, gap = largest_gap(kept["stored"], kept["plain"])
        result["plain"].update(flags_equal=flags_equal, largest_relative_gap=gap)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

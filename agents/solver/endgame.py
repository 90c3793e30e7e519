"""Exact endgame search: once few layouts remain, the guess that maximises the chance of winning.

With every layout that fits the position listed (at most a thousand by default), a game is a small tree: a move
reveals a cell, which splits the remaining layouts by the number the cell shows (or ends the game when it
is a mine). The win chance of a set ``S`` of layouts under best play is

* 1 when one layout is left (every remaining cell is known);
* otherwise, when some hidden cells are safe in every layout of ``S``, revealing them all costs nothing, so
  ``S`` splits by the numbers they show and the chance is the weighted mean over the parts;
* otherwise, the best guess: the maximum over cells of ``sum over numbers v of |S_v| / |S| * win(S_v)``.

Because free cells are always revealed first, the chance depends on ``S`` alone, which is memoised (keyed
by a 64-bit set hash). Candidate guesses are tried safest first and skipped once their safety cannot beat
the best found. A move reveals only its own cell's number; the cells a revealed 0 opens in the game are its
neighbours, safe in every layout that shows the 0, so the free-cell rule reveals them next and splits by their
numbers as the flood would: the chance is that of the real game under optimal play (the tests check it against
the real game's tree, floods included). A work budget (layouts times cells looked at)
bounds the time: a search that runs out of it reports failure and the caller falls back to its heuristic
guess.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from mine_env.engine.geometry import block, is_known_mine, is_revealed, is_unknown
from mine_env.engine.rules import splitmix64
from mine_env.engine.sorting import stable_argsort

_ABORTED = -1.0
_ENUMERATION_STEPS = 1_000_000
"""Steps the depth-first listing of layouts may take before it gives up (it stays far below on real play)."""


@njit(cache=True)
def _unknown_cells(flat, rows, cols):
    """Cells whose content the count does not know (hidden or flagged): (cells, how many touch a number).

    Cells touching a revealed number come first (row-major), the unconstrained ones after them.
    """
    n = flat.shape[0]
    front = np.empty(n, np.int64)
    interior = np.empty(n, np.int64)
    n_front = n_interior = 0
    for i in range(n):
        if not is_unknown(flat[i], False):
            continue
        r0, r1, c0, c1 = block(i // cols, i % cols, rows, cols)
        touches = False
        for rr in range(r0, r1):
            for cc in range(c0, c1):
                touches = touches or is_revealed(flat[rr * cols + cc])
        if touches:
            front[n_front] = i
            n_front += 1
        else:
            interior[n_interior] = i
            n_interior += 1
    cells = np.empty(n_front + n_interior, np.int64)
    for j in range(n_front):  # element loops: a slice assignment compiles numba's shape checks (seconds)
        cells[j] = front[j]
    for j in range(n_interior):
        cells[n_front + j] = interior[j]
    return cells, n_front


@njit(cache=True)
def _binomial(n, k):
    """C(n, k) as a float (exact for the small values compared with a layout limit)."""
    if k < 0 or k > n:
        return 0.0
    result = 1.0
    for j in range(min(k, n - k)):
        result = result * (n - j) / (j + 1)
    return result


@njit(cache=True)
def enumerate_layouts(flat, rows, cols, mines, limit):
    """Every assignment of mines to the unknown cells that fits the numbers and the total.

    Depth-first over the cells that touch a number (pruned as soon as a number can no longer be met), then,
    for each such assignment, every way to put the remaining mines on the unconstrained cells.

    Returns (unknown cells, layouts as a (count, unknown) uint8 matrix, complete); ``complete`` is False
    (and the matrix partial) when there are more than ``limit`` layouts or the depth-first search takes more
    than :data:`_ENUMERATION_STEPS` steps.
    """
    n = flat.shape[0]
    unknown, n_front = _unknown_cells(flat, rows, cols)
    n_unknown = unknown.shape[0]
    n_interior = n_unknown - n_front
    index_of = np.full(n, -1, np.int64)
    for u in range(n_unknown):
        index_of[unknown[u]] = u
    # Numbers next to unknown cells: mines still missing and unknown neighbours not yet assigned.
    missing = np.zeros(n, np.int64)
    open_cells = np.zeros(n, np.int64)
    cell_numbers = np.full((n_unknown, 8), -1, np.int64)
    cell_n_numbers = np.zeros(n_unknown, np.int64)
    known_mines = 0
    for i in range(n):
        if is_known_mine(flat[i], False):
            known_mines += 1
        if not is_revealed(flat[i]):
            continue
        missing[i] = flat[i]
        r0, r1, c0, c1 = block(i // cols, i % cols, rows, cols)
        for rr in range(r0, r1):
            for cc in range(c0, c1):
                j = rr * cols + cc
                if is_known_mine(flat[j], False):
                    missing[i] -= 1
                elif index_of[j] >= 0:
                    open_cells[i] += 1
                    u = index_of[j]
                    cell_numbers[u, cell_n_numbers[u]] = i
                    cell_n_numbers[u] += 1
    left = mines - known_mines
    layouts = np.zeros((limit, n_unknown), np.uint8)
    if left < 0 or left > n_unknown:
        return unknown, layouts[:0], True
    choice = np.full(n_unknown, -1, np.int64)
    chosen = np.empty(n_interior, np.int64)
    found = placed = steps = 0
    u = 0
    while u >= 0:
        steps += 1
        if steps > _ENUMERATION_STEPS:
            return unknown, layouts[:found], False
        if u == n_front:  # the numbers are met: the remaining mines go anywhere in the interior
            k = left - placed
            if found + _binomial(n_interior, k) > limit:
                return unknown, layouts[:found], False
            if 0 <= k <= n_interior:
                for j in range(k):
                    chosen[j] = j
                while True:
                    for v in range(n_front):
                        layouts[found, v] = choice[v]
                    for j in range(k):
                        layouts[found, n_front + chosen[j]] = 1
                    found += 1
                    j = k - 1  # next k-subset in lexicographic order
                    while j >= 0 and chosen[j] == n_interior - k + j:
                        j -= 1
                    if j < 0:
                        break
                    chosen[j] += 1
                    for q in range(j + 1, k):
                        chosen[q] = chosen[q - 1] + 1
            u -= 1
            continue
        if choice[u] >= 0:  # undo the previous choice for this cell
            placed -= choice[u]
            for k in range(cell_n_numbers[u]):
                missing[cell_numbers[u, k]] += choice[u]
                open_cells[cell_numbers[u, k]] += 1
        choice[u] += 1
        if choice[u] > 1:
            choice[u] = -1
            u -= 1
            continue
        placed += choice[u]
        fits = placed <= left and placed + (n_unknown - u - 1) >= left
        for k in range(cell_n_numbers[u]):
            number = cell_numbers[u, k]
            missing[number] -= choice[u]
            open_cells[number] -= 1
            fits = fits and 0 <= missing[number] <= open_cells[number]
        if fits:
            u += 1
    return unknown, layouts[:found], True


@njit(cache=True)
def _shown_values(flat, rows, cols, unknown, layouts):
    """The number each unknown cell shows in each layout, -1 where it holds a mine."""
    n = flat.shape[0]
    count, n_unknown = layouts.shape
    index_of = np.full(n, -1, np.int64)
    for u in range(n_unknown):
        index_of[unknown[u]] = u
    values = np.empty((count, n_unknown), np.int8)
    for u in range(n_unknown):
        r0, r1, c0, c1 = block(unknown[u] // cols, unknown[u] % cols, rows, cols)
        for s in range(count):
            if layouts[s, u]:
                values[s, u] = -1
                continue
            around = 0
            for rr in range(r0, r1):
                for cc in range(c0, c1):
                    j = rr * cols + cc
                    if is_known_mine(flat[j], False) or (index_of[j] >= 0 and layouts[s, index_of[j]]):
                        around += 1
            values[s, u] = around
    return values


@njit(cache=True)
def _set_key(subset, salt):
    """An order-free 64-bit hash of a set of layout indices."""
    key = np.uint64(0)
    for s in subset:
        key += salt[s]
    return np.int64(key)


@njit(cache=True)
def _split(subset, keys):
    """Reorder ``subset`` by ``keys`` and return the start of each run of equal keys (plus the end)."""
    order = stable_argsort(keys)
    ordered = subset[order]
    sorted_keys = keys[order]
    starts = np.empty(subset.shape[0] + 1, np.int64)
    n_groups = 0
    for j in range(subset.shape[0]):
        if j == 0 or sorted_keys[j] != sorted_keys[j - 1]:
            starts[n_groups] = j
            n_groups += 1
    starts[n_groups] = subset.shape[0]
    return ordered, starts[: n_groups + 1]


@njit(cache=True)
def _search(values, subset, memo, salt, budget):
    """(win chance under best play from the layouts in ``subset``, unknown cell to reveal or -1).

    See the module docstring. ``budget[0]`` counts down the work left (layouts times unknown cells looked
    at, per position); below zero the search gives up and returns a chance of -1.
    """
    if subset.shape[0] == 1:
        return 1.0, -1
    key = _set_key(subset, salt)
    if key in memo:
        return memo[key], -1
    size = subset.shape[0]
    n_unknown = values.shape[1]
    budget[0] -= size * n_unknown
    if budget[0] < 0:
        return _ABORTED, -1
    safe_count = np.zeros(n_unknown, np.int64)
    for s in subset:
        for u in range(n_unknown):
            if values[s, u] >= 0:
                safe_count[u] += 1
    # Free cells (safe in every layout): reveal them all at once and split by what they show.
    keys = np.zeros(size, np.int64)
    free_cell = -1
    for u in range(n_unknown):
        if safe_count[u] == size:
            free_cell = u
            for j in range(size):
                keys[j] = keys[j] * 11 + values[subset[j], u] + 1
    ordered, starts = _split(subset, keys)
    best, best_cell = 0.0, -1
    if starts.shape[0] > 2:
        best_cell = free_cell
        for g in range(starts.shape[0] - 1):
            chance, _ = _search(values, ordered[starts[g] : starts[g + 1]], memo, salt, budget)
            if chance == _ABORTED:
                return _ABORTED, -1
            best += (starts[g + 1] - starts[g]) * chance / size
    else:
        for u in stable_argsort(-safe_count):
            if safe_count[u] == size or safe_count[u] == 0:
                continue
            if safe_count[u] <= best * size:
                break  # no cell from here on can beat the best: its own safety bounds its win chance
            for j in range(size):
                keys[j] = values[subset[j], u]
            ordered, starts = _split(subset, keys)
            chance = 0.0
            for g in range(starts.shape[0] - 1):
                if values[ordered[starts[g]], u] < 0:
                    continue  # the cell is a mine in these layouts: the game is lost
                part, _ = _search(values, ordered[starts[g] : starts[g + 1]], memo, salt, budget)
                if part == _ABORTED:
                    return _ABORTED, -1
                chance += (starts[g + 1] - starts[g]) * part / size
            if chance > best:
                best, best_cell = chance, u
    memo[key] = best
    return best, best_cell


@njit(cache=True)
def best_endgame_guess(flat, rows, cols, mines, limit, work_budget):
    """The move with the highest win chance once at most ``limit`` layouts remain.

    Returns (cell, win chance), or (-1, -1.0) when there are more layouts or the search ran out of budget.
    """
    unknown, layouts, complete = enumerate_layouts(flat, rows, cols, mines, limit)
    if not complete or layouts.shape[0] < 2:
        return -1, _ABORTED
    values = _shown_values(flat, rows, cols, unknown, layouts)
    salt = np.empty(layouts.shape[0], np.uint64)
    state = np.uint64(0x5EED)
    for s in range(salt.shape[0]):
        state, salt[s] = splitmix64(state)
    memo = Dict.empty(key_type=types.int64, value_type=types.float64)
    budget = np.full(1, work_budget, np.int64)
    chance, u = _search(values, np.arange(layouts.shape[0]), memo, salt, budget)
    if chance == _ABORTED or u < 0:
        return -1, _ABORTED
    return unknown[u], chance

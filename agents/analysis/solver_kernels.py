"""Numba kernels of the solver: the exact count, the guess rules and whole games in compiled code.

:class:`agents.solver.SolverAgent` calls :func:`decide` once per position it has to think about, and the
evaluation runner calls :func:`play_games` to play whole suites without leaving compiled code. Both go
through the same :func:`decide`, so a game played move by move through the env and the same game played
here make the same moves (tested).

The exact count runs only when no cell is safe by one number alone or by two numbers together
(:func:`local_safe`): safe cells revealed in any order lead to the same position before the next guess,
so the shortcut changes no game, and it spares most counts that would only find safe cells.

The guess rules, by strength (see docs/SOLVER.md for what each adds):

* ``fast``: the safest cell; among equally safe cells the one with the fewest hidden neighbours (the
  likeliest to open an area), then a seeded draw. At most one exact count per position, nothing more.
* ``standard``: among the equally safe cells (at most ``max_candidates`` of them, fewest hidden neighbours
  first), the one most likely to be safe *and* give at least one certainly safe cell ("progress"); each
  number the cell may show is added to the position and the position recounted exactly.
* ``strong``: the candidates are all cells whose safety is within ``margin`` (relative) of the safest
  (and, as an option off by default, up to ``far_candidates`` cells two steps in a row or column from a
  number, whose number would overlap the numbers already shown). By default (``scoring="blended"``, in
  the manner of DavidNHill's solver) each is scored by what it leads to: each next position by
  (4 x best + second best safety) / 5, a certainly safe cell counting as 1, raised for a cell that may
  end up in a future 50/50 (:mod:`agents.analysis.long_term_risk`), with two swaps after the choice (see
  :func:`_blended_guess`). With ``scoring="survival"`` (the default until 2026-11-22) they are ranked by
  two-move survival instead: the chance the cell is safe and, whatever it shows, the best next move is
  safe too. Either way dead cells (that can show only one number, so teach nothing) come last, and ties
  go to progress. Before that, a forced 50/50 (two neighbouring cells, one mine, that no later reveal can
  tell apart) is guessed at once when ``pairs_first``: it must be guessed some day, and guessing it first
  may spare a guess elsewhere. Once at most ``endgame_layouts`` layouts fit the position, the exact
  endgame search of :mod:`agents.analysis.endgame` chooses instead (when it finishes within its work budget).

The random choices draw from a SplitMix64 stream whose state the caller owns (``state``), so a game is a
pure function of the layout key and the agent's seed.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from agents.analysis.counting import count_position
from agents.analysis.endgame import best_endgame_guess
from agents.analysis.long_term_risk import fifty_fifty_risk
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.rules import (
    PLAYING,
    WON,
    game_status,
    new_game_arrays,
    open_game,
    reveal_cell,
    safe_left,
    splitmix64,
)

FAST, STANDARD, STRONG = 0, 1, 2
STRENGTHS: dict[str, int] = {"fast": FAST, "standard": STANDARD, "strong": STRONG}
SURVIVAL, BLENDED = 0, 1
SCORINGS: dict[str, int] = {"survival": SURVIVAL, "blended": BLENDED}
"""How ``strong`` scores its candidates (see the module docstring)."""

TIE_TOLERANCE = 1e-9
"""Relative distance under which two probabilities (or scores) count as equal."""
_INTERIOR_CANDIDATES = 4
"""At most this many cells that touch no number enter a look-ahead by fewest hidden neighbours: they are
alike, bar their borders (a corner opens a zero most often)."""
FAR_CANDIDATES = 0
"""By default ``strong`` looks ahead at no cell two steps from a number: with the blended scoring, four of
them move the wins of every 100k suite by -0.01 to +0.06 points, none significantly, at 1.1-1.3x the time
(docs/SOLVER.md, seventh tuning round)."""

FIFTY_FIFTY_WEIGHT = 0.9
"""``blended`` scoring: how much of a candidate's long-term 50/50 risk is added back to its score."""
SAFER_BY = 0.001
"""``blended`` scoring: a candidate this much safer than the chosen cell, which the chosen cell would
always prove safe, is played instead."""

ENDGAME_LAYOUTS = 1000
"""By default ``strong`` searches the endgame exactly once at most this many layouts fit the position:
from 1,000 rather than 200, expert gained 0.16 points under ``safe`` and 0.02 under ``opening`` on 10,000
tuning games each (docs/SOLVER.md)."""
ENDGAME_WORK = 100_000_000
"""Work the endgame search may do before it gives up: a deterministic bound on its time (under half a
second per search on expert; tens of ms at the median). At a tenth of it most 1,000-layout searches
give up and the gain is lost."""


@njit(cache=True)
def _hidden_neighbours(flat, rows, cols, cell):
    """Hidden cells around ``cell``."""
    r, c = cell // cols, cell % cols
    total = 0
    for rr in range(max(r - 1, 0), min(r + 2, rows)):
        for cc in range(max(c - 1, 0), min(c + 2, cols)):
            if rr * cols + cc != cell and flat[rr * cols + cc] == HIDDEN:
                total += 1
    return total


@njit(cache=True)
def _touches_number(flat, rows, cols, cell):
    """Whether a revealed number lies next to ``cell``."""
    r, c = cell // cols, cell % cols
    for rr in range(max(r - 1, 0), min(r + 2, rows)):
        for cc in range(max(c - 1, 0), min(c + 2, cols)):
            if flat[rr * cols + cc] >= 0:
                return True
    return False


@njit(cache=True)
def _two_from_number(flat, rows, cols, cell):
    """Whether a revealed number lies two steps from ``cell`` in its row or column."""
    r, c = cell // cols, cell % cols
    for dr, dc in ((2, 0), (-2, 0), (0, 2), (0, -2)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < rows and 0 <= cc < cols and flat[rr * cols + cc] >= 0:
            return True
    return False


@njit(cache=True)
def _uniform(state):
    """A float in [0, 1) from the stream; returns (new state, value)."""
    state, bits = splitmix64(state)
    return state, float(bits >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _candidates(flat, rows, cols, probability, bound, by_probability, limit, far_limit, state):
    """Hidden cells with probability <= ``bound``, ordered and cut to ``limit``.

    Order: lowest probability first when ``by_probability``, then fewest hidden neighbours, then a seeded
    random key. Of the cells touching no number, the first :data:`_INTERIOR_CANDIDATES` are kept, and
    after them up to ``far_limit`` that lie two steps from a number. Returns (cells, new state).
    """
    n = flat.shape[0]
    cells = np.empty(n, np.int64)
    keys = np.empty(n, np.float64)
    m = 0
    for i in range(n):
        if flat[i] == HIDDEN and probability[i] <= bound:
            state, noise = _uniform(state)
            cells[m] = i
            keys[m] = _hidden_neighbours(flat, rows, cols, i) + noise
            m += 1
    order = np.argsort(keys[:m], kind="mergesort")
    if by_probability:
        ranked = np.empty(m, np.float64)
        for j in range(m):
            ranked[j] = probability[cells[order[j]]]
        order = order[np.argsort(ranked, kind="mergesort")]
    chosen = np.empty(min(m, limit), np.int64)
    taken = interior = far = 0
    for j in range(m):
        if taken == chosen.shape[0]:
            break
        cell = cells[order[j]]
        if not _touches_number(flat, rows, cols, cell):
            if interior < _INTERIOR_CANDIDATES:
                interior += 1
            elif far < far_limit and _two_from_number(flat, rows, cols, cell):
                far += 1
            else:
                continue
        chosen[taken] = cell
        taken += 1
    return chosen[:taken], state


@njit(cache=True)
def look_ahead(flat, rows, cols, mines, cell, mine_probability):
    """What revealing ``cell`` leads to, by exact recounts of each number it may show.

    Returns a tuple:

    * the chance it is safe and gives at least one certainly safe cell (progress);
    * two-move survival: the chance it is safe and the best next move is safe too (a certainly safe cell
      counts as 1, otherwise the next position's best safety);
    * how many numbers it may show (1 for a dead cell, whose reveal teaches nothing);
    * blended survival: the same with each next position scored (4 x best + second best safety) / 5;
    * the cell that is the single safest of the next position whatever the number, or -1;
    * per cell, whether it is certainly safe whatever the number.
    """
    work = flat.copy()
    n = flat.shape[0]
    log_weight = np.full(9, -np.inf)
    progress = np.zeros(9, np.bool_)
    best_next = np.zeros(9, np.float64)
    blend_next = np.zeros(9, np.float64)
    always_safe = np.ones(n, np.bool_)
    next_safest = -2  # -2: no number seen yet, -1: no single safest cell common to every number
    top = -np.inf
    for value in range(_hidden_neighbours(flat, rows, cols, cell) + 1):
        work[cell] = value
        consistent, probability, safe, log_layouts = count_position(work, rows, cols, mines)
        if not consistent:
            continue
        log_weight[value] = log_layouts
        top = max(top, log_layouts)
        best, second, safest = 0.0, 0.0, -1
        for i in range(n):
            always_safe[i] = always_safe[i] and safe[i] and work[i] == HIDDEN
            if work[i] != HIDDEN:
                continue
            progress[value] = progress[value] or safe[i]
            safety = 1.0 - probability[i]
            if safety > best:
                best, second, safest = safety, best, i
            elif safety > second:
                second = safety
        best_next[value] = 1.0 if progress[value] else best
        blend_next[value] = (4.0 * best + second) / 5.0
        single = safest if best > second + TIE_TOLERANCE else -1
        next_safest = single if next_safest == -2 or next_safest == single else -1
    total = 0.0
    n_values = 0
    for value in range(9):
        if log_weight[value] > -np.inf:
            total += np.exp(log_weight[value] - top)
            n_values += 1
    if n_values == 0:  # a certain mine: no number to see
        always_safe[:] = False
    progress_chance = survival = blended = 0.0
    for value in range(9):
        if log_weight[value] > -np.inf:
            share = (1.0 - mine_probability) * np.exp(log_weight[value] - top) / total
            survival += share * best_next[value]
            blended += share * blend_next[value]
            if progress[value]:
                progress_chance += share
    return progress_chance, survival, n_values, blended, max(next_safest, -1), always_safe


@njit(cache=True)
def _certain_mine_or_outside(flat, rows, cols, r, c, probability):
    """Whether (r, c) lies off the board, is a shown mine or is a covered cell that is certainly a mine."""
    if r < 0 or r >= rows or c < 0 or c >= cols:
        return True
    cell = r * cols + c
    return flat[cell] == MINE or (flat[cell] < 0 and probability[cell] >= 1.0 - TIE_TOLERANCE)


@njit(cache=True)
def _one_mine_between(flat, rows, cols, probability, a, b):
    """Whether a number next to both ``a`` and ``b`` says exactly one of them is a mine.

    Its other covered neighbours must all be certain mines, so what it still misses is ``a`` or ``b``.
    """
    ra, ca, rb, cb = a // cols, a % cols, b // cols, b % cols
    for r in range(max(max(ra, rb) - 1, 0), min(min(ra, rb) + 2, rows)):
        for c in range(max(max(ca, cb) - 1, 0), min(min(ca, cb) + 2, cols)):
            number = r * cols + c
            if flat[number] < 0:
                continue
            missing, settled = int(flat[number]), True
            for rr in range(max(r - 1, 0), min(r + 2, rows)):
                for cc in range(max(c - 1, 0), min(c + 2, cols)):
                    cell = rr * cols + cc
                    if cell in (a, b) or flat[cell] >= 0:
                        continue
                    if _certain_mine_or_outside(flat, rows, cols, rr, cc, probability):
                        missing -= 1
                    else:
                        settled = False
            if settled and missing == 1:
                return True
    return False


@njit(cache=True)
def _forced_pair(flat, rows, cols, probability, a, b):
    """Whether neighbours ``a`` and ``b`` are a 50/50 that no later reveal can settle.

    One of them is a mine, and every cell next to only one of them is off the board or certainly a mine
    (so never revealed): every number still to come sees both or neither.
    """
    ra, ca, rb, cb = a // cols, a % cols, b // cols, b % cols
    for r in range(min(ra, rb) - 1, max(ra, rb) + 2):
        for c in range(min(ca, cb) - 1, max(ca, cb) + 2):
            next_to_a = abs(r - ra) <= 1 and abs(c - ca) <= 1
            next_to_b = abs(r - rb) <= 1 and abs(c - cb) <= 1
            if next_to_a != next_to_b and not _certain_mine_or_outside(flat, rows, cols, r, c, probability):
                return False
    return _one_mine_between(flat, rows, cols, probability, a, b)


@njit(cache=True)
def _half(p):
    """Whether a mine probability is one half."""
    return abs(p - 0.5) < TIE_TOLERANCE


@njit(cache=True)
def forced_fifty_fifty(flat, rows, cols, probability):
    """A cell of the first forced 50/50 pair in row-major order (see :func:`_forced_pair`), or -1."""
    for a in range(flat.shape[0]):
        if flat[a] != HIDDEN or not _half(probability[a]):
            continue
        r, c = a // cols, a % cols
        for b in (a + 1 if c + 1 < cols else -1, a + cols if r + 1 < rows else -1):
            pair = b >= 0 and flat[b] == HIDDEN and _half(probability[b])
            if pair and _forced_pair(flat, rows, cols, probability, a, b):
                return a
    return -1


@njit(cache=True)
def _pick(candidates, scores_by_rank, state):
    """A seeded uniform choice among the candidates best by each row of scores in turn (within tolerance)."""
    keep = np.ones(candidates.shape[0], np.bool_)
    for scores in scores_by_rank:
        best = -np.inf
        for j in range(candidates.shape[0]):
            if keep[j]:
                best = max(best, scores[j])
        for j in range(candidates.shape[0]):
            keep[j] = keep[j] and scores[j] >= best - TIE_TOLERANCE * abs(best)
    kept = np.flatnonzero(keep)
    state, noise = _uniform(state)
    return candidates[kept[int(noise * kept.shape[0])]], state


@njit(cache=True)
def choose_guess(
    flat, rows, cols, mines, probability, log_layouts, strength, margin, max_candidates, far_candidates,
    endgame_layouts, pairs_first, scoring, state,
):  # fmt: skip
    """The guess in a position with no certainly safe cell; returns (cell, new state).

    ``strong`` first tries the exact endgame search when at most ``endgame_layouts`` layouts fit, then
    (when ``pairs_first``) a forced 50/50, then scores its candidates by ``scoring``.
    """
    if strength == STRONG and log_layouts <= math.log(endgame_layouts + 0.5):
        cell, _ = best_endgame_guess(flat, rows, cols, mines, endgame_layouts, ENDGAME_WORK)
        if cell >= 0:
            return cell, state
    if strength == STRONG and pairs_first:
        cell = forced_fifty_fifty(flat, rows, cols, probability)
        if cell >= 0:
            return cell, state
    lowest = 1.0
    for i in range(flat.shape[0]):
        if flat[i] == HIDDEN:
            lowest = min(lowest, probability[i])
    tied = lowest + TIE_TOLERANCE * lowest
    if strength == STRONG:
        bound = max(tied, 1.0 - (1.0 - lowest) * (1.0 - margin))
        candidates, state = _candidates(
            flat, rows, cols, probability, bound, True, max_candidates, far_candidates, state
        )
    else:
        limit = 1 if strength == FAST else max_candidates
        candidates, state = _candidates(flat, rows, cols, probability, tied, False, limit, 0, state)
    if candidates.shape[0] == 1:
        return candidates[0], state
    if strength != STRONG:
        progress = np.empty((1, candidates.shape[0]))
        for j in range(candidates.shape[0]):
            progress[0, j] = look_ahead(flat, rows, cols, mines, candidates[j], probability[candidates[j]])[0]
        return _pick(candidates, progress, state)
    if scoring == BLENDED:
        return _blended_guess(flat, rows, cols, mines, probability, log_layouts, candidates, state)
    # Rows: alive (not a dead cell), two-move survival, progress chance.
    scores = np.empty((3, candidates.shape[0]))
    for j in range(candidates.shape[0]):
        cell = candidates[j]
        progress_chance, survival, n_values, _, _, _ = look_ahead(flat, rows, cols, mines, cell, probability[cell])
        scores[0, j], scores[1, j], scores[2, j] = n_values > 1, survival, progress_chance
    return _pick(candidates, scores, state)


@njit(cache=True)
def _blended_guess(flat, rows, cols, mines, probability, log_layouts, candidates, state):
    """The ``blended`` scoring of ``strong``'s candidates; returns (cell, new state).

    Score: blended survival (:func:`look_ahead`) times 1 + :data:`FIFTY_FIFTY_WEIGHT` x the cell's
    long-term 50/50 risk over its safety (:func:`agents.analysis.long_term_risk.fifty_fifty_risk`); alive cells
    first, ties to progress. Then two swaps: to a candidate at least :data:`SAFER_BY` safer that the
    chosen cell would always prove safe, else to the candidate that would be the single safest cell
    whatever the chosen one shows, when it is safer than the chosen one (it would be played next anyway).
    """
    m = candidates.shape[0]
    scores = np.empty((3, m))
    next_safest = np.empty(m, np.int64)
    always_safe = np.empty((m, flat.shape[0]), np.bool_)
    for j in range(m):
        cell = candidates[j]
        progress_chance, _, n_values, blended, next_safest[j], always_safe[j] = look_ahead(
            flat, rows, cols, mines, cell, probability[cell]
        )
        risk = fifty_fifty_risk(flat, rows, cols, mines, probability, log_layouts, cell)
        scores[0, j] = n_values > 1
        scores[1, j] = blended * (1.0 + FIFTY_FIFTY_WEIGHT * risk / (1.0 - probability[cell]))
        scores[2, j] = progress_chance
    cell, state = _pick(candidates, scores, state)
    chosen = np.flatnonzero(candidates == cell)[0]
    for j in np.argsort(-scores[1]):
        if probability[cell] - probability[candidates[j]] > SAFER_BY and always_safe[chosen, candidates[j]]:
            return candidates[j], state
    follow = next_safest[chosen]
    if follow >= 0 and probability[follow] < probability[cell]:
        for j in range(m):
            if candidates[j] == follow:
                return follow, state
    return cell, state


@njit(cache=True)
def _covered_around(flat, rows, cols, r, c):
    """Covered cells (hidden, flagged or shown mines) around (r, c)."""
    total = 0
    for rr in range(max(r - 1, 0), min(r + 2, rows)):
        for cc in range(max(c - 1, 0), min(c + 2, cols)):
            total += flat[rr * cols + cc] < 0
    return total


@njit(cache=True)
def _mines_and_unknown_around(flat, rows, cols, r, c, mine):
    """(cells marked in ``mine``, covered cells not marked) around (r, c)."""
    marked = unmarked = 0
    for rr in range(max(r - 1, 0), min(r + 2, rows)):
        for cc in range(max(c - 1, 0), min(c + 2, cols)):
            i = rr * cols + cc
            marked += mine[i]
            unmarked += flat[i] < 0 and not mine[i]
    return marked, unmarked


@njit(cache=True)
def _mark_around(flat, rows, cols, r, c, target, skip, only_hidden):
    """Set ``target`` on the covered cells (only the hidden ones when ``only_hidden``) around (r, c) that
    are not in ``skip``; returns how many were newly set."""
    newly = 0
    for rr in range(max(r - 1, 0), min(r + 2, rows)):
        for cc in range(max(c - 1, 0), min(c + 2, cols)):
            i = rr * cols + cc
            if flat[i] < 0 and (flat[i] == HIDDEN or not only_hidden) and not skip[i] and not target[i]:
                target[i] = True
                newly += 1
    return newly


@njit(cache=True)
def _shared_unknown(flat, rows, cols, ra, ca, rb, cb, mine):
    """Covered cells not marked in ``mine`` next to both (ra, ca) and (rb, cb)."""
    total = 0
    for r in range(max(max(ra, rb) - 1, 0), min(min(ra, rb) + 2, rows)):
        for c in range(max(max(ca, cb) - 1, 0), min(min(ca, cb) + 2, cols)):
            i = r * cols + c
            total += flat[i] < 0 and not mine[i]
    return total


@njit(cache=True)
def _mark_beyond(flat, rows, cols, rb, cb, ra, ca, safe, mine):
    """Set ``safe`` on the hidden cells around (rb, cb), not marked in ``mine``, that are not next to
    (ra, ca); returns how many were newly set."""
    newly = 0
    for r in range(max(rb - 1, 0), min(rb + 2, rows)):
        for c in range(max(cb - 1, 0), min(cb + 2, cols)):
            i = r * cols + c
            if flat[i] == HIDDEN and not mine[i] and not safe[i] and (abs(r - ra) > 1 or abs(c - ca) > 1):
                safe[i] = True
                newly += 1
    return newly


@njit(cache=True)
def _pair_clears(flat, rows, cols, mine, unknown, missing, safe):
    """The subset rule between two numbers a and b at most two cells apart: b's unknown cells (covered, not
    marked as mines) outside a hold at most ``missing[b]`` minus the fewest mines a must put in the cells
    they share, so they are safe when that is 0. Marks the hidden ones in ``safe``; returns how many were
    newly marked."""
    found = 0
    for rb in range(rows):
        for cb in range(cols):
            b = rb * cols + cb
            if unknown[b] == 0:
                continue
            for ra in range(max(rb - 2, 0), min(rb + 3, rows)):
                for ca in range(max(cb - 2, 0), min(cb + 3, cols)):
                    a = ra * cols + ca
                    if a == b or unknown[a] == 0:
                        continue
                    shared = _shared_unknown(flat, rows, cols, ra, ca, rb, cb, mine)
                    if 0 < shared < unknown[b] and missing[b] <= missing[a] - (unknown[a] - shared):
                        found += _mark_beyond(flat, rows, cols, rb, cb, ra, ca, safe, mine)
    return found


@njit(cache=True)
def local_safe(flat, rows, cols):
    """Hidden cells that one number, or else two numbers together, prove safe, in increasing order: no
    count needed.

    First every number with as many covered neighbours as its value marks them all as mines; then every
    number with that many marked mines around it clears its other hidden neighbours. When none does, the
    subset rule between pairs of numbers (:func:`_pair_clears`) is tried. Flags are not trusted; shown
    mines count as mines. Assumes the position fits (nothing here checks it).
    """
    n = flat.shape[0]
    mine = flat == MINE
    for r in range(rows):
        for c in range(cols):
            value = flat[r * cols + c]
            if value > 0 and _covered_around(flat, rows, cols, r, c) == value:
                _mark_around(flat, rows, cols, r, c, mine, mine, False)
    safe = np.zeros(n, np.bool_)
    unknown = np.zeros(n, np.int64)
    missing = np.zeros(n, np.int64)
    found = 0
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            if flat[i] >= 0:
                marked, unknown[i] = _mines_and_unknown_around(flat, rows, cols, r, c, mine)
                missing[i] = flat[i] - marked
                if missing[i] == 0 and unknown[i]:
                    found += _mark_around(flat, rows, cols, r, c, safe, mine, True)
    if not found:
        found = _pair_clears(flat, rows, cols, mine, unknown, missing, safe)
    return np.flatnonzero(safe) if found else np.empty(0, np.int64)


@njit(cache=True)
def decide(
    flat, rows, cols, mines, strength, margin, max_candidates, far_candidates, endgame_layouts, pairs_first,
    scoring, state,
):  # fmt: skip
    """The solver's next move(s) in a position after the first click.

    Returns (cells, new state): the hidden cells one number, or two together, prove safe when there are any
    (:func:`local_safe`, no count needed), else every certainly safe hidden cell of the exact count, else
    the single guess; all in increasing order, and empty when no layout fits the position. Revealing
    certainly safe cells in any order reaches the same position once none is left, so the shortcut
    changes no guess, only the order of the free reveals.
    The caller must know the position fits (the shortcut does not count); :class:`SolverAgent` checks
    each position it did not reach by its own reveals.
    """
    cells = local_safe(flat, rows, cols)
    if cells.shape[0]:
        return cells, state
    consistent, probability, safe, log_layouts = count_position(flat, rows, cols, mines)
    if not consistent:
        return np.empty(0, np.int64), state
    cells = np.flatnonzero(safe & (flat == HIDDEN))
    if cells.shape[0]:
        return cells, state
    cell, state = choose_guess(
        flat, rows, cols, mines, probability, log_layouts, strength, margin, max_candidates, far_candidates,
        endgame_layouts, pairs_first, scoring, state,
    )  # fmt: skip
    cells = np.empty(1, np.int64)
    cells[0] = cell
    return cells, state


@njit(cache=True)
def play_game(
    rows, cols, n_mines, rule, first_cell, key, state, strength, margin, max_candidates, far_candidates,
    endgame_layouts, pairs_first, scoring,
):  # fmt: skip
    """One whole game: the layout from ``key`` (as the env draws it), the solver's moves from ``state``.

    Returns (won, safe cells revealed, reveals made).
    """
    n = rows * cols
    game = new_game_arrays(n)
    open_game(game, rows, cols, n_mines, rule, key, first_cell)
    steps = 1
    while game_status(game.meta) == PLAYING:
        cells, state = decide(
            game.obs, rows, cols, n_mines, strength, margin, max_candidates, far_candidates, endgame_layouts,
            pairs_first, scoring, state,
        )  # fmt: skip
        if cells.shape[0] == 0:
            break
        for cell in cells:
            if game.obs[cell] == HIDDEN:
                reveal_cell(game, rows, cols, cell)
                steps += 1
                if game_status(game.meta) != PLAYING:
                    break
    return game_status(game.meta) == WON, n - n_mines - safe_left(game.meta), steps


@njit(cache=True)
def play_games(
    rows, cols, n_mines, rule, first_cell, keys, states, strength, margin, max_candidates, far_candidates,
    endgame_layouts, pairs_first, scoring,
):  # fmt: skip
    """:func:`play_game` for each (key, state); returns won, safe cells revealed and reveals per game."""
    games = keys.shape[0]
    won = np.empty(games, np.bool_)
    revealed = np.empty(games, np.int64)
    steps = np.empty(games, np.int64)
    for g in range(games):
        won[g], revealed[g], steps[g] = play_game(
            rows, cols, n_mines, rule, first_cell, keys[g], states[g], strength, margin, max_candidates,
            far_candidates, endgame_layouts, pairs_first, scoring,
        )  # fmt: skip
    return won, revealed, steps

"""The contest's and the look-ahead's scores of a battle move, computed in one compiled call.

:mod:`battle.players.values` defines the values the battle AIs choose by, over :class:`~battle.players.position.
Position` objects, in Python: the reference. A look-ahead move counts some fourteen click outcomes
(:func:`~battle.counting.outcomes.reveal_counts_stored`), and around each count the Python of those formulas
(the outcome distribution, the positions, the sums) and the crossing into the kernel cost about as much as the
count itself. Here the same formulas, in the same order of operations, run in compiled code over plain arrays,
so a whole move is one call: :func:`contest_scores` (``E[A] - E'[A]`` of each candidate) and
:func:`lookahead_scores` (``Q3`` of the best ``deepen`` of them). The floats are those of the Python path
(tests/agents/test_battle_search.py plays whole games both ways, move for move), and the agent still breaks ties
with its own generator in Python.

A position here is its flat grid, its cells' exact mine probabilities and certain mines. The outcomes of the
clicks scored at one level are kept in :class:`Expansions`, the arrays of one count per click.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from battle.counting.outcomes import OUTCOMES, reveal_counts_stored
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.geometry import block
from mine_env.engine.sorting import stable_argsort

TIE_TOLERANCE = 1e-9
"""Probabilities (and scores) closer than this count as equal; the agent's generator breaks the tie."""

FLOOD_MIN_SHARE = 0.1
"""A zero at least this likely gets its flood fill modelled (:func:`flooded_chance`); a rarer one keeps ``m``."""

FLOOD_NEIGHBOURS = 1
"""How many of a zero's neighbours :func:`flooded_chance` reveals one at a time (the most telling ones)."""


@njit(cache=True)
def outcome_distribution(log_layouts: np.ndarray, p_mine: float, certain: bool) -> np.ndarray:
    """How likely each outcome of a click is (index 0 the mine, ``1 + v`` the number v): the mine its exact
    probability, and the numbers the rest in proportion to their layout counts (``log_layouts``, -inf where
    none fits or not counted). A certain mine shows no number. Both paths of the agents use this one function,
    so their floats agree."""
    distribution = np.zeros(OUTCOMES, np.float64)
    distribution[0] = p_mine
    if certain:
        return distribution
    top = -np.inf
    for index in range(1, OUTCOMES):
        if np.isfinite(log_layouts[index]) and log_layouts[index] > top:
            top = log_layouts[index]
    total = 0.0
    for index in range(1, OUTCOMES):
        if np.isfinite(log_layouts[index]):
            distribution[index] = math.exp(log_layouts[index] - top)
            total += distribution[index]
    for index in range(1, OUTCOMES):
        if np.isfinite(log_layouts[index]):
            distribution[index] = (1.0 - p_mine) * distribution[index] / total
    return distribution


_FLAGS_OFF = np.zeros(1, np.bool_)
"""False typed as a plain bool read from an array: a literal argument would compile the callee once more (the
count's whole pipeline: tens of seconds)."""
_FLAGS_ON = np.ones(1, np.bool_)
"""True, likewise."""
_ONE = np.ones(1, np.int64)
_ZERO = np.zeros(1, np.float64)
_TIE = np.full(1, TIE_TOLERANCE)
"""1, 0.0 and TIE_TOLERANCE as plain values (the rank and tolerances of :func:`contest_values`), likewise."""


class Board(NamedTuple):
    """What every count of a search shares: the board's shape and its mine total."""

    rows: int
    cols: int
    mines: int


class Expansions(NamedTuple):
    """Every outcome of clicking each of ``cells`` in one position (one row per click).

    Outcome ``index`` (0 the mine, ``1 + v`` the number v) of click ``j`` is the position with the click's cell
    showing it; where ``consistent[j, index]`` it has the count ``probability[j, index]``, ``certain[j, index]``
    and ``best[j, index]`` (its highest mine probability among hidden cells: ``m``), and ``share[j, index]`` is
    its probability."""

    cells: np.ndarray
    p_mine: np.ndarray
    consistent: np.ndarray
    share: np.ndarray
    best: np.ndarray
    probability: np.ndarray
    certain: np.ndarray


@njit(cache=True, inline="always")
def expand(flat, probability, certain, cells, board, store):  # type: ignore[no-untyped-def]
    """The :class:`Expansions` of clicking each of ``cells`` (a certain mine: only its mine outcome; a cell that
    cannot be a mine: only its numbers)."""
    k, n = cells.shape[0], flat.shape[0]
    out = Expansions(cells.copy(), np.empty(k), np.zeros((k, OUTCOMES), np.bool_), np.zeros((k, OUTCOMES)),
                     np.zeros((k, OUTCOMES)), np.empty((k, OUTCOMES, n)),
                     np.empty((k, OUTCOMES, n), np.bool_))  # fmt: skip
    for j in range(k):
        cell = cells[j]
        p_mine, is_certain = probability[cell], certain[cell]
        out.p_mine[j] = p_mine
        with_mine = p_mine > 0.0
        if is_certain and not with_mine:  # no outcome is counted (a certain mine is always a possible mine)
            out.share[j, 0] = p_mine
            continue
        consistent, log_layouts, best, counted, counted_certain = reveal_counts_stored(
            flat, board.rows, board.cols, board.mines, cell, with_mine, not is_certain, store, probability
        )
        out.share[j] = outcome_distribution(log_layouts, p_mine, is_certain)
        out.consistent[j] = consistent
        out.best[j] = best
        out.probability[j] = counted
        out.certain[j] = counted_certain
    return out


@njit(cache=True, inline="always")
def _shown(flat, cell, index):  # type: ignore[no-untyped-def]
    """The grid after ``cell`` of ``flat`` shows outcome ``index``."""
    after = flat.copy()
    after[cell] = MINE if index == 0 else index - 1
    return after


@njit(cache=True, inline="always")
def likeliest(probability, cells, count):  # type: ignore[no-untyped-def]
    """The ``count`` cells of ``cells`` with the highest mine probability (stable order on ties)."""
    return cells[stable_argsort(-probability[cells])[:count]]


@njit(cache=True)
def flooded_chance(after_zero, probability, certain, best, cell, board, store):  # type: ignore[no-untyped-def]
    """:func:`battle.players.values.flooded_chance` of the position ``after_zero`` (``cell`` showing 0; its count
    ``probability``, ``certain``, ``best``): the best, over the ``FLOOD_NEIGHBOURS`` hidden neighbours with the
    fewest undecided cells around them, of ``sum_w P(N shows w) * m(N shows w)``, and at least ``best``."""
    rows, cols = board.rows, board.cols
    row, col = cell // cols, cell % cols
    around = np.empty(9, np.int64)
    neighbours = np.empty(9, np.int64)
    found = 0
    r0, r1, c0, c1 = block(row, col, rows, cols)
    for r in range(r0, r1):
        for c in range(c0, c1):
            if after_zero[r * cols + c] == HIDDEN:
                undecided = 0
                s0, s1, t0, t1 = block(r, c, rows, cols)
                for rr in range(s0, s1):
                    for cc in range(t0, t1):
                        i = rr * cols + cc
                        p = probability[i]
                        undecided += after_zero[i] == HIDDEN and TIE_TOLERANCE < p < 1.0 - TIE_TOLERANCE
                if undecided:
                    around[found], neighbours[found] = undecided, r * cols + c
                    found += 1
    chance = best
    order = stable_argsort(around[:found])  # row-major within a tie, as sorting (around, r, c)
    for q in range(min(found, FLOOD_NEIGHBOURS)):
        neighbour = neighbours[order[q]]
        if certain[neighbour]:
            continue  # a certain mine shows no number: nothing expected from it
        consistent, log_layouts, best_after, _, _ = reveal_counts_stored(
            after_zero, rows, cols, board.mines, neighbour, _FLAGS_OFF[0], _FLAGS_ON[0], store, probability
        )
        share = outcome_distribution(log_layouts, probability[neighbour], _FLAGS_OFF[0])
        expected = 0.0
        for index in range(OUTCOMES):
            if consistent[index]:
                expected += share[index] * best_after[index]
        if expected > chance:
            chance = expected
    return chance


@njit(cache=True, inline="always")
def _opponent_chance(flat, ex, j, index, floods, board, store):  # type: ignore[no-untyped-def]
    """``m'`` of outcome ``index`` of click ``j``: its ``m``, or after a zero at least ``FLOOD_MIN_SHARE``
    likely the flood fill's chance (kept in ``floods[j]``, since the look-ahead asks twice)."""
    if index == 1 and ex.share[j, 1] >= FLOOD_MIN_SHARE:
        if np.isnan(floods[j]):
            cell = ex.cells[j]
            floods[j] = flooded_chance(_shown(flat, cell, 1), ex.probability[j, 1], ex.certain[j, 1],
                                       ex.best[j, 1], cell, board, store)  # fmt: skip
        return floods[j]
    return ex.best[j, index]


@njit(cache=True, inline="always")
def _gain(ex, j):  # type: ignore[no-untyped-def]
    """``E[A]`` cut after one more click: ``p_A * (1 + m(A claimed))`` (0.0 when A cannot be a mine)."""
    return ex.p_mine[j] * (1.0 + ex.best[j, 0]) if ex.consistent[j, 0] else 0.0


@njit(cache=True, inline="always")
def contest_value(flat, ex, j, floods, board, store):  # type: ignore[no-untyped-def]
    """``E[A] - E'[A]`` of click ``j`` (:func:`battle.players.values.contest_value`)."""
    given = 0.0
    for index in range(1, OUTCOMES):
        if ex.consistent[j, index]:
            given += ex.share[j, index] * _opponent_chance(flat, ex, j, index, floods, board, store)
    return _gain(ex, j) - given


@njit(cache=True, inline="always")
def contest_values(flat, ex, rank, tolerance, floods, board, store):  # type: ignore[no-untyped-def]
    """:func:`battle.players.values.contest_values`: exact wherever a value can be among the ``rank`` highest
    (or within ``tolerance`` of the ``rank``-th), else the bound ``m`` in place of ``m'``."""
    k = ex.cells.shape[0]
    values = np.empty(k)
    exact = np.empty(k, np.bool_)
    for j in range(k):
        given = 0.0
        for index in range(1, OUTCOMES):
            if ex.consistent[j, index]:
                given += ex.share[j, index] * ex.best[j, index]
        values[j] = _gain(ex, j) - given
        exact[j] = not (ex.consistent[j, 1] and ex.share[j, 1] >= FLOOD_MIN_SHARE)
    for i in stable_argsort(-values):
        if exact[i]:
            continue
        known = np.sort(values[exact])[::-1]
        if known.shape[0] >= rank and values[i] < known[rank - 1] - tolerance:
            break
        values[i] = contest_value(flat, ex, i, floods, board, store)
        exact[i] = True
    return values


@njit(cache=True)
def contest_best(flat, probability, certain, candidates, board, store):  # type: ignore[no-untyped-def]
    """``V2(X)`` (:func:`battle.players.values.contest_best`): the highest ``E - E'`` over the ``candidates``
    likeliest hidden cells of position ``X``; 0.0 when nothing is hidden."""
    hidden = np.flatnonzero(flat == HIDDEN)
    if hidden.shape[0] == 0:
        return 0.0
    ex = expand(flat, probability, certain, likeliest(probability, hidden, candidates), board, store)
    floods = np.full(ex.cells.shape[0], np.nan)
    return contest_values(flat, ex, _ONE[0], _ZERO[0], floods, board, store).max()


@njit(cache=True)
def contest_scores(flat, probability, certain, shortlist, board, store):  # type: ignore[no-untyped-def]
    """The contest AI's move: ``E[A] - E'[A]`` of each cell of ``shortlist`` where it can be the best (within
    ``TIE_TOLERANCE``), an upper bound below that elsewhere (:class:`battle.players.ContestBattleAgent`)."""
    ex = expand(flat, probability, certain, shortlist, board, store)
    floods = np.full(shortlist.shape[0], np.nan)
    return contest_values(flat, ex, _ONE[0], _TIE[0], floods, board, store)


@njit(cache=True)
def lookahead_scores(flat, probability, certain, shortlist, deepen, inner, min_share, board, store):  # type: ignore[no-untyped-def]
    """The look-ahead AI's move (:class:`battle.players.LookaheadBattleAgent`): the ``deepen`` cells of
    ``shortlist`` of highest contest value (indices into it, best first) and the ``Q3`` of each."""
    ex = expand(flat, probability, certain, shortlist, board, store)
    floods = np.full(shortlist.shape[0], np.nan)
    ranked = stable_argsort(-contest_values(flat, ex, deepen, _ZERO[0], floods, board, store))[:deepen]
    scores = np.empty(ranked.shape[0])
    for q in range(ranked.shape[0]):
        scores[q] = _q3(flat, ex, ranked[q], inner, min_share, floods, board, store)
    return ranked, scores


@njit(cache=True, inline="always")
def _q3(flat, ex, j, inner, min_share, floods, board, store):  # type: ignore[no-untyped-def]
    """``Q3`` of click ``j`` (:meth:`battle.players.LookaheadBattleAgent.q3`)."""
    cell = ex.cells[j]
    gain = 0.0
    if ex.consistent[j, 0]:
        claimed = contest_best(_shown(flat, cell, 0), ex.probability[j, 0], ex.certain[j, 0], inner, board, store)
        gain = ex.p_mine[j] * (1.0 + claimed)
    given = 0.0
    for index in range(1, OUTCOMES):
        if not ex.consistent[j, index]:
            continue
        share = ex.share[j, index]
        if share >= min_share and index != 1:
            value = contest_best(_shown(flat, cell, index), ex.probability[j, index], ex.certain[j, index], inner,
                                 board, store)  # fmt: skip
        else:
            value = _opponent_chance(flat, ex, j, index, floods, board, store)
        given += share * value
    return gain - given

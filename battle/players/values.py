"""The values the battle agents (:mod:`battle.players`) choose by, over exact positions (:class:`Position`).

``m(X)`` (:func:`best_chance`), the outcomes of a click with their exact probabilities (:func:`expand`), the
opponent's chance after a zero with its flood fill (:func:`flooded_chance`), the contest's ``E[A] - E'[A]``
(:func:`contest_value`), a bound of it that costs no count (:func:`contest_bound`) and the values where they can
matter (:func:`contest_values`), and ``V2(X)`` (:func:`contest_best`). docs/BATTLE.md derives the formulas.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from battle.players.position import Position
from battle.players.search import FLOOD_MIN_SHARE, FLOOD_NEIGHBOURS, TIE_TOLERANCE
from mine_env.analysis.probability import VALUE_MINE
from mine_env.engine.geometry import neighbours


def best_chance(analysis: Position) -> float:
    """The highest mine probability among the hidden cells of a position (0.0 when none is hidden)."""
    return analysis.best_chance


class Expansion(NamedTuple):
    """What clicking one cell can lead to: its exact mine probability and the position after each outcome."""

    cell: tuple[int, int]
    p_mine: float
    claimed: Position | None
    """The position after the cell turns out a mine (the mover moves again); None when it cannot be one."""
    safe: list[tuple[int, float, Position]]
    """(v, P(the cell shows v), the position after it) for each possible number v; the shares sum to 1 - p_mine."""


def expand(analysis: Position, cell: int) -> Expansion:
    """Every outcome of clicking flat ``cell``, with its exact probability (:meth:`Position.reveal_outcomes`)."""
    coordinates = divmod(cell, analysis.grid.shape[1])
    distribution, outcomes = analysis.reveal_outcomes(coordinates, with_mine=True)
    p_mine = float(distribution[VALUE_MINE])
    claimed = outcomes[VALUE_MINE]
    safe = [(index - 1, float(distribution[index]), outcome) for index, outcome in enumerate(outcomes)
            if outcome is not None and index != VALUE_MINE]  # fmt: skip
    return Expansion(coordinates, p_mine, claimed, safe)


def flooded_chance(after_zero: Position, cell: tuple[int, int]) -> float:
    """The opponent's best chance after ``cell`` shows 0 and its flood fill opens the neighbours: the best, over
    the most telling hidden neighbours ``N``, of ``sum_w P(N shows w) * m(N shows w)`` (and at least ``m``).

    The flood reveals every neighbour's number at once; revealing one of them is less information, and the
    expected best chance only grows with information, so this is a lower bound of the true value, and at least
    the ``m`` of the zero alone (which ignores the opened numbers). To keep it cheap only the ``FLOOD_NEIGHBOURS``
    neighbours with the fewest undecided cells (mine probability strictly between 0 and 1) around them are
    revealed: a number over few undecided cells is the likeliest to pin a mine; one over none tells nothing.
    """
    key = ("flooded_chance", cell)
    if key not in after_zero.memo:  # the look-ahead asks again for the zeros of the clicks it deepens
        after_zero.memo[key] = _flooded_chance(after_zero, cell)
    return after_zero.memo[key]


def _flooded_chance(after_zero: Position, cell: tuple[int, int]) -> float:
    """:func:`flooded_chance`, computed (that function keeps it on the position, per cell)."""
    rows, cols = after_zero.grid.shape
    r0, c0 = max(cell[0] - 2, 0), max(cell[1] - 2, 0)  # the 5x5 square the neighbours' own neighbours lie in
    hidden = after_zero.hidden[r0 : cell[0] + 3, c0 : cell[1] + 3]
    probabilities = after_zero.probabilities[r0 : cell[0] + 3, c0 : cell[1] + 3]
    undecided = (hidden & (probabilities > TIE_TOLERANCE) & (probabilities < 1.0 - TIE_TOLERANCE)).tolist()
    hidden = hidden.tolist()
    telling = []
    for neighbour in neighbours(cell[0] * cols + cell[1], rows, cols):  # the cell itself shows 0: not hidden
        r, c = divmod(neighbour, cols)
        if hidden[r - r0][c - c0]:
            block = [divmod(i, cols) for i in (neighbour, *neighbours(neighbour, rows, cols))]
            around = sum(undecided[rr - r0][cc - c0] for rr, cc in block)
            if around:
                telling.append((around, r, c))
    best = best_chance(after_zero)
    for _, r, c in sorted(telling)[:FLOOD_NEIGHBOURS]:
        distribution, outcomes = after_zero.reveal_outcomes((r, c))
        expected = sum(float(distribution[i]) * best_chance(o) for i, o in enumerate(outcomes) if o is not None)
        best = max(best, expected)
    return best


def opponent_chance(expansion: Expansion, value: int, share: float, outcome: Position) -> float:
    """``m`` of the position after the click shows ``value``, the flood fill of a likely zero included."""
    if value == 0 and share >= FLOOD_MIN_SHARE:
        return flooded_chance(outcome, expansion.cell)
    return best_chance(outcome)


def contest_value(expansion: Expansion) -> float:
    """``E[A] - E'[A]`` of an expanded click (the formula in :class:`ContestBattleAgent`)."""
    gain = expansion.p_mine * (1.0 + best_chance(expansion.claimed)) if expansion.claimed is not None else 0.0
    return gain - sum(share * opponent_chance(expansion, v, share, o) for v, share, o in expansion.safe)


def contest_bound(expansion: Expansion) -> float:
    """:func:`contest_value` with ``m`` in place of ``m'`` (no flood fill counted): never below it, since
    ``m' >= m`` term by term (and float products and sums are monotone), and equal to it when no zero is at
    least ``FLOOD_MIN_SHARE`` likely. Costs no count."""
    gain = expansion.p_mine * (1.0 + best_chance(expansion.claimed)) if expansion.claimed is not None else 0.0
    return gain - sum(share * best_chance(o) for _, share, o in expansion.safe)


def contest_values(expansions: list[Expansion], rank: int, tolerance: float) -> np.ndarray:
    """The contest values of ``expansions`` wherever they matter, each else an upper bound that cannot matter.

    Exact for every expansion that can be among the ``rank`` highest, or within ``tolerance`` of the
    ``rank``-th highest; every other gets its :func:`contest_bound`, which lies strictly below that by more than
    ``tolerance`` (so does its value). So the ``rank`` highest, their order, and which are within ``tolerance``
    of the best, are those of the exact values: only the flood fills that cannot change a choice are skipped.
    """
    values = np.array([contest_bound(e) for e in expansions])
    exact = np.array([not any(v == 0 and share >= FLOOD_MIN_SHARE for v, share, _ in e.safe) for e in expansions])
    for i in np.argsort(-values, kind="stable"):
        if exact[i]:
            continue
        known = np.sort(values[exact])[::-1]
        if known.size >= rank and values[i] < known[rank - 1] - tolerance:
            break  # this bound, and every later (lower) one, is out of reach
        values[i] = contest_value(expansions[i])
        exact[i] = True
    return values


def likeliest(analysis: Position, cells: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` cells of ``cells`` with the highest exact mine probability (stable order on ties)."""
    probabilities = analysis.probabilities.ravel()[cells]
    return cells[np.argsort(-probabilities, kind="stable")[:count]]


def certain_mines(analysis: Position, cells: np.ndarray) -> np.ndarray:
    """The cells of ``cells`` that are mines in every layout that fits."""
    return cells[analysis.probabilities.ravel()[cells] >= 1.0 - TIE_TOLERANCE]


def contest_best(analysis: Position, candidates: int) -> float:
    """``V2(X)``: the highest ``E - E'`` over the ``candidates`` likeliest hidden cells of position ``X``.

    0.0 when nothing is hidden (the game is over there).
    """
    hidden = np.flatnonzero(analysis.hidden.ravel())
    if hidden.size == 0:
        return 0.0
    expansions = [expand(analysis, int(cell)) for cell in likeliest(analysis, hidden, candidates)]
    return float(contest_values(expansions, 1, 0.0).max())

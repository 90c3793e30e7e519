"""The solver's policy in compiled code: certain cells first, else a guess by the strength setting.

:func:`decide` is the analysis's certain moves (:func:`mine_env.analysis.deduction.certain_moves`), else
:func:`choose_guess`. :func:`agents.solver.games.play_games` calls it once per position in whole games played
without leaving compiled code; :class:`agents.solver.SolverAgent` makes the same two steps from Python
(``certain_moves`` run as Python, on kernels compiled anyway, then ``choose_guess`` only when no cell is
certainly safe, so the guess's kernels compile only when a game first needs a guess). A game played move by
move through the env and the same game played in compiled code make the same moves (tested).
Every setting travels as one :class:`SolverSettings` record.

The guess rules, by strength (see docs/SOLVER.md for what each adds):

* ``fast``: the safest cell; among equally safe cells the one with the fewest hidden neighbours (the
  likeliest to open an area), then a seeded draw. At most one exact count per position, nothing more.
* ``standard``: among the equally safe cells (at most ``max_candidates`` of them, fewest hidden neighbours
  first), the one most likely to be safe *and* give at least one certainly safe cell ("progress"); each
  number the cell may show is added to the position and the position recounted exactly
  (:func:`agents.solver.outlook.look_ahead`).
* ``strong``: once at most ``endgame_layouts`` layouts fit the position, the exact endgame search of
  :mod:`agents.solver.endgame` chooses (when it finishes within its work budget). Else a forced 50/50
  (two neighbouring cells, one mine, that no later reveal can tell apart) is guessed at once when
  ``pairs_first``: it must be guessed some day, and guessing it first may spare a guess elsewhere. Else the
  candidates are all cells whose safety is within ``margin`` (relative) of the safest, scored in the manner
  of DavidNHill's solver by what they lead to (:func:`_blended_plan`): each next position by
  (4 x best + second best safety) / 5, a certainly safe cell counting as 1, raised for a cell that may end
  up in a future 50/50 (:mod:`agents.solver.outlook`), with two swaps after the choice. Dead cells
  (that can show only one number, so teach nothing) come last, and ties go to progress.

The random choices draw from a SplitMix64 stream whose state the caller owns (``state``), so a game is a
pure function of the layout key and the agent's seed.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from agents.solver.endgame import best_endgame_guess
from agents.solver.outlook import TIE_TOLERANCE, forced_fifty_fifty, outlook_and_risk
from mine_env.analysis.deduction import certain_moves
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import hidden_neighbours, touches_revealed
from mine_env.engine.rules import splitmix64
from mine_env.engine.sorting import stable_argsort

FAST, STANDARD, STRONG = 0, 1, 2
STRENGTHS: dict[str, int] = {"fast": FAST, "standard": STANDARD, "strong": STRONG}
"""The strength settings by name, weakest first."""

MARGIN = 0.1
"""``strong``: cells whose safety is within this fraction of the best safety are candidates."""
MAX_CANDIDATES = 12
"""At most this many cells get the look-ahead (safest first, then fewest hidden neighbours)."""
ENDGAME_LAYOUTS = 1000
"""By default ``strong`` searches the endgame exactly once at most this many layouts fit the position: a
higher bound lets the exact search decide more endgames, at the cost of longer searches (its tuning:
docs/SOLVER.md and docs/lab/)."""
ENDGAME_WORK = 100_000_000
"""Work the endgame search may do before it gives up: a deterministic bound on its time (under half a
second per search on expert; tens of ms at the median). At a tenth of it most 1,000-layout searches
give up and the gain is lost."""
_INTERIOR_CANDIDATES = 4
"""At most this many cells that touch no number enter a look-ahead by fewest hidden neighbours: they are
alike, bar their borders (a corner opens a zero most often)."""
FIFTY_FIFTY_WEIGHT = 0.9
"""How much of a candidate's long-term 50/50 risk is added back to its score."""
SAFER_BY = 0.001
"""A candidate this much safer than the chosen cell, which the chosen cell would always prove safe, is
played instead."""


class SolverSettings(NamedTuple):
    """Every setting of the solver's policy, in one record that compiled code reads by name.

    Build one with plain Python values (int, float, int, int, bool), as :data:`PRESETS` and
    :class:`agents.solver.SolverAgent` do, so that every record has the same compiled type.
    """

    strength: int
    """:data:`FAST`, :data:`STANDARD` or :data:`STRONG`."""
    margin: float = MARGIN
    """``strong`` only: candidates are the cells whose safety is within this fraction of the best."""
    max_candidates: int = MAX_CANDIDATES
    """At most this many cells get the look-ahead."""
    endgame_layouts: int = ENDGAME_LAYOUTS
    """``strong`` only: search the endgame exactly once at most this many layouts fit (0: never)."""
    pairs_first: bool = True
    """``strong`` only: guess a forced 50/50 as soon as one appears."""


PRESETS: dict[str, SolverSettings] = {name: SolverSettings(code) for name, code in STRENGTHS.items()}
"""The default settings of each strength: what ``SolverAgent(strength=name)`` plays."""


@njit(cache=True)
def _uniform(state):
    """A float in [0, 1) from the stream; returns (new state, value)."""
    state, bits = splitmix64(state)
    return state, float(bits >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _candidates(flat, rows, cols, probability, bound, by_probability, limit, state):
    """Hidden cells with probability <= ``bound``, ordered and cut to ``limit``.

    Order: lowest probability first when ``by_probability``, then fewest hidden neighbours, then a seeded
    random key. Of the cells touching no number, only the first :data:`_INTERIOR_CANDIDATES` are kept.
    Returns (cells, new state).
    """
    n = flat.shape[0]
    cells = np.empty(n, np.int64)
    keys = np.empty(n, np.float64)
    m = 0
    for i in range(n):
        if flat[i] == HIDDEN and probability[i] <= bound:
            state, noise = _uniform(state)
            cells[m] = i
            keys[m] = hidden_neighbours(flat, rows, cols, i) + noise
            m += 1
    order = stable_argsort(keys[:m])
    if by_probability:
        ranked = np.empty(m, np.float64)
        for j in range(m):
            ranked[j] = probability[cells[order[j]]]
        order = order[stable_argsort(ranked)]
    chosen = np.empty(min(m, limit), np.int64)
    taken = interior = 0
    for j in range(m):
        if taken == chosen.shape[0]:
            break
        cell = cells[order[j]]
        if not touches_revealed(flat, rows, cols, cell):
            if interior == _INTERIOR_CANDIDATES:
                continue
            interior += 1
        chosen[taken] = cell
        taken += 1
    return chosen[:taken], state


@njit(cache=True)
def _kept(candidates, scores_by_rank):
    """Which candidates are best by each row of scores in turn (within tolerance): those the solver rates equal."""
    keep = np.ones(candidates.shape[0], np.bool_)
    for scores in scores_by_rank:
        best = -np.inf
        for j in range(candidates.shape[0]):
            if keep[j]:
                best = max(best, scores[j])
        for j in range(candidates.shape[0]):
            keep[j] = keep[j] and scores[j] >= best - TIE_TOLERANCE * abs(best)
    return keep


@njit(cache=True, inline="always")
def _blended_scores(flat, rows, cols, mines, probability, log_layouts, candidates):
    """``strong``'s view of each candidate: what revealing it leads to (:func:`_blended_plan`'s inputs).

    Returns (scores, next_safest, always_safe): ``scores`` (3, m) holds, per candidate, whether it is alive (not a
    dead cell), its score (blended survival (:class:`agents.solver.outlook.Outlook`) times 1 +
    :data:`FIFTY_FIFTY_WEIGHT` x its long-term 50/50 risk over its safety,
    :func:`agents.solver.outlook.fifty_fifty_risk`) and its progress chance; ``next_safest`` the cell that would
    be the single safest whatever it shows (or -1) and ``always_safe`` (m, cells) the cells it would always prove
    safe.
    """
    m = candidates.shape[0]
    scores = np.empty((3, m))  # rows: alive (not a dead cell), score, progress chance
    next_safest = np.empty(m, np.int64)
    always_safe = np.empty((m, flat.shape[0]), np.bool_)
    for j in range(m):
        cell = candidates[j]
        outlook, risk = outlook_and_risk(flat, rows, cols, mines, probability, log_layouts, cell, np.bool_(True))
        next_safest[j] = outlook.next_safest
        safe_after = outlook.always_safe
        for i in range(flat.shape[0]):  # not a row assignment, whose shape checks take seconds to compile
            always_safe[j, i] = safe_after[i]
        scores[0, j] = outlook.values > 1
        scores[1, j] = outlook.blended * (1.0 + FIFTY_FIFTY_WEIGHT * risk / (1.0 - probability[cell]))
        scores[2, j] = outlook.progress
    return scores, next_safest, always_safe


@njit(cache=True, inline="always")
def _blended_plan(flat, rows, cols, mines, probability, log_layouts, candidates):
    """``strong``'s plan among its candidates: which of them it rates equal, and the cell it plays for each.

    Score (:func:`_blended_scores`): alive cells first, then the score, ties to progress. The drawn candidate is
    then swapped: to a candidate at least :data:`SAFER_BY` safer that it would always prove safe, else to the
    candidate that would be the single safest cell whatever it shows, when that is safer (it would be played next
    anyway). Returns (keep, plays).
    """
    scores, next_safest, always_safe = _blended_scores(flat, rows, cols, mines, probability, log_layouts, candidates)
    keep = _kept(candidates, scores)
    plays = candidates.copy()
    by_score = np.argsort(-scores[1])
    for chosen in np.flatnonzero(keep):
        plays[chosen] = _swapped(chosen, candidates, probability, by_score, next_safest, always_safe)
    return keep, plays


@njit(cache=True, inline="always")
def _swapped(chosen, candidates, probability, by_score, next_safest, always_safe):
    """The cell ``strong`` plays when it draws candidate ``chosen``: see :func:`_blended_plan`."""
    cell = candidates[chosen]
    for j in by_score:
        if probability[cell] - probability[candidates[j]] > SAFER_BY and always_safe[chosen, candidates[j]]:
            return candidates[j]
    follow = next_safest[chosen]
    if follow >= 0 and probability[follow] < probability[cell]:
        for j in range(candidates.shape[0]):
            if candidates[j] == follow:
                return follow
    return cell


@njit(cache=True)
def guess_candidates(flat, rows, cols, probability, settings, state):
    """The cells the guess rule weighs in a position with no certainly safe cell (see the module docstring):
    ``strong``'s are the cells within its margin of the safest, safest first; the other strengths' the safest
    cells alone; then fewest hidden neighbours, a seeded draw, at most ``max_candidates`` (``fast``: one) and at
    most :data:`_INTERIOR_CANDIDATES` that touch no number. Returns (cells, new state)."""
    strong = settings.strength == STRONG
    lowest = 1.0
    for i in range(flat.shape[0]):
        if flat[i] == HIDDEN:
            lowest = min(lowest, probability[i])
    tied = lowest + TIE_TOLERANCE * lowest
    if strong:
        bound = max(tied, 1.0 - (1.0 - lowest) * (1.0 - settings.margin))
        limit = settings.max_candidates
    else:
        bound = tied
        limit = 1 if settings.strength == FAST else settings.max_candidates
    return _candidates(flat, rows, cols, probability, bound, strong, limit, state)


@njit(cache=True, inline="always")
def _decided_guess(flat, rows, cols, mines, probability, log_layouts, settings):
    """``strong``'s guess where it weighs no candidates: the endgame search's move once at most
    ``endgame_layouts`` layouts fit (when the search finishes), else a forced 50/50's cell when ``pairs_first``;
    -1 when neither applies."""
    if log_layouts <= math.log(settings.endgame_layouts + 0.5):
        cell, _ = best_endgame_guess(flat, rows, cols, mines, settings.endgame_layouts, np.int64(ENDGAME_WORK))
        if cell >= 0:
            return cell
    if settings.pairs_first:
        return forced_fifty_fifty(flat, rows, cols, probability)
    return -1


@njit(cache=True, inline="always")
def _guess_plan(flat, rows, cols, mines, probability, log_layouts, settings, state):
    """The guess rule's plan in a position with no certainly safe cell (see the module docstring).

    Returns (keep, plays, state): the rule draws uniformly among the candidates marked in ``keep`` (one draw from
    the stream, only when it had more than one candidate) and plays that candidate's entry of ``plays``.
    """
    single = np.ones(1, np.bool_)
    strong = settings.strength == STRONG
    if strong:
        cell = _decided_guess(flat, rows, cols, mines, probability, log_layouts, settings)
        if cell >= 0:
            return single, np.full(1, cell, np.int64), state
    candidates, state = guess_candidates(flat, rows, cols, probability, settings, state)
    if candidates.shape[0] == 1:
        return single, candidates, state
    if strong:
        keep, plays = _blended_plan(flat, rows, cols, mines, probability, log_layouts, candidates)
        return keep, plays, state
    progress = np.empty((1, candidates.shape[0]))
    for j in range(candidates.shape[0]):
        outlook, _ = outlook_and_risk(flat, rows, cols, mines, probability, log_layouts, candidates[j], np.bool_(False))
        progress[0, j] = outlook.progress
    return _kept(candidates, progress), candidates, state


@njit(cache=True, inline="always")
def _draw(keep, plays, state):
    """The rule's play from its plan (:func:`_guess_plan`): a uniform draw among the kept candidates, when it had
    more than one; returns (cell, new state)."""
    if plays.shape[0] == 1:
        return plays[0], state
    kept = np.flatnonzero(keep)
    state, noise = _uniform(state)
    return plays[kept[int(noise * kept.shape[0])]], state


@njit(cache=True)
def choose_guess(flat, rows, cols, mines, probability, log_layouts, settings, state):
    """The guess in a position with no certainly safe cell, by ``settings`` (see the module docstring), from
    the count's ``probability`` and ``log_layouts`` (``certain_moves``); returns (cell, new state).

    :class:`agents.solver.SolverAgent` calls it from Python only when a position needs a guess, so the
    guess's kernels (the larger half of the solver's) compile only then: a first game won without a guess
    never waits for them (docs/COLD_START.md).
    """
    keep, plays, state = _guess_plan(flat, rows, cols, mines, probability, log_layouts, settings, state)
    return _draw(keep, plays, state)


@njit(cache=True)
def guess_with_options(flat, rows, cols, mines, probability, log_layouts, settings, state):
    """:func:`choose_guess`'s guess (the same cell and state) with every cell it might have played in its place:
    the plays of all the candidates it rates equal, a bool mask over the cells. Its pick is a uniform draw among
    those, so a learner's move is judged against the mask, not the pick (``studies/guess_agreement.py``: on
    intermediate the mask holds more than one cell in under a tenth of the true guesses). Returns (cell,
    options, new state).
    """
    keep, plays, state = _guess_plan(flat, rows, cols, mines, probability, log_layouts, settings, state)
    options = np.zeros(flat.shape[0], np.bool_)
    for j in np.flatnonzero(keep):
        options[plays[j]] = True
    cell, state = _draw(keep, plays, state)
    return cell, options, state


@njit(cache=True)
def strong_shortlist(flat, rows, cols, mines, probability, log_layouts, settings, state):
    """``strong``'s guess laid open for a learner that would choose in its place: the cell it plays without
    weighing candidates, or the candidates it weighs with what it sees in each.

    Returns (decided, candidates, scores, keep, state). ``decided`` is the endgame search's or a forced 50/50's
    cell, or the lone candidate, or -1 when ``strong`` weighs two or more ``candidates``
    (:func:`guess_candidates`); then ``scores`` (3, m) holds their alive flag, score and progress chance
    (:func:`_blended_scores`) and ``keep`` the ones it rates best. ``state`` advances as :func:`choose_guess`'s
    candidates advance it (not by its final draw).
    """
    empty = np.empty(0, np.int64)
    cell = _decided_guess(flat, rows, cols, mines, probability, log_layouts, settings)
    if cell >= 0:
        return cell, empty, np.empty((3, 0)), np.empty(0, np.bool_), state
    candidates, state = guess_candidates(flat, rows, cols, probability, settings, state)
    if candidates.shape[0] == 1:
        return candidates[0], empty, np.empty((3, 0)), np.empty(0, np.bool_), state
    scores, _, _ = _blended_scores(flat, rows, cols, mines, probability, log_layouts, candidates)
    return -1, candidates, scores, _kept(candidates, scores), state


@njit(cache=True)
def decide(flat, rows, cols, mines, settings, state):
    """The solver's next move(s) in a position after the first click, by ``settings``.

    Returns (cells, new state): the hidden cells one number, or two together, prove safe when there are any
    (:func:`mine_env.analysis.deduction.local_safe`, no count needed), else every certainly safe hidden cell of
    the exact count, else the single guess; all in increasing order, and empty when no layout fits the
    position. Revealing certainly safe cells in any order reaches the same position once none is left, so
    the shortcut changes no guess, only the order of the free reveals.
    The caller must know the position fits (the shortcut does not count); :class:`agents.solver.SolverAgent`
    checks each position it did not reach by its own reveals.
    """
    cells, consistent, probability, log_layouts = certain_moves(flat, rows, cols, mines)
    if cells.shape[0] or not consistent:
        return cells, state
    cell, state = choose_guess(flat, rows, cols, mines, probability, log_layouts, settings, state)
    cells = np.empty(1, np.int64)
    cells[0] = cell
    return cells, state

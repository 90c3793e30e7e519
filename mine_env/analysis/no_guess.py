"""No-guess layouts: boards that logic alone clears from the first click, made by repairing random layouts.

A layout is *no-guess* for a first cell when, from the ``opening`` rule's first click on that cell, every
position until the board is cleared has a hidden cell that is certainly safe given the revealed numbers and
the total mine count (what a perfect player knows). This module makes such layouts as a pure function of a
layout key and the first cell, in compiled code, with the deduction rules of the analysis and nothing of its
own: the solver's certain moves (:func:`mine_env.analysis.deduction.certain_moves`: one or two numbers first,
:mod:`mine_env.analysis.deduction`, then the exact count with the global mine count,
:mod:`mine_env.analysis.counting`), so a board is no-guess exactly when the solver needs no guess on it.

How a layout is made (:func:`_make_layout`, see docs/NO_GUESS.md):

1. the ordinary ``opening`` layout of the key (:func:`mine_env.engine.layout.place_mines`): when it is
   already no-guess, the no-guess board *is* the ordinary board;
2. play it by deduction from the first click; where no cell is certainly safe, *repair* the layout in the
   manner of Simon Tatham's generator (:func:`_repair`): pick a revealed number beside an uncertain hidden
   cell and either empty its uncertain neighbours into hidden cells away from the revealed area or fill
   them from there, so that the number settles its neighbourhood; revealed cells never receive a mine, so
   the play goes on from where it stood;
3. a repair changes numbers already revealed, so a deduction made earlier may no longer hold: once the
   play clears the board, it is replayed from the first click on the final layout, and only a replay
   that needs no repair ends the work (a replay that sticks is repaired and replayed again).

The work is bounded: at most :data:`REPAIRS_PER_ATTEMPT` repairs per attempt, then a fresh layout drawn from
the key's stream, at most :data:`ATTEMPTS` attempts. Densities up to :data:`MAX_DENSITY` are supported
(:func:`max_no_guess_mines`); measured failure rates and speeds are in docs/NO_GUESS.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mine_env.analysis.deduction import certain_moves
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import RULE_OPENING, block, is_revealed, protected_cells, touches_revealed
from mine_env.engine.layout import count_mines, place_mines
from mine_env.engine.rng import KEY_LIMIT, draw_below, splitmix64
from mine_env.engine.rules import PLAYING, WON, game_status, new_game_arrays, replay_game, reveal_cell
from mine_env.engine.spec import BoardSpec

MAX_DENSITY = 0.25
"""The largest share of the cells outside the first click's protected block that may hold mines."""
MIN_SIDE = 3
"""No-guess boards need at least this many rows and columns (on two rows a last column with one mine is a
50/50 that no repair of this generator removes)."""
REPAIRS_PER_ATTEMPT = 400
"""Repairs of one layout before a fresh layout is drawn."""
ATTEMPTS = 8
"""Fresh layouts tried before giving up (then :class:`NoGuessFailed`)."""

_REPAIR_STREAM = np.uint64(0xD1B54A32D192ED03)
"""Mixed into the key to seed the stream of the repairs' random choices (apart from the layout's own)."""
_INTERIOR, _FRONTIER, _CERTAIN, _KINDS = 0, 1, 2, 3
"""Kinds of the cells a repair moves mines between, in the order it prefers them: uncertain hidden cells away
from the revealed area, uncertain ones beside it, and (to give mines only, when nothing else can) certain
mines."""


class NoGuessFailed(RuntimeError):
    """No no-guess layout was found within the work bound (it does not happen below :data:`MAX_DENSITY` in
    the measured runs of docs/NO_GUESS.md)."""


# ----------------------------------------------------------------------------- limits
def max_no_guess_mines(rows: int, cols: int) -> int:
    """The most mines a ``rows`` x ``cols`` no-guess board may hold: :data:`MAX_DENSITY` of the cells outside
    the largest block the ``opening`` rule protects (a first click away from the edges)."""
    centre = (rows // 2) * cols + cols // 2
    free = rows * cols - len(protected_cells(rows, cols, "opening", centre))
    return int(MAX_DENSITY * free)


def check_no_guess_board(rows: int, cols: int, mines: int, first_click: str) -> None:
    """ValueError unless no-guess layouts can be made for this board under this first-click rule."""
    if first_click != "opening":
        raise ValueError(
            f"no-guess boards start with the 'opening' rule's empty first click, got first_click={first_click!r}: "
            "use first_click='opening' (or boards='random')"
        )
    if min(rows, cols) < MIN_SIDE:
        raise ValueError(
            f"no-guess boards need at least {MIN_SIDE} rows and {MIN_SIDE} columns, got {rows}x{cols}: "
            "on thinner boards a lone mine walls off the rest"
        )
    limit = max_no_guess_mines(rows, cols)
    if mines > limit:
        raise ValueError(
            f"{mines} mines are too dense for no-guess {rows}x{cols} boards: at most {limit} "
            f"({MAX_DENSITY:.0%} of the cells outside the first click's block; expert's 99 on 16x30 is 21%)"
        )


# ----------------------------------------------------------------------------- play by deduction
@njit(cache=True)
def _certain_safe(obs, rows, cols, n_mines):
    """The solver's certain moves (:func:`mine_env.analysis.deduction.certain_moves`: the hidden cells one number,
    or two, prove safe, else those the exact count proves safe) and the certain mines (bool per cell; all
    False when the moves came without a count)."""
    safe, _, probability, _ = certain_moves(obs, rows, cols, n_mines)
    certain_mine = np.zeros(obs.shape[0], np.bool_)
    for i in range(probability.shape[0]):
        certain_mine[i] = probability[i] == 1.0  # exact: the count keeps uncertain cells inside (0, 1)
    return safe, certain_mine


@njit(cache=True)
def _play(game, rows, cols, n_mines):
    """Reveal certainly safe cells until the board is cleared or none is left; returns the certain mines of
    the position it stopped in (meaningful only when it is not won)."""
    obs = game.obs
    while game_status(game.meta) == PLAYING:
        safe, certain_mine = _certain_safe(obs, rows, cols, n_mines)
        if safe.shape[0] == 0:
            return certain_mine
        for cell in safe:
            if obs[cell] == HIDDEN:
                reveal_cell(game, rows, cols, cell)
    return np.zeros(obs.shape[0], np.bool_)


# ----------------------------------------------------------------------------- repair
@njit(cache=True)
def _move_mine(mines, counts, rows, cols, cell, into):
    """Move the mine on ``cell`` to the empty ``into``, keeping the neighbour counts right."""
    mines[cell] = 0
    mines[into] = 1
    r0, r1, c0, c1 = block(cell // cols, cell % cols, rows, cols)
    for r in range(r0, r1):
        for c in range(c0, c1):
            counts[r * cols + c] -= 1
    r0, r1, c0, c1 = block(into // cols, into % cols, rows, cols)
    for r in range(r0, r1):
        for c in range(c0, c1):
            counts[r * cols + c] += 1
    counts[cell] += 1  # a mine does not count itself
    counts[into] -= 1


@njit(cache=True)
def _settle(game, rows, cols):
    """Show the revealed cells' new numbers after a repair, and open around every revealed zero."""
    obs, counts = game.obs, game.counts
    n = obs.shape[0]
    for i in range(n):
        if is_revealed(obs[i]):
            obs[i] = counts[i]
    for i in range(n):
        if obs[i] == 0:
            r0, r1, c0, c1 = block(i // cols, i % cols, rows, cols)
            for r in range(r0, r1):
                for c in range(c0, c1):
                    if obs[r * cols + c] == HIDDEN:
                        reveal_cell(game, rows, cols, r * cols + c)


@njit(cache=True)
def _pick(cells, count, state):
    """A uniform draw among the first ``count`` entries of ``cells``; returns (new state, the cell)."""
    state, j = draw_below(state, count)
    return state, cells[j]


@njit(cache=True)
def _repair(game, rows, cols, certain_mine, state):
    """Move mines so that a stuck number settles its neighbourhood; returns (new state, whether it could).

    The number is drawn among the revealed numbers next to an uncertain hidden cell; its uncertain hidden
    neighbours are either emptied into uncertain hidden cells outside its block (those away from the revealed
    area first, drawn uniformly) or filled from them, by a fair draw when both can be done (always emptying
    made the openings larger than they are on ordinary boards: docs/NO_GUESS.md), or, at the very end of a
    board, where only certain mines are left outside, filled from those.
    """
    obs, mines, counts = game.obs, game.mines, game.counts
    n = obs.shape[0]
    numbers = np.empty(n, np.int64)
    found = 0
    for i in range(n):
        if is_revealed(obs[i]) and _has_uncertain_neighbour(obs, rows, cols, certain_mine, i):
            numbers[found] = i
            found += 1
    if found == 0:
        return _open_wall(game, rows, cols, certain_mine, state)
    state, number = _pick(numbers, found, state)
    nr, nc = number // cols, number % cols
    # The number's uncertain neighbours, and the cells that can give or take mines, by kind.
    inside = np.empty(9, np.int64)
    inside_mines = 0
    size = 0
    r0, r1, c0, c1 = block(nr, nc, rows, cols)
    for r in range(r0, r1):
        for c in range(c0, c1):
            i = r * cols + c
            if obs[i] == HIDDEN and not certain_mine[i]:
                inside[size] = i
                size += 1
                inside_mines += mines[i]
    empty = np.empty((_KINDS, n), np.int64)
    full = np.empty((_KINDS, n), np.int64)
    empties = np.zeros(_KINDS, np.int64)
    fulls = np.zeros(_KINDS, np.int64)
    for i in range(n):
        if obs[i] != HIDDEN or (abs(i // cols - nr) <= 1 and abs(i % cols - nc) <= 1):
            continue
        kind = _CERTAIN if certain_mine[i] else _FRONTIER if touches_revealed(obs, rows, cols, i) else _INTERIOR
        if mines[i]:
            full[kind, fulls[kind]] = i
            fulls[kind] += 1
        else:
            empty[kind, empties[kind]] = i
            empties[kind] += 1
    can_clear = empties.sum() >= inside_mines
    can_fill = fulls.sum() >= size - inside_mines
    fill = can_fill and not can_clear
    if can_clear and can_fill:
        state, coin = draw_below(state, 2)
        fill = coin == 1
    if can_clear and not fill:
        for j in range(size):
            if mines[inside[j]]:
                kind = _first_kind(empties)
                state, into = _take(empty[kind], empties, kind, state)
                _move_mine(mines, counts, rows, cols, inside[j], into)
        return state, True
    if fill:
        for j in range(size):
            if not mines[inside[j]]:
                kind = _first_kind(fulls)
                state, source = _take(full[kind], fulls, kind, state)
                _move_mine(mines, counts, rows, cols, source, inside[j])
        return state, True
    return state, False


@njit(cache=True)
def _open_wall(game, rows, cols, certain_mine, state):
    """The repair of a position walled in by certain mines (every number's hidden neighbours are mines, and
    cells beyond them are uncertain): move one such mine, beside an uncertain cell, away from the revealed
    area; returns (new state, whether it could)."""
    obs, mines, counts = game.obs, game.mines, game.counts
    n = obs.shape[0]
    walls = np.empty(n, np.int64)
    into = np.empty(n, np.int64)
    n_walls = 0
    n_into = 0
    for i in range(n):
        if obs[i] != HIDDEN:
            continue
        near = touches_revealed(obs, rows, cols, i)
        if certain_mine[i] and near and _has_uncertain_neighbour(obs, rows, cols, certain_mine, i):
            walls[n_walls] = i
            n_walls += 1
        elif not certain_mine[i] and not near and not mines[i]:
            into[n_into] = i
            n_into += 1
    if n_walls == 0 or n_into == 0:
        return state, False
    state, wall = _pick(walls, n_walls, state)
    state, target = _pick(into, n_into, state)
    _move_mine(mines, counts, rows, cols, wall, target)
    return state, True


@njit(cache=True, inline="always")
def _first_kind(sizes):
    """The first kind (of _INTERIOR, _FRONTIER, _CERTAIN) with a cell left."""
    kind = 0
    while sizes[kind] == 0:
        kind += 1
    return kind


@njit(cache=True)
def _take(cells, sizes, kind, state):
    """Draw a cell uniformly from the first ``sizes[kind]`` of ``cells`` and remove it (swap with the last)."""
    state, j = draw_below(state, sizes[kind])
    cell = cells[j]
    sizes[kind] -= 1
    cells[j] = cells[sizes[kind]]
    return state, cell


@njit(cache=True)
def _has_uncertain_neighbour(obs, rows, cols, certain_mine, cell):
    """Whether a hidden cell that is not a certain mine lies next to ``cell``."""
    r0, r1, c0, c1 = block(cell // cols, cell % cols, rows, cols)
    for r in range(r0, r1):
        for c in range(c0, c1):
            i = r * cols + c
            if obs[i] == HIDDEN and not certain_mine[i]:
                return True
    return False


# ----------------------------------------------------------------------------- a layout
@njit(cache=True)
def _make_layout(game, rows, cols, n_mines, first_cell, key, repairs_per_attempt, attempts):
    """Make ``game.mines`` a no-guess layout for ``first_cell`` (see the module docstring); returns whether it
    did within the bound, and the repairs made."""
    state = np.uint64(key) ^ _REPAIR_STREAM
    attempt_key = key
    repairs = 0
    for _attempt in range(attempts):
        place_mines(game.mines, game.stack, rows, cols, n_mines, RULE_OPENING, first_cell, attempt_key)
        count_mines(game.counts, game.stack, n_mines, rows, cols)
        replay_game(game, rows, cols, n_mines, first_cell)
        clean = True  # no repair since the first click: a win now is a win from the first click
        budget = repairs_per_attempt
        while True:
            certain_mine = _play(game, rows, cols, n_mines)
            if game_status(game.meta) == WON:
                if clean:
                    return True, repairs
                replay_game(game, rows, cols, n_mines, first_cell)
                clean = True
                continue
            if budget == 0:
                break
            state, repaired = _repair(game, rows, cols, certain_mine, state)
            if not repaired:
                break
            budget -= 1
            repairs += 1
            clean = False
            _settle(game, rows, cols)
        state, bits = splitmix64(state)
        attempt_key = np.int64(bits >> np.uint64(1))
    return False, repairs


@njit(cache=True)
def make_layouts(rows, cols, n_mines, keys, first_cells, repairs_per_attempt, attempts, out):
    """No-guess layouts for each (key, first cell) into the rows of ``out`` (uint8 (m, rows * cols)); returns
    whether each was found and the repairs each took."""
    m = keys.shape[0]
    found = np.empty(m, np.bool_)
    repairs = np.empty(m, np.int64)
    game = new_game_arrays(rows * cols)
    for g in range(m):
        found[g], repairs[g] = _make_layout(
            game, rows, cols, n_mines, first_cells[g], keys[g], repairs_per_attempt, attempts
        )
        for i in range(rows * cols):
            out[g, i] = game.mines[i]
    return found, repairs


# ----------------------------------------------------------------------------- Python API
def no_guess_layouts(rows: int, cols: int, mines: int, keys: np.ndarray, first_cells: np.ndarray) -> np.ndarray:
    """The no-guess layouts of the games of layout ``keys`` first clicked on ``first_cells`` (flat cells),
    as uint8 (m, rows * cols), 1 = mine: a pure function of each (key, first cell).

    Raises:
        NoGuessFailed: a layout was not found within the work bound.
    """
    keys = np.asarray(keys, dtype=np.int64).ravel()
    first_cells = np.asarray(first_cells, dtype=np.int64).ravel()
    out = np.empty((keys.shape[0], rows * cols), dtype=np.uint8)
    found, _ = make_layouts(rows, cols, mines, keys, first_cells, REPAIRS_PER_ATTEMPT, ATTEMPTS, out)
    if not found.all():
        g = int(np.argmin(found))
        raise NoGuessFailed(
            f"no no-guess layout found for key {int(keys[g])} and first cell {int(first_cells[g])} on a "
            f"{rows}x{cols} board with {mines} mines within {ATTEMPTS} attempts of {REPAIRS_PER_ATTEMPT} repairs: "
            "use fewer mines"
        )
    return out


def no_guess_layout(rows: int, cols: int, mines: int, first_cell: int, key: int) -> np.ndarray:
    """The no-guess layout of one game (bool (rows, cols), True = mine); see :func:`no_guess_layouts`.

    Raises:
        ValueError: the board, first cell or key is out of range, or too dense for no-guess boards.
    """
    BoardSpec(rows, cols, mines, "opening")  # the board's own checks first
    check_no_guess_board(rows, cols, mines, "opening")
    if not 0 <= first_cell < rows * cols:
        raise ValueError(f"first cell {first_cell} is outside the {rows}x{cols} board's cells 0..{rows * cols - 1}")
    if not 0 <= key < KEY_LIMIT:
        raise ValueError(f"layout key must lie in [0, 2**63), got {key}")
    layouts = no_guess_layouts(rows, cols, mines, np.array([key]), np.array([first_cell]))
    return layouts[0].reshape(rows, cols).astype(bool)

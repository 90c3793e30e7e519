"""The game rules as numba kernels over one board's flat arrays.

Every rule of the game lives here once: mine placement under the first-click rules, counts, reveal with
flood fill, flags, chords, the action mask and the reward. :class:`mine_env.engine.board.Board` calls these
kernels for one board and :mod:`mine_env.engine.batch` loops them over a batch inside one compiled call, so the
single env and the vector env cannot drift apart. :mod:`mine_env.engine.reference` restates the same rules in
plain Python for the tests.

A board's state is a handful of flat arrays (cell ``i`` is row ``i // cols``, column ``i % cols``):

- ``obs`` (int8, n): what the player sees, with the codes of :mod:`mine_env.engine.constants`;
- ``mines`` (uint8, n): 1 where a mine lies (all zero until the layout is placed);
- ``counts`` (int8, n): mines around each cell;
- ``meta`` (int64, META_SIZE): status, hidden safe cells left, the layout key, steps taken;
- ``stack`` (int32, n): scratch for mine placement and the flood fill.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.engine.constants import FLAG, HIDDEN, MAX_SIDE, MINE
from mine_env.engine.geometry import (  # noqa: F401  (the rule codes are re-exported: callers know them from here)
    RULE_CODES,
    RULE_NONE,
    RULE_OPENING,
    RULE_SAFE,
    protected_block,
)

# Game status codes.
READY, PLAYING, WON, LOST = 0, 1, 2, 3
STATUS_NAMES: tuple[str, ...] = ("ready", "playing", "won", "lost")

# Slots of the meta array.
META_STATUS, META_SAFE_LEFT, META_KEY, META_STEPS = 0, 1, 2, 3
META_SIZE = 4

INVALID = -1
"""Returned by :func:`apply_action` when the action was not valid (nothing changed)."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


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


_COL_BITS = 8
_COL_MASK = (1 << _COL_BITS) - 1
assert MAX_SIDE <= 1 << _COL_BITS, "a column must fit the low bits of a packed cell"


@njit(cache=True)
def _pack(row: int, col: int) -> int:
    """A cell as ``row << 8 | col``: unpacking it needs no division (used by mine placement and flood fill)."""
    return (row << _COL_BITS) | col


@njit(cache=True)
def place_mines(
    mines: np.ndarray, cells: np.ndarray, rows: int, cols: int, n_mines: int, rule: int, first_cell: int, key: int
) -> None:
    """Place ``n_mines`` uniformly over the cells the rule allows, as a pure function of (key, first cell).

    A partial Fisher-Yates shuffle of the allowed cells (in row-major order) driven by a SplitMix64 stream
    seeded with ``key``. ``cells`` is int32 scratch of at least ``rows * cols`` entries: on return its first
    ``n_mines`` entries are the mined cells, packed by :func:`_pack`, ready for :func:`count_mines`. Rows and
    columns are walked directly: a division per cell would cost more than the whole shuffle.
    """
    r0, r1, c0, c1 = protected_block(rows, cols, rule, first_cell)
    m = 0
    for r in range(rows):
        row_protected = r0 <= r < r1
        for c in range(cols):
            if not (row_protected and c0 <= c < c1):
                cells[m] = _pack(r, c)
                m += 1
    mines[:] = 0
    state = np.uint64(key)
    for j in range(n_mines):
        state, offset = draw_below(state, m - j)
        k = j + offset
        chosen = cells[k]
        cells[k] = cells[j]
        cells[j] = chosen
        mines[(chosen >> _COL_BITS) * cols + (chosen & _COL_MASK)] = 1


@njit(cache=True)
def count_mines(counts: np.ndarray, mined: np.ndarray, n_mines: int, rows: int, cols: int) -> None:
    """Fill ``counts`` with the mines around every cell, given the ``n_mines`` mined cells packed in ``mined``.

    A mine does not count itself.
    """
    counts[:] = 0
    for j in range(n_mines):
        r, c = mined[j] >> _COL_BITS, mined[j] & _COL_MASK
        for rr in range(max(r - 1, 0), min(r + 2, rows)):
            for cc in range(max(c - 1, 0), min(c + 2, cols)):
                counts[rr * cols + cc] += 1
        counts[r * cols + c] -= 1


@njit(cache=True)
def compute_counts(mines: np.ndarray, counts: np.ndarray, rows: int, cols: int) -> None:
    """Fill ``counts`` with the number of mines around every cell of a given layout (1 = mine)."""
    mined = np.empty(rows * cols, dtype=np.int32)
    m = 0
    for r in range(rows):
        for c in range(cols):
            if mines[r * cols + c]:
                mined[m] = _pack(r, c)
                m += 1
    count_mines(counts, mined, m, rows, cols)


@njit(cache=True)
def new_game(obs: np.ndarray, mines: np.ndarray, counts: np.ndarray, meta: np.ndarray, n_mines: int) -> None:
    """Clear a board for a new game; the layout is placed by the first reveal (see :func:`start_game`)."""
    obs[:] = HIDDEN
    mines[:] = 0
    counts[:] = 0
    meta[META_STATUS] = READY
    meta[META_SAFE_LEFT] = obs.size - n_mines
    meta[META_STEPS] = 0


@njit(cache=True)
def start_game(
    mines: np.ndarray,
    counts: np.ndarray,
    meta: np.ndarray,
    stack: np.ndarray,
    rows: int,
    cols: int,
    n_mines: int,
    rule: int,
    first_cell: int,
) -> None:
    """Place the layout (``first_cell`` is -1 for the ``none`` rule) and switch the board to playing."""
    place_mines(mines, stack, rows, cols, n_mines, rule, first_cell, meta[META_KEY])
    count_mines(counts, stack, n_mines, rows, cols)
    meta[META_STATUS] = PLAYING


@njit(cache=True)
def reveal(
    obs: np.ndarray,
    mines: np.ndarray,
    counts: np.ndarray,
    meta: np.ndarray,
    stack: np.ndarray,
    rows: int,
    cols: int,
    cell: int,
) -> int:
    """Reveal a hidden cell, flooding through zeros; returns the safe cells revealed (0 if a mine).

    Hitting a mine shows it and loses; revealing the last safe cell wins. Flagged cells are never
    opened by the flood, as in the classic game.
    """
    if mines[cell]:
        obs[cell] = MINE
        meta[META_STATUS] = LOST
        return 0
    revealed = 1
    obs[cell] = counts[cell]
    top = 0
    if counts[cell] == 0:
        stack[0] = _pack(cell // cols, cell % cols)
        top = 1
    while top > 0:
        top -= 1
        r, c = stack[top] >> _COL_BITS, stack[top] & _COL_MASK
        for rr in range(max(r - 1, 0), min(r + 2, rows)):
            for cc in range(max(c - 1, 0), min(c + 2, cols)):
                neighbour = rr * cols + cc
                if obs[neighbour] == HIDDEN:
                    obs[neighbour] = counts[neighbour]
                    revealed += 1
                    if counts[neighbour] == 0:
                        stack[top] = _pack(rr, cc)
                        top += 1
    meta[META_SAFE_LEFT] -= revealed
    if meta[META_SAFE_LEFT] == 0:
        meta[META_STATUS] = WON
    return revealed


@njit(cache=True)
def chord_targets(obs: np.ndarray, rows: int, cols: int, cell: int) -> int:
    """Hidden neighbours a chord on ``cell`` would reveal; 0 when the chord is not possible.

    A chord is possible on a revealed number whose flagged neighbours equal it.
    """
    value = obs[cell]
    if value <= 0:
        return 0
    r, c = cell // cols, cell % cols
    flags = 0
    hidden = 0
    for rr in range(max(r - 1, 0), min(r + 2, rows)):
        for cc in range(max(c - 1, 0), min(c + 2, cols)):
            code = obs[rr * cols + cc]
            if code == FLAG:
                flags += 1
            elif code == HIDDEN:
                hidden += 1
    return hidden if flags == value else 0


@njit(cache=True)
def chord(
    obs: np.ndarray,
    mines: np.ndarray,
    counts: np.ndarray,
    meta: np.ndarray,
    stack: np.ndarray,
    rows: int,
    cols: int,
    cell: int,
) -> int:
    """Reveal every hidden neighbour of a satisfied number; returns the safe cells revealed.

    A wrong flag makes the chord open a mine, which loses the game, as in the classic game.
    """
    r, c = cell // cols, cell % cols
    revealed = 0
    for rr in range(max(r - 1, 0), min(r + 2, rows)):
        for cc in range(max(c - 1, 0), min(c + 2, cols)):
            neighbour = rr * cols + cc
            if obs[neighbour] == HIDDEN and meta[META_STATUS] == PLAYING:
                revealed += reveal(obs, mines, counts, meta, stack, rows, cols, neighbour)
    return revealed


@njit(cache=True)
def is_playable(meta: np.ndarray) -> bool:
    """Whether the game still takes actions (no layout yet, or playing)."""
    return meta[META_STATUS] in (READY, PLAYING)


@njit(cache=True)
def can_open(obs: np.ndarray, rows: int, cols: int, flags: bool, cell: int) -> bool:
    """Whether action ``cell`` does something: reveal a hidden cell, or chord a satisfied number (flags on)."""
    code = obs[cell]
    if code == HIDDEN:
        return True
    return flags and code > 0 and chord_targets(obs, rows, cols, cell) > 0


@njit(cache=True)
def can_toggle_flag(obs: np.ndarray, cell: int) -> bool:
    """Whether a flag can be put on ``cell`` or taken off it: the cell is hidden."""
    code = obs[cell]
    return code in (HIDDEN, FLAG)


@njit(cache=True)
def is_valid_action(obs: np.ndarray, meta: np.ndarray, rows: int, cols: int, flags: bool, action: int) -> bool:
    """Whether ``action`` changes the board: reveal a hidden cell, chord or toggle a flag (flags on)."""
    if not is_playable(meta):
        return False
    n = rows * cols
    if 0 <= action < n:
        return can_open(obs, rows, cols, flags, action)
    if flags and n <= action < 2 * n:
        return can_toggle_flag(obs, action - n)
    return False


@njit(cache=True)
def fill_action_mask(
    obs: np.ndarray, meta: np.ndarray, rows: int, cols: int, flags: bool, out: np.ndarray
) -> None:
    """Write the valid-action mask (1 = valid) into ``out``: ``rows * cols`` reveals, then as many flag
    toggles when ``flags``. The same rules as :func:`is_valid_action`, with the status checked once."""
    n = rows * cols
    playable = is_playable(meta)
    for cell in range(n):
        out[cell] = playable and can_open(obs, rows, cols, flags, cell)
    if flags:
        for cell in range(n):
            out[n + cell] = playable and can_toggle_flag(obs, cell)


@njit(cache=True, inline="always")  # inlined into batch loops: a call with five array views costs more than a step
def apply_action(
    obs: np.ndarray,
    mines: np.ndarray,
    counts: np.ndarray,
    meta: np.ndarray,
    stack: np.ndarray,
    rows: int,
    cols: int,
    n_mines: int,
    rule: int,
    flags: bool,
    action: int,
) -> int:
    """Play one action; returns the safe cells it revealed, or :data:`INVALID` (and changes nothing).

    Actions ``0..n-1`` reveal a cell (or chord a satisfied number when flags are on); with flags on,
    ``n..2n-1`` toggle the flag on cell ``action - n``. The first reveal places the layout.
    """
    if not is_valid_action(obs, meta, rows, cols, flags, action):
        return INVALID
    meta[META_STEPS] += 1
    n = rows * cols
    if action >= n:
        cell = action - n
        obs[cell] = HIDDEN if obs[cell] == FLAG else FLAG
        return 0
    if meta[META_STATUS] == READY:
        start_game(mines, counts, meta, stack, rows, cols, n_mines, rule, action)
    if obs[action] == HIDDEN:
        return reveal(obs, mines, counts, meta, stack, rows, cols, action)
    return chord(obs, mines, counts, meta, stack, rows, cols, action)


@njit(cache=True)
def step_reward(
    status: int, revealed: int, win: float, loss: float, progress: float, invalid: float
) -> float:
    """The reward of one step from its outcome (see :class:`mine_env.engine.rewards.RewardConfig`)."""
    if revealed == INVALID:
        return invalid
    if status == WON:
        return win
    if status == LOST:
        return loss
    return progress * revealed


def neighbour_counts(layout: np.ndarray) -> np.ndarray:
    """Mines around every cell of a bool layout (rows, cols), as int8 (rows, cols); a Python convenience."""
    layout = np.asarray(layout, dtype=bool)
    rows, cols = layout.shape
    counts = np.zeros(layout.size, dtype=np.int8)
    compute_counts(layout.ravel().astype(np.uint8), counts, rows, cols)
    return counts.reshape(rows, cols)


class Game(NamedTuple):
    """One board's state arrays, for compiled code that plays whole games (see :func:`new_game_arrays`).

    Outside the engine, read the state through :func:`game_status` and :func:`safe_left`, never the slots
    of ``meta``.
    """

    obs: np.ndarray
    mines: np.ndarray
    counts: np.ndarray
    meta: np.ndarray
    stack: np.ndarray


@njit(cache=True)
def new_game_arrays(n_cells: int) -> Game:
    """Fresh state arrays for one board of ``n_cells`` cells (no game started yet)."""
    return Game(
        np.empty(n_cells, np.int8),
        np.empty(n_cells, np.uint8),
        np.empty(n_cells, np.int8),
        np.zeros(META_SIZE, np.int64),
        np.empty(n_cells, np.int32),
    )


@njit(cache=True)
def open_game(game: Game, rows: int, cols: int, n_mines: int, rule: int, key: int, first_cell: int) -> int:
    """Start the game of layout ``key`` on ``game`` and reveal ``first_cell``, as the env's first reveal does;
    returns the safe cells revealed."""
    new_game(game.obs, game.mines, game.counts, game.meta, n_mines)
    game.meta[META_KEY] = key
    start_game(game.mines, game.counts, game.meta, game.stack, rows, cols, n_mines, rule, first_cell)
    return reveal(game.obs, game.mines, game.counts, game.meta, game.stack, rows, cols, first_cell)


@njit(cache=True)
def reveal_cell(game: Game, rows: int, cols: int, cell: int) -> int:
    """:func:`reveal` on a :class:`Game`; returns the safe cells revealed (0 on a mine)."""
    return reveal(game.obs, game.mines, game.counts, game.meta, game.stack, rows, cols, cell)


@njit(cache=True, inline="always")
def game_status(meta: np.ndarray) -> int:
    """The game's status code: READY, PLAYING, WON or LOST."""
    return meta[META_STATUS]


@njit(cache=True, inline="always")
def safe_left(meta: np.ndarray) -> int:
    """Safe cells still hidden: the game is won when none is left."""
    return meta[META_SAFE_LEFT]

"""The rules of play as numba kernels over one board's flat arrays.

Every rule of play lives here once: a new game, the first reveal that places the layout, reveal with flood
fill, flags, chords, which actions are valid (and the action mask), and the reward. Where the mines go and
their counts are :mod:`mine_env.engine.layout`'s job, the random numbers :mod:`mine_env.engine.rng`'s, the
board's geometry :mod:`mine_env.engine.geometry`'s. :class:`mine_env.engine.board.Board` calls these kernels
for one board and :mod:`mine_env.engine.batch` loops them over a batch inside one compiled call, so the single
env and the vector env cannot drift apart. :mod:`mine_env.engine.reference` restates the same rules in plain
Python for the tests.

A board's state is a :class:`Game`, a handful of flat arrays (cell ``i`` is row ``i // cols``, column
``i % cols``):

- ``obs`` (int8, n): what the player sees, with the codes of :mod:`mine_env.engine.constants`;
- ``mines`` (uint8, n): 1 where a mine lies (all zero until the layout is placed);
- ``counts`` (int8, n): mines around each cell;
- ``meta`` (int64, META_SIZE): status, hidden safe cells left, the layout key, steps taken; outside the
  engine read it through :func:`game_status` and :func:`safe_left` (or the properties of ``Board``);
- ``stack`` (int32, n): scratch for mine placement and the flood fill.

What it plays by is a :class:`Rules`: the board's size, mine count and first-click rule code.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mine_env.engine.constants import FLAG, HIDDEN, MINE
from mine_env.engine.geometry import RULE_CODES as RULE_CODES  # re-exported: callers know it from here
from mine_env.engine.geometry import RULE_NONE, block, is_unknown
from mine_env.engine.layout import compute_counts, count_mines, pack, place_mines, unpack
from mine_env.engine.layout import neighbour_counts as neighbour_counts  # re-exported
from mine_env.engine.rewards import RewardValues
from mine_env.engine.rng import splitmix64 as splitmix64  # re-exported

# Game status codes.
READY, PLAYING, WON, LOST = 0, 1, 2, 3
STATUS_NAMES: tuple[str, ...] = ("ready", "playing", "won", "lost")

# Slots of the meta array.
META_STATUS, META_SAFE_LEFT, META_KEY, META_STEPS = 0, 1, 2, 3
META_SIZE = 4

INVALID = -1
"""Returned by :func:`apply_action` when the action was not valid (nothing changed)."""


class Game(NamedTuple):
    """One board's state arrays (see the module docstring); :func:`new_game_arrays` makes them.

    Outside the engine, read the state through :func:`game_status` and :func:`safe_left`, never the slots
    of ``meta``.
    """

    obs: np.ndarray
    mines: np.ndarray
    counts: np.ndarray
    meta: np.ndarray
    stack: np.ndarray


class Rules(NamedTuple):
    """What a board plays by: its size, its mine count and the first-click rule code (of ``RULE_CODES``)."""

    rows: int
    cols: int
    n_mines: int
    rule: int


# ----------------------------------------------------------------------------- state
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


@njit(cache=True, inline="always")
def game_status(meta: np.ndarray) -> int:
    """The game's status code: READY, PLAYING, WON or LOST."""
    return meta[META_STATUS]


@njit(cache=True, inline="always")
def safe_left(meta: np.ndarray) -> int:
    """Safe cells still hidden: the game is won when none is left."""
    return meta[META_SAFE_LEFT]


@njit(cache=True)
def is_playable(meta: np.ndarray) -> bool:
    """Whether the game still takes actions (no layout yet, or playing)."""
    return meta[META_STATUS] in (READY, PLAYING)


# ----------------------------------------------------------------------------- a game's course
# The kernels below take a game's five arrays one by one rather than as a Game: inside the batch loop a
# NamedTuple of array views doubles the reference counting per board (about a quarter of the vector env's
# throughput, measured). The scalars travel as Rules, which costs nothing.
@njit(cache=True, inline="always")  # inlined into the batch loop, where the call cost ~2% of its throughput
def new_game(
    obs: np.ndarray, mines: np.ndarray, counts: np.ndarray, meta: np.ndarray, stack: np.ndarray, rules: Rules, key: int
) -> None:
    """Clear the board for the game of layout ``key``. Under the ``none`` rule the layout is placed now, under
    the others by the first reveal (see :func:`start_game`)."""
    obs[:] = HIDDEN
    mines[:] = 0
    counts[:] = 0
    meta[META_STATUS] = READY
    meta[META_SAFE_LEFT] = obs.size - rules.n_mines
    meta[META_KEY] = key
    meta[META_STEPS] = 0
    if rules.rule == RULE_NONE:
        start_game(mines, counts, meta, stack, rules, np.int64(-1))  # not a literal: one compiled start_game


@njit(cache=True)
def start_game(
    mines: np.ndarray, counts: np.ndarray, meta: np.ndarray, stack: np.ndarray, rules: Rules, first_cell: int
) -> None:
    """Place the layout (``first_cell`` is -1 for the ``none`` rule) and switch the board to playing."""
    rows, cols, n_mines = rules.rows, rules.cols, rules.n_mines
    place_mines(mines, stack, rows, cols, n_mines, rules.rule, first_cell, meta[META_KEY])
    count_mines(counts, stack, n_mines, rows, cols)
    meta[META_STATUS] = PLAYING


@njit(cache=True)
def start_game_on(
    mines: np.ndarray, counts: np.ndarray, meta: np.ndarray, layout: np.ndarray, rows: int, cols: int
) -> None:
    """Start a game that has no layout yet on a given ``layout`` (uint8, 1 = mine) instead of its key's, so
    that the first reveal plays on it: how a layout source (see :mod:`mine_env.engine.layout_source`) deals."""
    for i in range(mines.shape[0]):
        mines[i] = layout[i]
    compute_counts(mines, counts, rows, cols)
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
        stack[0] = pack(cell // cols, cell % cols)
        top = 1
    while top > 0:
        top -= 1
        r, c = unpack(stack[top])
        r0, r1, c0, c1 = block(r, c, rows, cols)
        for rr in range(r0, r1):
            for cc in range(c0, c1):
                neighbour = rr * cols + cc
                if obs[neighbour] == HIDDEN:
                    obs[neighbour] = counts[neighbour]
                    revealed += 1
                    if counts[neighbour] == 0:
                        stack[top] = pack(rr, cc)
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
    flags = 0
    hidden = 0
    r0, r1, c0, c1 = block(cell // cols, cell % cols, rows, cols)
    for rr in range(r0, r1):
        for cc in range(c0, c1):
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
    revealed = 0
    r0, r1, c0, c1 = block(cell // cols, cell % cols, rows, cols)
    for rr in range(r0, r1):
        for cc in range(c0, c1):
            neighbour = rr * cols + cc
            if obs[neighbour] == HIDDEN and meta[META_STATUS] == PLAYING:
                revealed += reveal(obs, mines, counts, meta, stack, rows, cols, neighbour)
    return revealed


# ----------------------------------------------------------------------------- actions
@njit(cache=True)
def can_open(obs: np.ndarray, rows: int, cols: int, flags: bool, cell: int) -> bool:
    """Whether action ``cell`` does something: reveal a hidden cell, or chord a satisfied number (flags on)."""
    code = obs[cell]
    if code == HIDDEN:
        return True
    return flags and code > 0 and chord_targets(obs, rows, cols, cell) > 0


@njit(cache=True)
def can_toggle_flag(obs: np.ndarray, cell: int) -> bool:
    """Whether a flag can be put on ``cell`` or taken off it: its content is not shown (hidden or flagged)."""
    return is_unknown(obs[cell], False)


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
    """Write the valid-action mask (int8 or bool, 1 = valid) into ``out``: ``rows * cols`` reveals, then as many
    flag toggles when ``flags``. The same rules as :func:`is_valid_action`, with the status checked once."""
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
    rules: Rules,
    flags: bool,
    action: int,
) -> int:
    """Play one action; returns the safe cells it revealed, or :data:`INVALID` (and changes nothing).

    Actions ``0..n-1`` reveal a cell (or chord a satisfied number when flags are on); with flags on,
    ``n..2n-1`` toggle the flag on cell ``action - n``. The first reveal places the layout.
    """
    rows, cols = rules.rows, rules.cols
    if not is_valid_action(obs, meta, rows, cols, flags, action):
        return INVALID
    meta[META_STEPS] += 1
    n = rows * cols
    if action >= n:
        cell = action - n
        obs[cell] = HIDDEN if obs[cell] == FLAG else FLAG
        return 0
    if meta[META_STATUS] == READY:
        start_game(mines, counts, meta, stack, rules, action)
    if obs[action] == HIDDEN:
        return reveal(obs, mines, counts, meta, stack, rows, cols, action)
    return chord(obs, mines, counts, meta, stack, rows, cols, action)


# ----------------------------------------------------------------------------- entry points for Python
# A compiled call types a NamedTuple argument on every call (about 0.5 us, an eighth of a single env's step)
# but plain arrays and integers at once, so a caller in Python passes the game's arrays and the rules'
# integers spread out, in the order of Game and Rules.
@njit(cache=True)
def new_game_spread(  # type: ignore[no-untyped-def]
    obs, mines, counts, meta, stack, rows, cols, n_mines, rule, key
) -> None:
    """:func:`new_game` for a caller in Python."""
    new_game(obs, mines, counts, meta, stack, Rules(rows, cols, n_mines, rule), key)


@njit(cache=True)
def apply_action_spread(  # type: ignore[no-untyped-def]
    obs, mines, counts, meta, stack, rows, cols, n_mines, rule, flags, action
) -> int:
    """:func:`apply_action` for a caller in Python."""
    return apply_action(obs, mines, counts, meta, stack, Rules(rows, cols, n_mines, rule), flags, action)


# ----------------------------------------------------------------------------- the game API of compiled drivers
@njit(cache=True)
def open_game(game: Game, rows: int, cols: int, n_mines: int, rule: int, key: int, first_cell: int) -> int:
    """Start the game of layout ``key`` on ``game`` and reveal ``first_cell``, as the env's first reveal does;
    returns the safe cells revealed."""
    rules = Rules(rows, cols, n_mines, rule)
    obs, mines, counts, meta, stack = game.obs, game.mines, game.counts, game.meta, game.stack
    new_game(obs, mines, counts, meta, stack, rules, key)
    if meta[META_STATUS] == READY:
        start_game(mines, counts, meta, stack, rules, first_cell)
    return reveal(obs, mines, counts, meta, stack, rows, cols, first_cell)


@njit(cache=True)
def open_game_on(game: Game, rows: int, cols: int, n_mines: int, rule: int, key: int, first_cell: int,
                 layout: np.ndarray) -> int:  # fmt: skip
    """:func:`open_game` on a given ``layout`` (uint8, 1 = mine) when it is not empty, as a layout source deals
    it (:mod:`mine_env.engine.layout_source`), else on the layout of ``key``; returns the safe cells revealed."""
    if layout.shape[0] == 0:
        return open_game(game, rows, cols, n_mines, rule, key, first_cell)
    obs, mines, counts, meta, stack = game.obs, game.mines, game.counts, game.meta, game.stack
    new_game(obs, mines, counts, meta, stack, Rules(rows, cols, n_mines, rule), key)
    start_game_on(mines, counts, meta, layout, rows, cols)
    return reveal(obs, mines, counts, meta, stack, rows, cols, first_cell)


@njit(cache=True)
def reveal_cell(game: Game, rows: int, cols: int, cell: int) -> int:
    """:func:`reveal` on a :class:`Game`; returns the safe cells revealed (0 on a mine)."""
    return reveal(game.obs, game.mines, game.counts, game.meta, game.stack, rows, cols, cell)


@njit(cache=True)
def replay_game(game: Game, rows: int, cols: int, n_mines: int, first_cell: int) -> int:
    """Hide every cell of ``game`` and play it again from ``first_cell`` on the layout and counts it holds (a
    driver that edits the layout, as the no-guess generator does, replays it so); returns the safe cells
    revealed."""
    game.obs[:] = HIDDEN
    game.meta[META_STATUS] = PLAYING
    game.meta[META_SAFE_LEFT] = rows * cols - n_mines
    return reveal_cell(game, rows, cols, first_cell)


@njit(cache=True)
def step_reward(status: int, revealed: int, rewards: RewardValues) -> float:
    """The reward of one step from its outcome (see :class:`mine_env.engine.rewards.RewardConfig`)."""
    if revealed == INVALID:
        return rewards.invalid
    if status == WON:
        return rewards.win
    if status == LOST:
        return rewards.loss
    return rewards.progress * revealed

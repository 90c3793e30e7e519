"""The guess-value agent's play in compiled code: the head's pick among the tied safest cells, and whole games.

:func:`head_guess` scores each tied cell with the value head straight from the board: the first layer of a head
that reads a one-hot neighbourhood (:data:`CODES` classes a cell of the :data:`WINDOW` square) is a sum of one
weight row per cell, so the one-hot rows of :func:`agents.guess_value.candidate_features` are never built.
:class:`agents.guess_value.GuessValueAgent` calls it at its guesses through the env, and :func:`play_games` plays
whole games with it, as :func:`agents.solver.games.play_games` plays the solver's: the same games either way
(tested), the compiled ones many times faster. The numpy head (:meth:`agents.guess_value.ValueHead.logits`) on the
numpy features stays the plain reference these kernels are tested against.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.solver.outlook import TIE_TOLERANCE
from mine_env.analysis.deduction import certain_moves
from mine_env.engine.constants import HIDDEN
from mine_env.engine.rules import PLAYING, WON, game_status, new_game_arrays, open_game_on, reveal_cell, safe_left

WINDOW = 3
"""The neighbourhood a candidate is seen through: the cells at most this many rows and columns away."""
CODES = 11
"""One-hot classes of a cell of the neighbourhood: off the board, hidden, and the numbers 0-8."""
SCALARS = 3
"""The position's numbers beside the neighbourhood: the candidate's exact mine chance, the mines per hidden cell
and the share of the board still hidden."""
FEATURES = (2 * WINDOW + 1) ** 2 * CODES + SCALARS
"""The length of one candidate's feature row."""


@njit(cache=True)
def _cell_class(flat, rows, cols, r, c):
    """The one-hot class of cell (r, c): 0 off the board, 1 hidden (a flag too), else 2 + its number."""
    if r < 0 or r >= rows or c < 0 or c >= cols:
        return 0
    code = flat[r * cols + c]
    return 1 if code < 0 else code + 2


@njit(cache=True)
def head_logit(flat, rows, cols, cell, chance, density, hidden_share, weights, biases):
    """The head's logit for revealing ``cell``: its features (:func:`agents.guess_value.candidate_features`) through
    ``weights`` and ``biases`` (tuples of float32 arrays, ReLU between layers, one output), summed in float64."""
    first = weights[0]
    width = first.shape[1]
    hidden = np.empty(width, np.float64)
    for j in range(width):
        hidden[j] = biases[0][j] + chance * first[FEATURES - 3, j] + density * first[FEATURES - 2, j]
        hidden[j] += hidden_share * first[FEATURES - 1, j]
    r0, c0 = cell // cols, cell % cols
    side = 2 * WINDOW + 1
    for k in range(side * side):
        row = k * CODES + _cell_class(flat, rows, cols, r0 + k // side - WINDOW, c0 + k % side - WINDOW)
        for j in range(width):
            hidden[j] += first[row, j]
    for layer in range(1, len(weights)):
        for j in range(width):
            hidden[j] = max(hidden[j], 0.0)
        weight = weights[layer]
        out = np.empty(weight.shape[1], np.float64)
        for o in range(weight.shape[1]):
            total = np.float64(biases[layer][o])
            for j in range(width):
                total += hidden[j] * weight[j, o]
            out[o] = total
        hidden, width = out, weight.shape[1]
    return hidden[0]


@njit(cache=True)
def head_guess(flat, rows, cols, mines, probability, weights, biases):
    """The hidden cell of least exact mine chance (within :data:`TIE_TOLERANCE`) of highest learnt value, the first
    of them on equal values; the only one, unscored, when it has no tie."""
    least = 1.0
    hidden_cells = 0
    for i in range(flat.shape[0]):
        if flat[i] == HIDDEN:
            hidden_cells += 1
            least = min(least, probability[i])
    bound = least + TIE_TOLERANCE * least
    density = mines / max(hidden_cells, 1)
    share = hidden_cells / flat.shape[0]
    best, best_logit, ties = -1, -np.inf, 0
    for i in range(flat.shape[0]):
        if flat[i] == HIDDEN and probability[i] <= bound:
            ties += 1
            if best < 0:
                best = i
    if ties == 1:
        return best
    for i in range(flat.shape[0]):
        if flat[i] == HIDDEN and probability[i] <= bound:
            logit = head_logit(flat, rows, cols, i, probability[i], density, share, weights, biases)
            if logit > best_logit:
                best, best_logit = i, logit
    return best


@njit(cache=True)
def plan(flat, rows, cols, mines, weights, biases):
    """The agent's next moves in a position after the first click: every cell the count proves safe (increasing),
    else the one guess of :func:`head_guess`; empty when no layout fits."""
    cells, consistent, probability, _ = certain_moves(flat, rows, cols, mines)
    if cells.shape[0] or not consistent:
        return cells
    guess = np.empty(1, np.int64)
    guess[0] = head_guess(flat, rows, cols, mines, probability, weights, biases)
    return guess


@njit(cache=True)
def play_games(rows, cols, n_mines, rule, first_cells, keys, layouts, weights, biases):
    """Whole games, game ``g`` on the layout of ``keys[g]`` (as the env draws it) or on ``layouts[g]`` when
    ``layouts`` (uint8 (games, cells)) has rows, opened on ``first_cells[g]`` under the first-click ``rule`` (a code
    of :data:`mine_env.engine.geometry.RULE_CODES`), then :func:`plan`'s moves; returns won, safe cells revealed and
    reveals made, per game."""
    games, n = keys.shape[0], rows * cols
    won = np.empty(games, np.bool_)
    revealed = np.empty(games, np.int64)
    steps = np.empty(games, np.int64)
    no_layout = np.empty(0, np.uint8)
    for g in range(games):
        game = new_game_arrays(n)
        layout = layouts[g] if layouts.shape[0] else no_layout
        open_game_on(game, rows, cols, n_mines, rule, keys[g], first_cells[g], layout)
        steps[g] = 1
        while game_status(game.meta) == PLAYING:
            cells = plan(game.obs, rows, cols, n_mines, weights, biases)
            if cells.shape[0] == 0:
                break
            for cell in cells:
                if game.obs[cell] == HIDDEN and game_status(game.meta) == PLAYING:
                    reveal_cell(game, rows, cols, cell)
                    steps[g] += 1
        won[g] = game_status(game.meta) == WON
        revealed[g] = n - n_mines - safe_left(game.meta)
    return won, revealed, steps

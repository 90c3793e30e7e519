"""Whole solver games in compiled code, on the engine's public game API.

The evaluation runner plays the solver here (through :meth:`agents.solver.SolverAgent.play_compiled`) when it
needs no per-move oracle metric: each move is :func:`agents.solver.guess.decide`, as through the env, so a
game played here makes the same moves as the agent makes through the env (tested), many times faster.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.solver.guess import decide
from mine_env.engine.constants import HIDDEN
from mine_env.engine.rules import PLAYING, WON, game_status, new_game_arrays, open_game_on, reveal_cell, safe_left


@njit(cache=True, inline="always")
def play_game(rows, cols, n_mines, rule, first_cell, key, layout, state, settings):
    """One whole game: the layout from ``key`` (as the env draws it) or the given ``layout`` when it is not
    empty (a no-guess board), the first click on ``first_cell`` under the first-click ``rule`` (a code of
    :data:`mine_env.engine.geometry.RULE_CODES`), the solver's moves by ``settings``
    (:class:`agents.solver.guess.SolverSettings`) from its random stream ``state``.

    Returns (won, safe cells revealed, reveals made). Inlined into :func:`play_games`: a compiled layer of
    its own would link and re-optimise the whole solver once more on a cold start.
    """
    n = rows * cols
    game = new_game_arrays(n)
    open_game_on(game, rows, cols, n_mines, rule, key, first_cell, layout)
    steps = 1
    while game_status(game.meta) == PLAYING:
        cells, state = decide(game.obs, rows, cols, n_mines, settings, state)
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
def play_games(rows, cols, n_mines, rule, first_cells, keys, layouts, states, settings):
    """:func:`play_game` for each (first cell, key, state), on ``layouts[g]`` when ``layouts`` (uint8 (games,
    cells)) has rows, else on each key's layout; returns won, safe cells revealed and reveals per game."""
    games = keys.shape[0]
    won = np.empty(games, np.bool_)
    revealed = np.empty(games, np.int64)
    steps = np.empty(games, np.int64)
    no_layout = np.empty(0, np.uint8)
    for g in range(games):
        layout = layouts[g] if layouts.shape[0] > 0 else no_layout
        won[g], revealed[g], steps[g] = play_game(
            rows, cols, n_mines, rule, first_cells[g], keys[g], layout, states[g], settings
        )
    return won, revealed, steps

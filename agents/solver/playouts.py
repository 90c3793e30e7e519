"""Play-outs: a candidate move revealed in a position on layouts drawn from its posterior, then a player to the end.

A play-out answers "how often does the game go on to be won if I reveal this cell now?" for one layout; over
layouts drawn exactly from the position's posterior (:class:`agents.solver.posterior.PosteriorSampler`) the share
won estimates the candidate's win chance under the play-out player. The player is a solver setting
(:func:`agents.solver.guess.decide`, from a random state) or ``guess-value``'s learnt head
(:func:`agents.guess_value_kernels.plan`, given its layers).

:func:`play_outs` plays them in compiled code (one call a batch of layouts); :func:`reference_play_outs` is the same
thing move by move from Python, the plain version the compiled one is tested against. :func:`race_candidates` plays
several candidates on the same layouts (common random numbers, so their differences are paired) in rounds, dropping
a candidate once it trails the leader by more than a given number of paired standard errors.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from agents.guess_value_kernels import plan as head_plan
from agents.solver.guess import SolverSettings, decide
from agents.solver.posterior import PosteriorSampler
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import RULE_CODES
from mine_env.engine.rules import PLAYING, WON, game_status, new_game_arrays, open_game_on, reveal_cell

Head = tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]
"""A learnt head's layers, (weights, biases) (:meth:`agents.guess_value.ValueHead.layers`)."""

_OPENING = RULE_CODES["opening"]


@njit(cache=True, inline="always")
def _game_at(flat, revealed, rows, cols, mines, layout, cell):
    """A game on ``layout`` with the cells ``revealed`` in ``flat`` shown, then ``cell`` revealed."""
    game = new_game_arrays(flat.shape[0])
    open_game_on(game, rows, cols, mines, _OPENING, 0, revealed[0], layout)
    for shown in revealed:
        if game.obs[shown] == HIDDEN:
            reveal_cell(game, rows, cols, shown)
    reveal_cell(game, rows, cols, cell)
    return game


@njit(cache=True, inline="always")
def _reveal_all(game, rows, cols, cells):
    """Reveal each of ``cells`` still hidden, until the game ends."""
    for cell in cells:
        if game.obs[cell] == HIDDEN:
            reveal_cell(game, rows, cols, cell)
            if game_status(game.meta) != PLAYING:
                return


@njit(cache=True)
def _solver_play_outs(flat, revealed, rows, cols, mines, layouts, cell, settings, state):
    """Each layout's play-out by the solver at ``settings``; returns (won per layout, the new random state)."""
    won = np.zeros(layouts.shape[0], np.bool_)
    for g in range(layouts.shape[0]):
        game = _game_at(flat, revealed, rows, cols, mines, layouts[g], cell)
        while game_status(game.meta) == PLAYING:
            cells, state = decide(game.obs, rows, cols, mines, settings, state)
            if cells.shape[0] == 0:
                break
            _reveal_all(game, rows, cols, cells)
        won[g] = game_status(game.meta) == WON
    return won, state


@njit(cache=True)
def _head_play_outs(flat, revealed, rows, cols, mines, layouts, cell, weights, biases):
    """Each layout's play-out by ``guess-value``'s head (its ``weights`` and ``biases``); returns won per layout."""
    won = np.zeros(layouts.shape[0], np.bool_)
    for g in range(layouts.shape[0]):
        game = _game_at(flat, revealed, rows, cols, mines, layouts[g], cell)
        while game_status(game.meta) == PLAYING:
            cells = head_plan(game.obs, rows, cols, mines, weights, biases)
            if cells.shape[0] == 0:
                break
            _reveal_all(game, rows, cols, cells)
        won[g] = game_status(game.meta) == WON
    return won


def _position(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The position as a flat int8 grid and its revealed cells (ValueError when none is: nothing to start from)."""
    flat = np.ascontiguousarray(grid, dtype=np.int8).ravel()
    revealed = np.flatnonzero(flat >= 0)
    if revealed.size == 0:
        raise ValueError("a play-out starts from a position with a revealed cell; this one has none")
    return flat, revealed


def play_outs(grid: np.ndarray, mines: int, layouts: np.ndarray, cell: int, settings: SolverSettings,
              state: np.uint64, head: Head | None = None) -> tuple[np.ndarray, np.uint64]:  # fmt: skip
    """Reveal ``cell`` in the position ``grid`` on each of ``layouts`` (uint8 (layouts, cells), 1 = mine), then let
    the solver (``settings``, from random ``state``) or, given ``head``, ``guess-value`` play to the end.

    Returns (won per layout, the solver's new random state; ``head`` draws nothing and hands ``state`` back).
    """
    flat, revealed = _position(grid)
    rows, cols = grid.shape
    layouts = np.ascontiguousarray(layouts, dtype=np.uint8)
    if head is not None:
        weights, biases = head
        return _head_play_outs(flat, revealed, rows, cols, mines, layouts, int(cell), weights, biases), state
    won, state = _solver_play_outs(flat, revealed, rows, cols, mines, layouts, int(cell), settings, state)
    return won, np.uint64(state)


def reference_play_outs(grid: np.ndarray, mines: int, layouts: np.ndarray, cell: int, settings: SolverSettings,
                        state: np.uint64, head: Head | None = None) -> tuple[np.ndarray, np.uint64]:  # fmt: skip
    """:func:`play_outs` move by move from Python: the plain version the compiled one is tested against."""
    flat, revealed = _position(grid)
    rows, cols = grid.shape
    won = np.zeros(layouts.shape[0], np.bool_)
    for g in range(layouts.shape[0]):
        game = new_game_arrays(flat.size)
        open_game_on(game, rows, cols, mines, _OPENING, 0, int(revealed[0]), layouts[g])
        for shown in revealed:
            if game.obs[shown] == HIDDEN:
                reveal_cell(game, rows, cols, int(shown))
        reveal_cell(game, rows, cols, cell)
        while game_status(game.meta) == PLAYING:
            if head is None:
                cells, state = decide(game.obs, rows, cols, mines, settings, state)
                state = np.uint64(state)
            else:
                cells = head_plan(game.obs, rows, cols, mines, *head)
            if cells.shape[0] == 0:
                break
            for next_cell in cells:
                if game.obs[next_cell] == HIDDEN:
                    reveal_cell(game, rows, cols, int(next_cell))
                    if game_status(game.meta) != PLAYING:
                        break
        won[g] = game_status(game.meta) == WON
    return won, state


def race_candidates(grid: np.ndarray, mines: int, sampler: PosteriorSampler, candidates: list[int], layouts: int,
                    batch: int, race: float, settings: SolverSettings, state: np.uint64,
                    rng: np.random.Generator, head: Head | None = None) -> list[np.ndarray]:  # fmt: skip
    """Each candidate's wins on the layouts it was played on: rounds of ``batch`` fresh layouts up to ``layouts``,
    every candidate still in the race played on the same ones from the same random state; after a round a candidate
    whose mean paired lead over the leader is under ``-race`` standard errors leaves it (``race`` 0: none leaves)."""
    wins: list[np.ndarray] = [np.zeros(0, np.bool_) for _ in candidates]
    alive = list(range(len(candidates)))
    drawn = 0
    while (drawn < layouts and len(alive) > 1) or drawn == 0:
        size = min(batch, layouts - drawn)
        round_layouts = sampler.samples(rng, size)
        for i in alive:
            won, _ = play_outs(grid, mines, round_layouts, candidates[i], settings, state, head)
            wins[i] = np.concatenate([wins[i], won])
        drawn += size
        if race > 0 and drawn < layouts:
            leader = max(alive, key=lambda i: wins[i].mean())
            alive = [i for i in alive if i == leader
                     or (wins[i].mean() - wins[leader].mean()) + race * paired_se(wins[i], wins[leader]) >= 0]
    return wins


def paired_se(wins: np.ndarray, others: np.ndarray) -> float:
    """Standard error of the difference of two win rates measured on the same layouts."""
    difference = wins.astype(float) - others
    return float(difference.std(ddof=1) / math.sqrt(difference.size)) if difference.size > 1 else 0.0

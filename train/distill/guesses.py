"""The default solver's guesses as distillation targets (``train distill --guess-target solver``).

A distilled network plays the hidden cell it thinks safest: at best ``solver-fast``. In a position with no
certainly safe cell the default solver (strength ``strong``) often plays another one: a forced 50/50 first,
the endgame search's best line, or a cell a little riskier that tells more. That choice is what the solver wins
over ``solver-fast`` (docs/SOLVER.md), and the safest-cell labels cannot teach it.

:func:`solver_choices` records the solver's choice in a dataset's guess positions, so that the choice loss can
teach that cell there instead of the safest ones; :func:`harvest_guesses` plays whole solver games and keeps
the positions where it guesses, because a collection holds few of them (about one position in 200).

:func:`guess_report` measures how a network guesses in such positions (:class:`GuessPositions`): as the solver (its
guess, or any cell it rates as good: its options), on a safest cell, and with how much risk above it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from agents.solver import first_click_cell, initial_state
from agents.solver.guess import PRESETS, choose_guess, guess_with_options
from mine_env.analysis.deduction import certain_moves
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import RULE_CODES
from mine_env.engine.rules import PLAYING, Game, game_status, new_game_arrays, open_game_on, reveal_cell
from mine_env.engine.spec import BoardSpec

NO_CHOICE = -1
"""A position's choice when the solver has none recorded there: it has a certainly safe cell, it is the
untouched board, or its choice was not asked for."""

SAFEST_TOLERANCE = 1e-3
"""Labels within this of a position's least one count among its safest cells (float16 keeps about 1e-3)."""

SOLVER_SETTINGS = PRESETS["strong"]
"""The settings whose guesses are taught: the default solver's (``minesweeper eval --agent solver``)."""


def solver_guess(grid: np.ndarray, mines: int, state: np.uint64) -> tuple[int, np.uint64]:
    """The default solver's move in ``grid`` (rows, cols) when it has no certainly safe cell, else
    :data:`NO_CHOICE`; with its random stream's next state (the last tie-break between equal cells).

    Raises:
        ValueError: no layout with ``mines`` mines fits the position.
    """
    rows, cols = grid.shape
    flat = np.ascontiguousarray(grid, dtype=np.int8).ravel()
    if not (flat == HIDDEN).any() or (flat == HIDDEN).all():
        return NO_CHOICE, state
    cells, consistent, probability, log_layouts = certain_moves(flat, rows, cols, mines)
    if not consistent:
        raise ValueError(f"a position fits no layout of {mines} mines: not a position of a game")
    if cells.size:
        return NO_CHOICE, state
    cell, new_state = choose_guess(flat, rows, cols, mines, probability, log_layouts, SOLVER_SETTINGS, state)
    return int(cell), np.uint64(new_state)


def solver_choices(grids: np.ndarray, mines: int, seed: int) -> np.ndarray:
    """The default solver's guess (a flat cell index) in each of ``grids`` (N, rows, cols) that has no certainly
    safe cell, :data:`NO_CHOICE` elsewhere; int16 (N,). Its ties are broken by a stream seeded with ``seed``."""
    state = np.uint64(initial_state(seed))
    choices = np.full(len(grids), NO_CHOICE, np.int16)
    for i, grid in enumerate(grids):
        choices[i], state = solver_guess(grid, mines, state)
    return choices


class GuessPositions(NamedTuple):
    """True-guess positions of solver games, the solver's guess in each, and (held out) their exact chances."""

    grids: np.ndarray
    """int8 (N, rows, cols)."""
    choices: np.ndarray
    """int16 (N,): the flat index of the solver's guess."""
    labels: np.ndarray | None
    """float32 (N, rows * cols) mine chances, or None where not needed."""
    options: np.ndarray | None = None
    """bool (N, rows * cols): every cell the solver might have guessed in its place (its guess among them), or
    None where not recorded."""

    def choices_as_scores(self) -> np.ndarray:
        """Scores (N, cells) whose best hidden cell is the solver's guess: to report the solver's own guessing."""
        scores = np.zeros((len(self.grids), self.grids[0].size if len(self.grids) else 0), np.float32)
        scores[np.arange(len(self.grids)), self.choices.astype(np.int64)] = 1.0
        return scores


def play_to_guesses(spec: BoardSpec, keys: np.ndarray, guess: Callable[[Game, np.ndarray, float], int]) -> None:
    """Play one game of ``spec`` per layout key from the solver's first cell, every certainly safe cell revealed
    and, at each true guess, the cell ``guess(game, probability, log_layouts)`` returns."""
    rows, cols = spec.rows, spec.cols
    r, c = first_click_cell(rows, cols, spec.first_click)
    for key in keys:
        game = new_game_arrays(rows * cols)
        open_game_on(game, rows, cols, spec.mines, RULE_CODES[spec.first_click], int(key), r * cols + c,
                     np.empty(0, np.uint8))  # fmt: skip
        while game_status(game.meta) == PLAYING:
            cells, consistent, probability, log_layouts = certain_moves(game.obs, rows, cols, spec.mines)
            if not consistent:
                raise AssertionError("a game's position fits no layout: the engine and the count disagree")
            if cells.size == 0:
                cells = np.array([guess(game, probability, log_layouts)])
            for cell in cells:
                if game.obs[cell] == HIDDEN and game_status(game.meta) == PLAYING:
                    reveal_cell(game, rows, cols, int(cell))


def harvest_guesses(spec: BoardSpec, games: int, seed: int) -> GuessPositions:
    """Play ``games`` games of ``spec`` with the default solver and keep every position where it guesses.

    The layouts and the solver's tie-breaks are drawn from ``seed``; the solver opens on its own first cell.
    Returns the positions (before each guess), the solver's guesses and its options there (every cell it rates
    as good as its guess, :func:`agents.solver.guess.guess_with_options`), without labels.
    """
    if games < 0:
        raise ValueError(f"games must be 0 or more, got {games}")
    rows, cols, n = spec.rows, spec.cols, spec.rows * spec.cols
    rng = np.random.default_rng(seed)
    state = np.uint64(initial_state(int(rng.integers(2**63))))
    grids, choices, options = [], [], []

    def guess(game: Game, probability: np.ndarray, log_layouts: float) -> int:
        nonlocal state
        cell, cell_options, next_state = guess_with_options(game.obs, rows, cols, spec.mines, probability,
                                                            log_layouts, SOLVER_SETTINGS, state)  # fmt: skip
        state = np.uint64(next_state)  # numba hands a uint64 back as a Python int
        grids.append(game.obs.reshape(rows, cols).copy())
        choices.append(cell)
        options.append(cell_options)
        return int(cell)

    play_to_guesses(spec, rng.integers(2**62, size=games), guess)
    if not grids:
        return GuessPositions(np.zeros((0, rows, cols), np.int8), np.zeros(0, np.int16), None, np.zeros((0, n), bool))
    return GuessPositions(np.stack(grids).astype(np.int8), np.array(choices, np.int16), None, np.stack(options))


def guess_report(scores: np.ndarray, positions: GuessPositions) -> dict[str, float]:
    """How ``scores`` (N, cells) guess in ``positions``: the share playing the solver's guess, the share playing one
    of its options (with options), the share playing a safest cell and the mean mine chance taken above the
    safest cell (those two with labels); NaN agreement without a position."""
    if not len(positions.grids):
        return {"solver_agree": float("nan")}
    hidden = positions.grids.reshape(len(positions.grids), -1) == HIDDEN
    moves = np.where(hidden, scores, -np.inf).argmax(axis=1)
    report = {"solver_agree": float((moves == positions.choices).mean())}
    if positions.options is not None:
        report["solver_options"] = float(positions.options[np.arange(len(moves)), moves].mean())
    if positions.labels is not None:
        safest = np.where(hidden, positions.labels, np.inf).min(axis=1)
        excess = positions.labels[np.arange(len(moves)), moves] - safest
        report["safest_share"] = float((excess <= SAFEST_TOLERANCE).mean())
        report["excess_risk"] = float(excess.mean())
    return report

"""Monte-Carlo returns of the guesses: the reward signal that teaches a guess head by reinforcement learning.

In a position with no certainly safe cell, which of the nearly safest cells to reveal decides more games than
the mine chances show: ``solver-fast`` takes the safest, and the default solver wins a point more on
intermediate by looking one number ahead (docs/SOLVER.md, its ablation). Imitating the solver teaches its pick
(:mod:`train.distill.guess.preference`, ``--target solver``); here the pick is learnt from what each candidate
leads to, with no solver look-ahead in the signal.

:func:`rollout_guesses` plays ``solver-fast`` games. At each true guess it tries every candidate cell (the
hidden cells at most ``margin`` less safe, relatively, than the safest; at most ``max_candidates`` of them,
``solver-fast``'s own pick always among them) on a copy of the game, and plays that copy on with ``solver-fast``
to its end: the candidate's return is 1 when the copy is won, else 0. The copies share the position's hidden
layout, so two candidates' returns differ only through the candidate (common random numbers: a paired
comparison, far less noisy than returns of separate games). The game itself goes on with ``solver-fast``'s
guess, so the returns are the action values of ``solver-fast``'s policy at the positions it reaches, and a
head that picks the candidate of highest expected return improves on ``solver-fast`` (one step of policy
iteration). With ``horizon="progress"`` the return looks one reveal ahead instead: whether the candidate is safe
and makes progress (:func:`_progress`); the layout is a draw from the position's posterior, so its mean is the
chance the solver's look-ahead computes exactly.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from agents.solver import initial_state
from agents.solver.guess import PRESETS, SolverSettings, choose_guess, decide, strong_shortlist
from agents.solver_value import SOLVER_SCALARS, solver_scalars
from mine_env.analysis.deduction import certain_moves
from mine_env.engine.constants import HIDDEN
from mine_env.engine.rules import LOST, PLAYING, WON, Game, game_status, reveal_cell
from mine_env.engine.spec import BoardSpec
from train.distill.guesses import play_to_guesses

NO_CANDIDATE = -1
"""The padding of a position's candidate row beyond its candidates."""

FAST_SETTINGS = PRESETS["fast"]
"""The policy whose guesses are tried and whose play follows them: ``solver-fast``'s settings."""
STRONG_SETTINGS = PRESETS["strong"]
"""The default solver's settings: the policy of :func:`rollout_shortlist`."""

HORIZONS = ("game", "progress")
"""How far a candidate's return looks: to the end of the game played on by ``solver-fast`` (its win), or one
reveal ahead (whether the reveal is safe and makes progress: a zero, a certainly safe cell, or the win; the
solver's ``standard`` guess takes the safest cell with the best chance of that)."""


class GuessReturns(NamedTuple):
    """True-guess positions of ``solver-fast`` games, their candidate cells and each candidate's return."""

    grids: np.ndarray
    """int8 (N, rows, cols): the position before the guess."""
    candidates: np.ndarray
    """int16 (N, K): flat cell indices, safest first, padded with :data:`NO_CANDIDATE`."""
    safety: np.ndarray
    """float32 (N, K): each candidate's exact chance of being safe (0 in the padding)."""
    returns: np.ndarray
    """float32 (N, K): 1 when the game played on from the candidate was won, else 0 (0 in the padding)."""
    fast: np.ndarray
    """int16 (N,): the column of the playing policy's own pick in ``candidates`` (``solver-fast``'s, or
    ``strong``'s for :func:`rollout_shortlist`)."""
    safe: np.ndarray
    """bool (N, K): whether each candidate is safe on the position's layout (False in the padding): a safe
    candidate's return is a draw of its game's chance once it is safe, the part of a candidate's value that its
    exact chance of being safe does not tell."""
    scalars: np.ndarray
    """float32 (N, K, S): what the playing policy saw in each candidate (:func:`agents.solver_value.solver_scalars`
    for :func:`rollout_shortlist`; S = 0 for :func:`rollout_guesses`)."""

    def as_planes(self) -> tuple[np.ndarray, np.ndarray]:
        """(candidate mask bool (N, cells), returns float32 (N, cells)) laid on the board's cells, so that a
        symmetry of the board moves them with it."""
        count, cells = len(self.grids), self.grids[0].size if len(self.grids) else 0
        mask = np.zeros((count, cells), np.bool_)
        returns = np.zeros((count, cells), np.float32)
        rows, columns = np.nonzero(self.candidates != NO_CANDIDATE)
        flat = self.candidates[rows, columns].astype(np.int64)
        mask[rows, flat] = True
        returns[rows, flat] = self.returns[rows, columns]
        return mask, returns


@njit(cache=True)
def _copy(game: Game) -> Game:
    """An independent copy of a game's state arrays."""
    return Game(game.obs.copy(), game.mines.copy(), game.counts.copy(), game.meta.copy(), game.stack.copy())


@njit(cache=True)
def _play_out(game: Game, rows: int, cols: int, n_mines: int, cell: int, state: np.uint64,
              settings: SolverSettings) -> tuple[bool, np.uint64]:  # fmt: skip
    """Reveal ``cell`` on a copy of ``game`` and play the copy on with the solver of ``settings``; returns (won,
    new state)."""
    copy = _copy(game)
    reveal_cell(copy, rows, cols, cell)
    while game_status(copy.meta) == PLAYING:
        cells, state = decide(copy.obs, rows, cols, n_mines, settings, state)
        if cells.shape[0] == 0:
            break
        for next_cell in cells:
            if copy.obs[next_cell] == HIDDEN and game_status(copy.meta) == PLAYING:
                reveal_cell(copy, rows, cols, next_cell)
    return game_status(copy.meta) == WON, state


@njit(cache=True)
def _progress(game: Game, rows: int, cols: int, n_mines: int, cell: int) -> bool:
    """Whether revealing ``cell`` on a copy of ``game`` is safe and wins, shows a zero (its neighbours open) or
    leaves a certainly safe cell: the ``standard`` solver's progress (:func:`agents.solver.outlook.look_ahead`),
    a win included."""
    copy = _copy(game)
    reveal_cell(copy, rows, cols, cell)
    status = game_status(copy.meta)
    if status != PLAYING:
        return status != LOST
    if copy.obs[cell] == 0:
        return True
    cells, _, _, _ = certain_moves(copy.obs, rows, cols, n_mines)
    return cells.shape[0] > 0


def candidate_cells(obs: np.ndarray, probability: np.ndarray, pick: int, margin: float, limit: int,
                    rng: np.random.Generator) -> np.ndarray:  # fmt: skip
    """The hidden cells whose safety is within ``margin`` (relative) of the safest, safest first: ``pick`` and
    at most ``limit - 1`` others drawn uniformly when there are more."""
    hidden = np.flatnonzero(obs == HIDDEN)
    safety = 1.0 - probability[hidden]
    near = hidden[safety >= (1.0 - margin) * safety.max()]
    others = near[near != pick]
    if len(others) > limit - 1:
        others = rng.choice(others, size=limit - 1, replace=False)
    cells = np.concatenate(([pick], others)).astype(np.int64)
    return cells[np.argsort(probability[cells], kind="stable")]


def rollout_guesses(spec: BoardSpec, games: int, seed: int, margin: float = 0.1, max_candidates: int = 8,
                    horizon: str = "game") -> GuessReturns:  # fmt: skip
    """Play ``games`` ``solver-fast`` games of ``spec`` from ``seed`` and, at every true guess, the return of each
    candidate (see the module docstring) over ``horizon`` (one of :data:`HORIZONS`). The layouts, the candidates
    drawn and every tie-break come from ``seed``.
    """
    if games < 0:
        raise ValueError(f"games must be 0 or more, got {games}")
    if horizon not in HORIZONS:
        raise ValueError(f"unknown horizon {horizon!r}; expected one of {', '.join(HORIZONS)}")
    if max_candidates < 1 or not 0 <= margin < 1:
        raise ValueError(f"max_candidates must be 1 or more and margin in [0, 1), got {max_candidates}, {margin}")
    rows, cols = spec.rows, spec.cols
    rng = np.random.default_rng(seed)
    state = np.uint64(initial_state(int(rng.integers(2**63))))
    grids, candidates, safety, returns, fast, safe = [], [], [], [], [], []

    def candidate_return(game: Game, cell: int) -> float:
        nonlocal state
        if horizon == "progress":
            return float(_progress(game, rows, cols, spec.mines, cell))
        won, state = _play_out(game, rows, cols, spec.mines, cell, state, FAST_SETTINGS)
        state = np.uint64(state)
        return float(won)

    def guess(game: Game, probability: np.ndarray, log_layouts: float) -> int:
        nonlocal state
        pick, state = choose_guess(game.obs, rows, cols, spec.mines, probability, log_layouts, FAST_SETTINGS, state)
        state = np.uint64(state)
        tried = candidate_cells(game.obs, probability, int(pick), margin, max_candidates, rng)
        row = np.full(max_candidates, NO_CANDIDATE, np.int16)
        row[: len(tried)] = tried
        won = np.zeros(max_candidates, np.float32)
        for j, cell in enumerate(tried):
            won[j] = candidate_return(game, int(cell))
        grids.append(game.obs.reshape(rows, cols).copy())
        candidates.append(row)
        safety.append(np.pad(1.0 - probability[tried], (0, max_candidates - len(tried))).astype(np.float32))
        returns.append(won)
        fast.append(int(np.flatnonzero(tried == pick)[0]))
        safe.append(np.pad(game.mines[tried] == 0, (0, max_candidates - len(tried))))
        return int(pick)

    play_to_guesses(spec, rng.integers(2**62, size=games), guess)
    scalars = [np.zeros((max_candidates, 0), np.float32)] * len(grids)
    return _stacked(spec, max_candidates, grids, candidates, safety, returns, fast, safe, scalars)


def rollout_shortlist(spec: BoardSpec, games: int, seed: int, max_candidates: int = 12) -> GuessReturns:
    """Play ``games`` games of ``spec`` with the default solver (``strong``) from ``seed`` and, at every guess where
    it weighs two or more candidates (:func:`agents.solver.guess.strong_shortlist`: not the endgame search's, not
    a forced 50/50's), each candidate revealed on a copy of the game and played on by ``strong`` to its end: the
    returns of ``strong``'s own action values, one step of policy iteration over the solver itself.

    The columns are the shortlist's order (safest first), ``fast`` the column of ``strong``'s own pick (a cell
    of its shortlist, its swaps included), ``scalars`` what it saw in each candidate. The game goes on with
    ``strong``'s pick, its tie-breaks from its own stream, so its games are those ``strong`` plays.
    """
    if games < 0:
        raise ValueError(f"games must be 0 or more, got {games}")
    if max_candidates < STRONG_SETTINGS.max_candidates:
        raise ValueError(f"max_candidates must hold the solver's shortlist ({STRONG_SETTINGS.max_candidates}), "
                         f"got {max_candidates}")  # fmt: skip
    rows, cols, mines = spec.rows, spec.cols, spec.mines
    rng = np.random.default_rng(seed)
    state = np.uint64(initial_state(int(rng.integers(2**63))))
    play_state = np.uint64(initial_state(int(rng.integers(2**63))))
    grids, candidates, safety, returns, picks, safe, scalars = [], [], [], [], [], [], []

    def guess(game: Game, probability: np.ndarray, log_layouts: float) -> int:
        nonlocal state, play_state
        decided, tried, scores, keep, _ = strong_shortlist(game.obs, rows, cols, mines, probability, log_layouts,
                                                           STRONG_SETTINGS, state)  # fmt: skip
        pick, state = choose_guess(game.obs, rows, cols, mines, probability, log_layouts, STRONG_SETTINGS, state)
        state = np.uint64(state)
        if decided >= 0:
            return int(pick)
        won = np.zeros(max_candidates, np.float32)
        for j, cell in enumerate(tried):
            outcome, play_state = _play_out(game, rows, cols, mines, int(cell), play_state, STRONG_SETTINGS)
            play_state = np.uint64(play_state)
            won[j] = float(outcome)
        pad = max_candidates - len(tried)
        grids.append(game.obs.reshape(rows, cols).copy())
        candidates.append(np.pad(tried, (0, pad), constant_values=NO_CANDIDATE).astype(np.int16))
        safety.append(np.pad(1.0 - probability[tried], (0, pad)).astype(np.float32))
        returns.append(won)
        picks.append(int(np.flatnonzero(tried == pick)[0]))
        safe.append(np.pad(game.mines[tried] == 0, (0, pad)))
        scalars.append(np.pad(solver_scalars(scores, keep), ((0, pad), (0, 0))))
        return int(pick)

    play_to_guesses(spec, rng.integers(2**62, size=games), guess)
    return _stacked(spec, max_candidates, grids, candidates, safety, returns, picks, safe, scalars, SOLVER_SCALARS)


def _stacked(spec: BoardSpec, max_candidates: int, grids: list, candidates: list, safety: list, returns: list,
             picks: list, safe: list, scalars: list, width: int = 0) -> GuessReturns:  # fmt: skip
    """The positions' lists as one :class:`GuessReturns` (empty arrays of the right shapes when there are none)."""
    if not grids:
        empty = np.zeros((0, max_candidates), np.float32)
        return GuessReturns(np.zeros((0, spec.rows, spec.cols), np.int8), empty.astype(np.int16), empty, empty,
                            np.zeros(0, np.int16), empty.astype(np.bool_),
                            np.zeros((0, max_candidates, width), np.float32))  # fmt: skip
    return GuessReturns(np.stack(grids).astype(np.int8), np.stack(candidates), np.stack(safety), np.stack(returns),
                        np.array(picks, np.int16), np.stack(safe), np.stack(scalars).astype(np.float32))  # fmt: skip


def load_returns(path: str | Path) -> GuessReturns:
    """A chunk saved by ``np.savez(path, **positions._asdict())``; one saved before ``scalars`` existed gets an
    empty one."""
    with np.load(path) as saved:
        arrays = {name: saved[name] for name in saved.files}
    if "scalars" not in arrays:
        arrays["scalars"] = np.zeros((*arrays["candidates"].shape, 0), np.float32)
    return GuessReturns(**arrays)


def pick_returns(scores: np.ndarray, positions: GuessReturns) -> dict[str, float]:
    """How ``scores`` (N, cells) guess in ``positions``, judged by the candidates' returns: the mean return of
    its pick and, in the same positions, of ``solver-fast``'s pick and of the best candidate (an upper bound no
    policy reaches on average: the best of each row's returns on its one layout), all where the pick is a
    candidate; and the share of positions where it is not."""
    if not len(positions.grids):
        return {"pick_return": float("nan")}
    hidden = positions.grids.reshape(len(positions.grids), -1) == HIDDEN
    moves = np.where(hidden, scores, -np.inf).argmax(axis=1)
    match = positions.candidates.astype(np.int64) == moves[:, None]
    inside = match.any(axis=1)
    fast = positions.returns[np.arange(len(moves)), positions.fast.astype(np.int64)]
    return {
        "pick_return": float(positions.returns[match].mean()) if inside.any() else float("nan"),
        "fast_return": float(fast[inside].mean()) if inside.any() else float("nan"),
        "best_return": float(positions.returns[inside].max(axis=1).mean()) if inside.any() else float("nan"),
        "outside_share": float(1.0 - inside.mean()),
    }

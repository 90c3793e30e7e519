"""The exact-probability solver: the project's expert baseline, at three strengths.

Policy, move by move:

1. first click (nothing revealed yet): the best cell for the rule in force (:func:`first_click_cell`), or
   the cell given as ``first_cell``;
2. every certain move of the position (:func:`mine_env.analysis.deduction.certain_moves`: so never a mine),
   queued and played without recounting;
3. otherwise a guess, chosen by the strength setting (details in :mod:`agents.solver.guess`): ``fast``
   takes the safest cell, ``standard`` the safest cell most likely to give certain progress, ``strong`` (the
   default) the near-safest cell with the best score of what it leads to (a blend of the best and
   second-best next safety, raised by its long-term 50/50 risk), or, once few layouts remain, the move with
   the best win chance by exhaustive search (:mod:`agents.solver.endgame`).

The move is :func:`agents.solver.guess.decide`'s two steps made from Python: ``certain_moves`` run as
Python on kernels compiled anyway, then :func:`agents.solver.guess.choose_guess` only when no cell is
certainly safe, so that a first game won without a guess never compiles the guess. Every setting lives in
one :class:`agents.solver.guess.SolverSettings` record. Whole games can be played in compiled code too
(:meth:`SolverAgent.play_compiled`, :mod:`agents.solver.games`, through ``decide``), which is how the
evaluation runner plays the solver when it does not need per-move oracle metrics.
"""

from __future__ import annotations

import operator
from abc import abstractmethod
from collections.abc import Iterable
from typing import Any

import numpy as np

from agents.base import Agent
from agents.random_agent import follows, valid_reveals
from agents.seeding import numpy_first_draws
from agents.solver import guess_ahead
from agents.solver.games import play_games
from agents.solver.guess import ENDGAME_LAYOUTS, MARGIN, MAX_CANDIDATES, SolverSettings, choose_guess
from agents.solver.guess import STRENGTHS as STRENGTH_CODES
from mine_env.analysis.counting import count_board
from mine_env.analysis.counting_base import STATUS_OK
from mine_env.analysis.deduction import certain_moves
from mine_env.analysis.no_guess import check_no_guess_board, no_guess_layouts
from mine_env.analysis.probability import analyse
from mine_env.engine.constants import DEFAULT_BOARDS, DEFAULT_FIRST_CLICK, HIDDEN, PRESETS
from mine_env.engine.geometry import cells_where, is_unknown
from mine_env.engine.rules import RULE_CODES
from mine_env.engine.spec import check_boards

_EXPERT_ROWS, _EXPERT_COLS, _ = PRESETS["expert"]
_STATE_LIMIT = 2**63
_SEED_LIMIT = 2**64

STRENGTHS = tuple(STRENGTH_CODES)
"""The strength settings, weakest first."""
DEFAULT_STRENGTH = "strong"


def first_click_cell(rows: int, cols: int, rule: str) -> tuple[int, int]:
    """The best first click for a first-click rule on an empty board.

    * ``safe`` (the clicked cell is never a mine): a corner, the most likely cell to open a zero.
    * ``opening`` (the cell and its neighbours are mine-free): (2, 2) on boards smaller than expert and
      (3, 3) on expert-size ones, clamped to the board.
    * ``none`` (layout fixed before the click): every cell is equally likely a mine, so the corner, which
      opens a zero most often.
    """
    if rule == "opening":
        expert_size = min(rows, cols) >= _EXPERT_ROWS and max(rows, cols) >= _EXPERT_COLS
        offset = 3 if expert_size else 2
        return min(offset, rows - 1), min(offset, cols - 1)
    if rule in ("safe", "none"):
        return 0, 0
    raise ValueError(f"unknown first-click rule {rule!r}; expected 'safe', 'opening' or 'none'")


class PlannedMovesAgent(Agent):
    """What both solvers share: the first click, then the moves of one plan played without re-thinking.

    A plan is every certainly safe cell of a position (they stay safe for the rest of the game, so they are
    played in order without counting again, skipping those a flood already opened) or a single guess.
    Subclasses say how a position is planned (:meth:`plan`).
    """

    def reset(self) -> None:
        """Forget the planned moves of the previous game."""
        self._pending: list[int] = []
        self._previous: np.ndarray | None = None

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        """The next reveal: first click, the next planned cell, or the first cell of a new plan."""
        self._notice_new_game(obs)
        valid = valid_reveals(obs, info)
        rows, cols = obs.shape
        if cells_where(obs, is_unknown, False).all():  # nothing revealed yet
            r, c = self.first_click(rows, cols, info.get("first_click", DEFAULT_FIRST_CLICK))
            if r * cols + c in valid:
                return r * cols + c
        queued = self._next_planned(obs, valid)
        if queued is not None:
            return queued
        self._pending = self.plan(obs, info, valid)[::-1]
        return self._pending.pop()

    def first_click(self, rows: int, cols: int, rule: str) -> tuple[int, int]:
        """The cell clicked first on a board with nothing revealed: the best one for the rule."""
        return first_click_cell(rows, cols, rule)

    @abstractmethod
    def plan(self, obs: np.ndarray, info: dict[str, Any], valid: np.ndarray) -> list[int]:
        """The certainly safe valid cells of a position in increasing order, or else one guess."""

    def _next_planned(self, obs: np.ndarray, valid: np.ndarray) -> int | None:
        """A planned cell that is still hidden and valid, if any."""
        flat = obs.ravel()
        allowed = set(valid.tolist())
        while self._pending:
            cell = self._pending.pop()
            if cell in allowed and is_unknown(int(flat[cell]), False):
                return cell
        return None

    def _notice_new_game(self, obs: np.ndarray) -> None:
        """Drop the plan if ``obs`` cannot follow the last position seen (a new game without reset)."""
        if not follows(self._previous, obs):
            self.reset()
        self._previous = obs.copy()


def initial_state(seed: int | None) -> int:
    """The solver's random stream state for ``seed`` (None: fresh entropy), one draw of numpy's generator."""
    return int(np.random.default_rng(seed).integers(0, _STATE_LIMIT))


def initial_states(seeds: Iterable[int]) -> np.ndarray:
    """:func:`initial_state` of each (integer) seed, as uint64: in compiled code when every seed lies in
    [0, 2**64), with the same values a hundred times faster, else seed by seed through numpy."""
    values = [operator.index(seed) for seed in seeds]
    if all(0 <= value < _SEED_LIMIT for value in values):
        return numpy_first_draws(np.array(values, dtype=np.uint64))
    return np.array([initial_state(value) for value in values], dtype=np.uint64)


def compiled_game_starts(rows: int, cols: int, mines: int, rule: str, keys: np.ndarray, first_click: tuple[int, int],
                         boards: str, first_cells: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """What compiled games start from (:meth:`agents.base.CompiledGames.play_compiled`): the cell each game of
    ``keys`` opens on (``first_click``, or ``first_cells[g]`` when given), and the no-guess layout of each key for
    that cell when ``boards`` asks for them (else no rows: each game draws its key's layout)."""
    r, c = first_click
    opened = np.full(keys.shape, r * cols + c, np.int64) if first_cells is None else np.asarray(first_cells, np.int64)
    if opened.shape != keys.shape:
        raise ValueError(f"one first cell per key: got {opened.size} cells for {keys.size} keys")
    layouts = np.empty((0, rows * cols), np.uint8)
    if check_boards(boards) != DEFAULT_BOARDS:
        check_no_guess_board(rows, cols, mines, rule)
        layouts = no_guess_layouts(rows, cols, mines, keys, opened)
    return opened, layouts


def _cell_pair(cell: tuple[int, int]) -> tuple[int, int]:
    """``cell`` as a (row, col) pair of integers; a ValueError says what is wrong with anything else."""
    try:
        r, c = (operator.index(value) for value in cell)
    except (TypeError, ValueError):
        raise ValueError(f"first_cell must be a (row, col) pair of integers, got {cell!r}") from None
    return r, c


class SolverAgent(PlannedMovesAgent):
    """Plays with exact mine probabilities.

    Args:
        seed: seed of the agent's random stream, used for the last tie-break between equal cells.
        strength: ``"fast"``, ``"standard"`` or ``"strong"`` (see the module docstring).
        margin: ``strong`` only: cells whose safety is within this fraction of the best safety are
            candidates for the look-ahead.
        max_candidates: at most this many cells get the look-ahead (safest first, then fewest hidden
            neighbours).
        endgame_layouts: ``strong`` only: search the endgame exactly once at most this many layouts fit
            the position (0: never).
        pairs_first: ``strong`` only: guess a forced 50/50 (two neighbours, one mine, that no later reveal
            can tell apart) as soon as one appears.
        first_cell: (row, col) of the first click on every board; None: the best cell for the rule in force
            (:func:`first_click_cell`). For studies of the first click (studies/first_click.py).

    The settings but the first cell are kept as one :class:`agents.solver.guess.SolverSettings` record,
    ``settings``, which the compiled code reads.
    """

    name = "solver"

    def __init__(
        self,
        seed: int | None = None,
        *,
        strength: str = DEFAULT_STRENGTH,
        margin: float = MARGIN,
        max_candidates: int = MAX_CANDIDATES,
        endgame_layouts: int = ENDGAME_LAYOUTS,
        pairs_first: bool = True,
        first_cell: tuple[int, int] | None = None,
    ) -> None:
        if strength not in STRENGTH_CODES:
            raise ValueError(f"unknown solver strength {strength!r}; expected one of {', '.join(STRENGTHS)}")
        if not 0.0 <= margin < 1.0:
            raise ValueError(f"margin must lie in [0, 1), got {margin}")
        if max_candidates < 1:
            raise ValueError(f"max_candidates must be at least 1, got {max_candidates}")
        if endgame_layouts < 0:
            raise ValueError(f"endgame_layouts must be >= 0 (0: no endgame search), got {endgame_layouts}")
        self.strength = strength
        self.settings = SolverSettings(
            STRENGTH_CODES[strength], float(margin), int(max_candidates), int(endgame_layouts), bool(pairs_first)
        )
        self.first_cell = None if first_cell is None else _cell_pair(first_cell)
        self._state = np.uint64(initial_state(seed))
        self.reset()
        guess_ahead.arm()  # on a cold cache, the guess's count-free kernels compile in a second process meanwhile

    def first_click(self, rows: int, cols: int, rule: str) -> tuple[int, int]:
        """``first_cell`` when one was given (it must lie on the board), else the best cell for the rule."""
        if self.first_cell is None:
            return first_click_cell(rows, cols, rule)
        r, c = self.first_cell
        if not (0 <= r < rows and 0 <= c < cols):
            raise ValueError(f"first_cell {self.first_cell} lies off the {rows}x{cols} board")
        return r, c

    def reset(self) -> None:
        """Forget the previous game, so the next position planned is checked to fit."""
        super().reset()
        self._checked = False

    def plan(self, obs: np.ndarray, info: dict[str, Any], valid: np.ndarray) -> list[int]:
        """The position's certain moves, or else the guess for the strength setting."""
        rows, cols = obs.shape
        mines = int(info["mines"])
        flat = np.ascontiguousarray(obs, dtype=np.int8).ravel()
        if not self._checked:  # a position not reached by this game's reveals: check it fits
            # count_board, not count_position: called from Python, count_position would be compiled on its own
            if count_board(flat, rows, cols, False, mines).status != STATUS_OK:
                analyse(obs, mines)  # raises InconsistentBoard, saying what does not fit
            self._checked = True
        if not (flat == HIDDEN).any():  # only flagged cells left: nothing the solver would reveal
            return [int(valid[0])]
        # decide's two steps from Python, so the guess compiles only once a game needs one (docs/COLD_START.md)
        cells, consistent, probability, log_layouts = certain_moves.py_func(flat, rows, cols, mines)
        if cells.size == 0 and consistent:
            cells = np.array([self.guess(flat, rows, cols, mines, probability, log_layouts)])
        if cells.size == 0:
            analyse(obs, mines)  # raises InconsistentBoard, saying what does not fit
        return cells.tolist()

    def guess(self, flat: np.ndarray, rows: int, cols: int, mines: int, probability: np.ndarray,
              log_layouts: float) -> int:  # fmt: skip
        """The guess where no cell is certainly safe, by the strength setting, from the exact count's
        ``probability`` and ``log_layouts``."""
        cell, state = choose_guess(flat, rows, cols, mines, probability, log_layouts, self.settings, self._state)
        self._state = np.uint64(state)  # numba hands a uint64 back as a Python int
        return int(cell)

    def play_compiled(
        self, rows: int, cols: int, mines: int, rule: str, keys: np.ndarray, seeds: Iterable[int],
        boards: str = DEFAULT_BOARDS, first_cells: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
        """Play one game per layout key without the env, with this agent's settings
        (:func:`agents.solver.games.play_games`).

        Game ``g`` is played exactly as ``SolverAgent(seeds[g], ...)`` would play the env game whose layout
        key is ``keys[g]`` move by move (tested), in a fraction of the time; with ``boards="no_guess"``, on the
        no-guess layout of that key for this agent's first click (:mod:`mine_env.analysis.no_guess`).
        ``first_cells`` (flat, one per game): cells revealed first on the agent's behalf instead of its own first
        click (the zero start of :mod:`mine_env.engine.starts`, under the ``none`` rule).

        Returns:
            (won, safe cells revealed, reveals made), one entry per game.
        """
        keys = np.asarray(keys, dtype=np.int64)
        states = initial_states(seeds)
        if states.shape != keys.shape:
            raise ValueError(f"one seed per key: got {states.size} seeds for {keys.size} keys")
        opened, layouts = compiled_game_starts(rows, cols, mines, rule, keys, self.first_click(rows, cols, rule),
                                               boards, first_cells)  # fmt: skip
        return play_games(rows, cols, mines, RULE_CODES[rule], opened, keys, layouts, states, self.settings)

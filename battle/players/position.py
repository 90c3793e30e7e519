"""A battle position as the battle agents read it: its exact count, and its outcomes in one compiled call.

:class:`Position` carries the fields of :class:`~mine_env.analysis.probability.BoardAnalysis` the battle agents
use (the grid, the mine total, every cell's exact mine probability, the certain mines, the hidden cells) and
:meth:`Position.reveal_outcomes`, whose results equal ``BoardAnalysis.reveal_outcomes`` float for float, but
with every count of a cell done by :func:`battle.counting.outcomes.reveal_counts` in one call (a count
then costs the compiled kernel alone, not the boxing of its whole result and the Python wrapping around it). With
a :class:`~mine_env.analysis.component_store.ComponentStore` (an agent keeps one for its games) the counts
go through :func:`battle.counting.outcomes.reveal_counts_stored`, which takes from the store every
component a click leaves as it was: the same floats, the dynamic programme run only for what the click changes.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from battle.counting.outcomes import OUTCOMES, RevealCounts, reveal_counts, reveal_counts_stored
from battle.players.search import outcome_distribution
from mine_env.analysis.component_store import ComponentStore
from mine_env.analysis.counting import count_board
from mine_env.analysis.counting_base import STATUS_OK
from mine_env.analysis.probability import VALUE_MINE, analyse, checked_grid
from mine_env.engine.constants import HIDDEN, MINE


class Position:
    """The exact count of one battle position (a single-player grid, every claimed mine shown as MINE).

    Args:
        grid: int8 (rows, cols), no flags.
        mines: the game's total mines.
        probabilities: exact mine probability per cell, (rows, cols).
        certain_mines: whether each cell is a mine in every layout that fits, (rows, cols).
        best_chance: the highest mine probability among the hidden cells, when the count gave it.
        store: the counted components the outcomes' counts take from and add to (None: count them all).
    """

    def __init__(self, grid: np.ndarray, mines: int, probabilities: np.ndarray, certain_mines: np.ndarray,
                 best_chance: float | None = None, store: ComponentStore | None = None) -> None:  # fmt: skip
        self.__dict__.update(grid=grid, probabilities=probabilities, certain_mines=certain_mines)
        self.mines = mines
        self.store = store
        self.memo: dict[object, float] = {}
        """Values the agents derived from this position, kept for when they ask again (keyed by what they are)."""
        if best_chance is not None:
            self.__dict__["best_chance"] = best_chance

    @classmethod
    def _outcome(cls, before: Position, flat_cell: int, code: int, counts: RevealCounts, index: int) -> Position:
        """The position after ``flat_cell`` of ``before`` shows ``code``, outcome ``index`` of ``counts``.

        Its grid and arrays are made when first read (:attr:`grid`, :attr:`probabilities`,
        :attr:`certain_mines`): most outcomes are only asked for their best chance, which the count gave.
        """
        position = cls.__new__(cls)
        position.mines, position.store, position.memo = before.mines, before.store, {}
        position.__dict__["best_chance"] = float(counts.best[index])
        position._origin = (before.grid, flat_cell, code, counts, index)
        return position

    @cached_property
    def grid(self) -> np.ndarray:
        """The position: int8 (rows, cols), no flags (made on first use for an outcome)."""
        before, flat_cell, code, _, _ = self._origin
        grid = before.copy()
        grid.flat[flat_cell] = code
        return grid

    @cached_property
    def probabilities(self) -> np.ndarray:
        """Exact mine probability per cell, (rows, cols) (a view of the count, for an outcome)."""
        before, _, _, counts, index = self._origin
        return counts.probability[index].reshape(before.shape)

    @cached_property
    def certain_mines(self) -> np.ndarray:
        """Whether each cell is a mine in every layout that fits, (rows, cols)."""
        before, _, _, counts, index = self._origin
        return counts.certain_mine[index].reshape(before.shape)

    @classmethod
    def of(cls, grid: np.ndarray, mines: int, store: ComponentStore | None = None) -> Position:
        """Count ``grid`` exactly (``count_board``, keeping only what the agents read: the floats of
        :func:`~mine_env.analysis.probability.analyse`, with its checks and clear errors); its outcomes' counts will
        take components from ``store``."""
        board = checked_grid(grid, mines)
        # count_board itself, with the solver's argument types: a compiled wrapper that returned only these fields
        # was a kernel of its own to compile (and link the count into) on a cold start, for a few microseconds less
        counted = count_board(board.ravel(), *board.shape, False, int(mines))
        if counted.status != STATUS_OK:
            analyse(board, mines)  # raises the error that says why no layout fits
        cells = counted.cells
        return cls(board, int(mines), cells.probability.reshape(board.shape), cells.mine.reshape(board.shape),
                   store=store)  # fmt: skip

    @cached_property
    def hidden(self) -> np.ndarray:
        """Cells whose content is unknown."""
        return self.grid == HIDDEN

    @cached_property
    def best_chance(self) -> float:
        """The highest mine probability among the hidden cells (0.0 when none is hidden): what the player to move
        expects from one click (given by the count of an outcome, computed here for a position counted alone)."""
        hidden = self.hidden
        return float(self.probabilities[hidden].max()) if hidden.any() else 0.0

    def reveal_outcomes(
        self, cell: tuple[int, int], with_mine: bool = False
    ) -> tuple[np.ndarray, list[Position | None]]:
        """What revealing ``cell`` can show and how likely each is (index :data:`VALUE_MINE` the mine, ``1 + v``
        the number v), with the position after each; None where impossible, and for the mine unless
        ``with_mine`` (then it is the position with the cell claimed, when the cell can be a mine)."""
        row, col = cell
        if not self.hidden[row, col]:
            raise ValueError(f"cell {cell} is not hidden, so it has no value distribution")
        distribution = np.zeros(OUTCOMES, np.float64)
        outcomes: list[Position | None] = [None] * OUTCOMES
        p_mine = self.probabilities[row, col]
        distribution[VALUE_MINE] = p_mine
        certain = self.certain_mines[row, col]
        rows, cols = self.grid.shape
        flat_cell = row * cols + col
        counted_mine = bool(with_mine and p_mine > 0.0)
        if certain and not counted_mine:
            return distribution, outcomes
        flat = self.grid.ravel()
        if self.store is None:
            counted = reveal_counts(flat, rows, cols, self.mines, flat_cell, counted_mine, not certain)
        else:
            counted = reveal_counts_stored(flat, rows, cols, self.mines, flat_cell, counted_mine, not certain,
                                           self.store, self.probabilities.ravel())  # fmt: skip
        counts = RevealCounts(*counted)
        for index in counts.consistent.nonzero()[0].tolist():
            code = MINE if index == VALUE_MINE else index - 1
            outcomes[index] = Position._outcome(self, flat_cell, code, counts, index)
        return outcome_distribution(counts.log_layouts, p_mine, certain), outcomes

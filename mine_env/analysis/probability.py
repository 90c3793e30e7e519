"""Exact mine probabilities for a Minesweeper observation, and the safe-cell oracle built on them.

Every cell's probability is exact under the uniform prior over all layouts with exactly ``mines`` mines that
agree with every revealed number: no sampling, no time-outs. How it is counted (boxes, components, dynamic
programming over a narrow box order, combination over mine totals) is described in docs/PROBABILITY.md and
in :mod:`mine_env.analysis.counting`.

Observation codes are those of :mod:`mine_env.engine.constants`: -1 hidden, -2 flagged, -3 a shown mine, 0..8 a
revealed count. Shown mines are mines; flags are hidden cells unless ``trust_flags`` is set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from mine_env.analysis.combine import Combined
from mine_env.analysis.counting import BoardCount, count_board
from mine_env.analysis.counting_base import STATUS_BAD_NUMBER, STATUS_BAD_TOTAL, STATUS_OK
from mine_env.analysis.frontier import Frontier
from mine_env.engine.constants import FLAG, HIDDEN, MINE
from mine_env.engine.geometry import block

__all__ = [
    "VALUE_MINE",
    "BoardAnalysis",
    "ComponentSolution",
    "InconsistentBoard",
    "analyse",
    "mine_probabilities",
    "safe_cells_and_probabilities",
    "value_distribution",
]

VALUE_MINE = 0
"""Index of "the cell is a mine" in a value distribution; index ``1 + v`` is "the cell shows v"."""

_LOWEST_CODE = MINE
_HIGHEST_CODE = 8


class InconsistentBoard(ValueError):
    """No layout with the given total mine count fits the revealed numbers."""


@dataclass(frozen=True)
class ComponentSolution:
    """The exact count of one independent group of frontier boxes, on its own.

    A look-ahead can keep these for components a move does not touch and only recombine them.

    Attributes:
        boxes: flat cell indices of each box (cells touched by the same numbers).
        lowest: smallest number of mines the component can hold.
        weights: ``weights[m]`` is proportional to the number of the component's layouts with ``lowest + m``
            mines (shared scale ``exp(log_scale)``).
        mine_sums: ``mine_sums[b, m]``: over those layouts, the summed number of mines in box ``b``.
        safe_sums: the same for safe cells, so ``mine_sums + safe_sums == size_b * weights``.
        log_scale: natural log of the factor the three arrays were divided by.
    """

    boxes: tuple[np.ndarray, ...]
    lowest: int
    weights: np.ndarray
    mine_sums: np.ndarray
    safe_sums: np.ndarray
    log_scale: float


@dataclass(frozen=True)
class BoardAnalysis:
    """Everything the exact count of one position gives.

    Attributes:
        grid: the analysed observation (int8, rows x cols), kept to derive follow-up positions.
        mines: total number of mines on the board.
        trust_flags: whether flags were taken as mines.
        probabilities: exact mine probability per cell (0.0 on revealed numbers, 1.0 on known mines).
            ``p == 0.0`` / ``p == 1.0`` on a hidden cell mean certainty and nothing else.
        certain_safe: hidden (or untrusted flagged) cells that cannot hold a mine in any layout.
        certain_mines: cells that hold a mine in every layout (shown and trusted-flag mines included).
        log_layouts: natural log of the number of layouts that fit.
        interior_cells: number of hidden cells no revealed number touches.
        interior_probability: their common mine probability (0.0 when there are none).
    """

    grid: np.ndarray
    mines: int
    trust_flags: bool
    probabilities: np.ndarray
    certain_safe: np.ndarray
    certain_mines: np.ndarray
    log_layouts: float
    interior_cells: int
    interior_probability: float
    _count: BoardCount = field(repr=False, compare=False)

    @cached_property
    def components(self) -> tuple[ComponentSolution, ...]:
        """The per-component counts (built on first use from the kernel's flat arrays)."""
        return _component_solutions(self._count)

    @cached_property
    def hidden(self) -> np.ndarray:
        """Cells whose content is unknown: hidden, plus flagged ones unless flags are trusted."""
        return _unknown_mask(self.grid, self.trust_flags)

    def value_distribution(self, cell: tuple[int, int]) -> np.ndarray:
        """Probability of each thing a hidden cell can turn out to be: see :func:`value_distribution`."""
        probabilities, _ = self.reveal_outcomes(cell)
        return probabilities

    def reveal_outcomes(self, cell: tuple[int, int]) -> tuple[np.ndarray, list[BoardAnalysis | None]]:
        """What revealing ``cell`` can show, how likely each is, and the analysis of each resulting position.

        Args:
            cell: (row, col) of a hidden cell (or of an untrusted flag).

        Returns:
            (probabilities of length 10 — index :data:`VALUE_MINE` the mine, index ``1 + v`` the number v —,
            a list of 10 analyses of the position after the reveal, ``None`` where impossible or a mine).
        """
        row, col = cell
        if not self.hidden[row, col]:
            raise ValueError(f"cell {cell} is not hidden, so it has no value distribution")
        distribution = np.zeros(10, np.float64)
        outcomes: list[BoardAnalysis | None] = [None] * 10
        distribution[VALUE_MINE] = self.probabilities[row, col]
        if self.certain_mines[row, col]:
            return distribution, outcomes
        log_weights = np.full(10, -np.inf)
        for value in _possible_values(self.grid, cell, self.trust_flags):
            revealed = self.grid.copy()
            revealed[row, col] = value
            try:
                outcome = analyse(revealed, self.mines, trust_flags=self.trust_flags)
            except InconsistentBoard:
                continue
            outcomes[1 + value] = outcome
            log_weights[1 + value] = outcome.log_layouts
        finite = np.isfinite(log_weights)
        shares = np.exp(log_weights[finite] - log_weights[finite].max())
        # The safe outcomes split the cell's exact safe probability in proportion to their layout counts.
        distribution[finite] = (1.0 - distribution[VALUE_MINE]) * shares / shares.sum()
        return distribution, outcomes


def analyse(grid: np.ndarray, mines: int, *, trust_flags: bool = False) -> BoardAnalysis:
    """Count a position exactly.

    Args:
        grid: observation, integer array (rows, cols) with codes -3..8 (see the module docstring).
        mines: total number of mines on the whole board (shown ones included).
        trust_flags: take flags as mines (True) or as ordinary hidden cells (False).

    Returns:
        The :class:`BoardAnalysis` of the position.

    Raises:
        ValueError: malformed input (dtype, shape, codes, mine count).
        InconsistentBoard: no layout fits; the message says which number or total is at fault.
    """
    board = checked_grid(grid, mines)
    trust = bool(trust_flags)
    counted = count_board(board.ravel(), board.shape[0], board.shape[1], trust, int(mines))
    if counted.status == STATUS_BAD_TOTAL:
        raise InconsistentBoard(_explain_total(int(mines), counted.frontier, counted.combined))
    if counted.status != STATUS_OK:
        raise InconsistentBoard(_explain_numbers(counted.status, counted.bad_cell, board, trust))
    return BoardAnalysis(
        grid=board,
        mines=int(mines),
        trust_flags=trust,
        probabilities=counted.cells.probability.reshape(board.shape),
        certain_safe=counted.cells.safe.reshape(board.shape),
        certain_mines=counted.cells.mine.reshape(board.shape),
        log_layouts=float(counted.combined.log_layouts),
        interior_cells=int(counted.frontier.interior),
        interior_probability=float(counted.combined.interior_probability),
        _count=counted,
    )


def mine_probabilities(grid: np.ndarray, mines: int, *, trust_flags: bool = False) -> np.ndarray:
    """Exact probability that each cell holds a mine, float64 (rows, cols).

    Revealed numbers give 0.0, shown mines (and flags when ``trust_flags``) 1.0. See :func:`analyse` for
    the arguments and errors.
    """
    return analyse(grid, mines, trust_flags=trust_flags).probabilities


def safe_cells_and_probabilities(
    grid: np.ndarray, mines: int, *, trust_flags: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The oracle for env wrappers: (boolean mask of certainly safe hidden cells, mine probabilities)."""
    analysis = analyse(grid, mines, trust_flags=trust_flags)
    return analysis.certain_safe, analysis.probabilities


def value_distribution(
    grid: np.ndarray, mines: int, cell: tuple[int, int], *, trust_flags: bool = False
) -> np.ndarray:
    """Probability that a hidden cell is a mine (index 0) or shows the number v (index 1 + v), v = 0..8.

    Computed exactly: the cell's safe probability is split between the numbers in proportion to the counts
    of layouts of the board with that number revealed there. The ten values sum to 1.
    """
    return analyse(grid, mines, trust_flags=trust_flags).value_distribution(cell)


# ----------------------------------------------------------------------------------------------------------
# Input checks and error messages.
# ----------------------------------------------------------------------------------------------------------


def checked_grid(grid: np.ndarray, mines: int) -> np.ndarray:
    """The grid as the counting kernels take it (C-contiguous int8), or a ValueError saying what is wrong with it
    or with ``mines`` (what :func:`analyse` checks before it counts)."""
    board = _validated_grid(grid)
    _check_mines(board, mines)
    return board


def _validated_grid(grid: np.ndarray) -> np.ndarray:
    """Return the grid as a C-contiguous int8 array, or raise ValueError saying what is wrong with it."""
    array = np.asarray(grid)
    if array.dtype.kind not in "iu":
        raise ValueError(f"grid must hold integers (observation codes), got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[0] < 1 or array.shape[1] < 1:
        raise ValueError(f"grid must be a non-empty 2-D array (rows, cols), got shape {array.shape}")
    if array.size and (array.min() < _LOWEST_CODE or array.max() > _HIGHEST_CODE):
        bad = np.argwhere((array < _LOWEST_CODE) | (array > _HIGHEST_CODE))[0]
        raise ValueError(
            f"grid holds code {array[tuple(bad)]} at {tuple(int(i) for i in bad)}; "
            f"codes are {MINE} (mine), {FLAG} (flag), {HIDDEN} (hidden) and 0..8"
        )
    return np.ascontiguousarray(array, dtype=np.int8)


def _check_mines(board: np.ndarray, mines: int) -> None:
    """Reject a mine count that is not a non-negative integer no larger than the number of cells."""
    if isinstance(mines, bool) or not isinstance(mines, (int, np.integer)):
        raise ValueError(f"mines must be an integer, got {mines!r}")
    if mines < 0:
        raise ValueError(f"mines must be >= 0, got {mines}")
    if mines > board.size:
        raise ValueError(f"mines ({mines}) exceeds the number of cells ({board.size})")


def _unknown_mask(grid: np.ndarray, trust_flags: bool) -> np.ndarray:
    """Cells whose content is still a variable of the count."""
    return (grid == HIDDEN) if trust_flags else ((grid == HIDDEN) | (grid == FLAG))


def _known_mine_mask(grid: np.ndarray, trust_flags: bool) -> np.ndarray:
    """Cells that are mines for sure by their code alone."""
    return ((grid == MINE) | (grid == FLAG)) if trust_flags else (grid == MINE)


def _neighbourhood(grid: np.ndarray, cell: tuple[int, int]) -> tuple[slice, slice]:
    """Slices of the 3x3 block around ``cell``, clipped to the board."""
    r0, r1, c0, c1 = block(cell[0], cell[1], grid.shape[0], grid.shape[1])
    return slice(r0, r1), slice(c0, c1)


def _possible_values(grid: np.ndarray, cell: tuple[int, int], trust_flags: bool) -> range:
    """Numbers a safe ``cell`` can show given its known-mine and unknown neighbours."""
    around = _neighbourhood(grid, cell)
    known = int(_known_mine_mask(grid[around], trust_flags).sum())
    unknown = int(_unknown_mask(grid[around], trust_flags).sum()) - 1  # the cell itself
    return range(known, known + unknown + 1)


def _explain_numbers(status: int, cell_index: int, board: np.ndarray, trust_flags: bool) -> str:
    """Why the numbers alone cannot be satisfied."""
    cell = divmod(cell_index, board.shape[1])
    if status == STATUS_BAD_NUMBER:
        around = _neighbourhood(board, cell)
        known = int(_known_mine_mask(board[around], trust_flags).sum())
        unknown = int(_unknown_mask(board[around], trust_flags).sum())
        return (
            f"the {board[cell]} at {cell} cannot be satisfied: it touches {_count(known, 'known mine')} and "
            f"{_count(unknown, 'hidden cell')}"
        )
    return f"the numbers around {cell} cannot all be satisfied together: no layout of their hidden cells fits"


def _explain_total(mines: int, frontier: Frontier, combined: Combined) -> str:
    """Why the total mine count does not fit the numbers."""
    known, interior = int(frontier.n_known), int(frontier.interior)
    left = mines - known
    if left < 0:
        return f"the total mine count does not fit: {_count(known, 'known mine')} but only {mines} in total"
    frontier_cells = int(frontier.box_size.sum())
    if frontier_cells == 0:
        return (
            f"the total mine count does not fit: {_count(left, 'mine')} left to place on "
            f"{_count(interior, 'hidden cell')}"
        )
    low, high = combined.lowest_total, combined.highest_total
    need = f"exactly {_count(low, 'mine')}" if low == high else f"between {low} and {high} mines"
    others = (
        "no other hidden cell remains" if interior == 0
        else f"the {_count(interior, 'other hidden cell')} can hold at most {interior} more"
    )  # fmt: skip
    return (
        f"the total mine count does not fit: the numbers need {need} on the {_count(frontier_cells, 'hidden cell')} "
        f"they touch and {others}, but {_count(left, 'mine')} {'is' if left == 1 else 'are'} left to place"
    )


def _count(number: int, noun: str) -> str:
    """``number`` and ``noun``, plural unless it is one: "1 mine", "3 mines"."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _component_solutions(count: BoardCount) -> tuple[ComponentSolution, ...]:
    """Cut the kernel's flat per-component arrays into :class:`ComponentSolution` objects."""
    frontier, counts = count.frontier, count.counts
    box_of_cell, box_size = frontier.box_of_cell, frontier.box_size
    cells_by_box = np.argsort(box_of_cell, kind="stable")
    first_box_cell = np.searchsorted(box_of_cell[cells_by_box], 0)
    box_cells = np.split(cells_by_box[first_box_cell:], np.cumsum(box_size)[:-1]) if box_size.size else []
    solutions = []
    for comp in range(counts.lowest.shape[0]):
        boxes = np.flatnonzero(frontier.component_of_box == comp)
        start, stop = counts.weight_start[comp], counts.weight_start[comp + 1]
        rows = [counts.box_row_start[box] for box in boxes]
        solutions.append(
            ComponentSolution(
                boxes=tuple(box_cells[box] for box in boxes),
                lowest=int(counts.lowest[comp]),
                weights=counts.weights[start:stop],
                mine_sums=np.stack([counts.mine_sums[row : row + stop - start] for row in rows]),
                safe_sums=np.stack([counts.safe_sums[row : row + stop - start] for row in rows]),
                log_scale=float(counts.log_scale[comp]),
            )
        )
    return tuple(solutions)

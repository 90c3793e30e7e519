"""Layouts drawn exactly from a position's posterior, and games played out from the position on them.

The exact count (:mod:`mine_env.analysis.probability`) gives each cell's marginal mine chance, not a way to draw
a whole layout. :class:`PosteriorSampler` draws one exactly, as the count weighs layouts (uniform over every
layout with the board's mine total that fits the revealed numbers):

1. each component of the frontier (:attr:`mine_env.analysis.probability.BoardAnalysis.components`) has its
   fitting layouts listed once, by the endgame's depth-first enumeration
   (:func:`agents.solver.endgame.enumerate_layouts`), on the position with every unknown cell outside the
   component shown as a mine (no number touches both, so the component's numbers are unchanged) and the total
   set to each mine count the component can hold;
2. the interior (cells no number touches) holds the remaining mines, each way alike, so a split of the mines
   between components and interior weighs the product of the components' counts times C(interior, rest):
   the per-component mine counts are drawn from these weights (exact integers) backwards through their
   convolution, then one listed layout of each component with its drawn count, uniformly, and the interior
   mines uniformly.

A position whose components have too many layouts to list (:data:`LAYOUT_LIMIT` per mine count) raises
:class:`TooManyLayouts`. :mod:`agents.solver.playouts` plays candidate moves on the drawn layouts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agents.solver.endgame import enumerate_layouts
from mine_env.analysis.probability import analyse
from mine_env.engine.constants import FLAG, HIDDEN, MINE

LAYOUT_LIMIT = 200_000
"""At most this many layouts of one component with one mine count are listed."""


class TooManyLayouts(ValueError):
    """A component of the position has more layouts than :data:`LAYOUT_LIMIT` for one mine count."""


@dataclass(frozen=True)
class ComponentLayouts:
    """The fitting layouts of one frontier component, by mine count."""

    cells: np.ndarray
    """The component's cells (flat indices), the columns of each layout matrix."""
    by_mines: dict[int, np.ndarray]
    """Mine count -> (layouts, cells) uint8 matrix of the layouts holding that many mines."""

    def count(self, mines: int) -> int:
        """How many of the component's layouts hold ``mines`` mines."""
        listed = self.by_mines.get(mines)
        return 0 if listed is None else int(listed.shape[0])


def component_layouts(grid: np.ndarray, mines: int, cells: np.ndarray, lowest: int, highest: int) -> ComponentLayouts:
    """Every fitting layout of the component made of ``cells``, for each mine count in [lowest, highest]."""
    rows, cols = grid.shape
    flat = np.ascontiguousarray(grid, dtype=np.int8).ravel().copy()
    outside = (flat == HIDDEN) | (flat == FLAG)  # unknown cells (flags are not trusted)...
    outside[cells] = False  # ...outside the component
    flat[outside] = MINE
    shown = int((flat == MINE).sum())
    by_mines: dict[int, np.ndarray] = {}
    for count in range(lowest, highest + 1):
        listed_cells, layouts, complete = enumerate_layouts(flat, rows, cols, shown + count, LAYOUT_LIMIT)
        if not complete:
            raise TooManyLayouts(f"a frontier component of {cells.size} cells has over {LAYOUT_LIMIT:,} layouts "
                                 f"with {count} mines: too many to list")  # fmt: skip
        if layouts.shape[0]:
            order = np.argsort(listed_cells)  # the columns in the order of ``cells`` (both ascending)
            by_mines[count] = layouts[:, order]
    return ComponentLayouts(np.sort(cells), by_mines)


class PosteriorSampler:
    """Draws layouts of one position exactly as its exact count weighs them (see the module docstring).

    Args:
        grid: The position, an observation grid (rows, cols); flags are taken as hidden cells.
        mines: The board's mine total.
    """

    def __init__(self, grid: np.ndarray, mines: int) -> None:
        analysis = analyse(grid, mines)  # raises InconsistentBoard when no layout fits
        self.shape = grid.shape
        self.shown = np.flatnonzero(np.asarray(grid).ravel() == MINE)
        self.components = [
            component_layouts(grid, mines, np.concatenate(solution.boxes), solution.lowest,
                              solution.lowest + solution.weights.size - 1)
            for solution in analysis.components
        ]  # fmt: skip
        in_component = np.zeros(grid.size, np.bool_)
        for component in self.components:
            in_component[component.cells] = True
        self.interior = np.flatnonzero(analysis.hidden.ravel() & ~in_component)
        self.left = mines - self.shown.size
        self._prefix = self._prefix_counts()

    def _prefix_counts(self) -> list[dict[int, int]]:
        """``prefix[c][t]``: layouts of the first ``c`` components together holding ``t`` mines (exact integers)."""
        prefix = [{0: 1}]
        for component in self.components:
            step: dict[int, int] = {}
            for total, ways in prefix[-1].items():
                for count, listed in component.by_mines.items():
                    step[total + count] = step.get(total + count, 0) + ways * listed.shape[0]
            prefix.append(step)
        return prefix

    def layout_count(self) -> int:
        """How many layouts fit the position (an exact integer)."""
        return sum(ways * _choose(self.interior.size, self.left - total) for total, ways in self._prefix[-1].items())

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        """One layout (uint8 over the flat board, 1 = mine) drawn exactly from the position's posterior."""
        totals = list(self._prefix[-1].items())
        weights = [ways * _choose(self.interior.size, self.left - total) for total, ways in totals]
        total = drawn = totals[_draw(rng, weights)][0]
        layout = np.zeros(int(np.prod(self.shape)), np.uint8)
        layout[self.shown] = 1
        for c in range(len(self.components) - 1, -1, -1):
            component = self.components[c]
            counts = [count for count in component.by_mines if total - count in self._prefix[c]]
            count = counts[_draw(rng, [component.count(k) * self._prefix[c][total - k] for k in counts])]
            listed = component.by_mines[count]
            layout[component.cells] = listed[rng.integers(listed.shape[0])]
            total -= count
        layout[rng.choice(self.interior, size=self.left - drawn, replace=False)] = 1
        return layout

    def samples(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """``count`` independent layouts, (count, cells) uint8."""
        return np.array([self.sample(rng) for _ in range(count)], np.uint8).reshape(count, int(np.prod(self.shape)))


def _choose(n: int, k: int) -> int:
    """C(n, k), 0 when k lies outside [0, n]."""
    return math.comb(n, k) if 0 <= k <= n else 0


def _draw(rng: np.random.Generator, weights: list[int]) -> int:
    """An index drawn with chance proportional to ``weights`` (non-negative integers, not all 0)."""
    total = sum(weights)
    chances = np.array([weight / total for weight in weights])  # int / int: rounded once, even for huge counts
    return int(rng.choice(chances.size, p=chances / chances.sum()))

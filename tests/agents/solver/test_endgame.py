"""The exact endgame search against a plain-Python search of the same game tree, and against optimal play of the
real game, where a revealed zero opens its neighbours."""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
import pytest

from agents.probability import analyse
from agents.solver.endgame import best_endgame_guess, enumerate_layouts
from mine_env.engine.constants import HIDDEN
from mine_env.engine.rules import neighbour_counts


def brute_layouts(grid: np.ndarray, mines: int) -> list[frozenset[int]]:
    """Every mine set over the hidden cells that reproduces the shown numbers, by trying them all."""
    flat = grid.ravel()
    hidden = np.flatnonzero(flat == HIDDEN)
    found = []
    for mined in itertools.combinations(hidden.tolist(), mines):
        layout = np.zeros(flat.size, bool)
        layout[list(mined)] = True
        counts = neighbour_counts(layout.reshape(grid.shape)).ravel()
        shown = flat >= 0
        if np.array_equal(counts[shown], flat[shown]):
            found.append(frozenset(mined))
    return found


def reference_win_chance(grid: np.ndarray, layouts: list[frozenset[int]]) -> dict[int, float]:
    """Win chance of revealing each hidden cell first and playing on perfectly (the docstring's recursion)."""
    rows, cols = grid.shape
    hidden = np.flatnonzero(grid.ravel() == HIDDEN).tolist()

    def shows(layout: frozenset[int], cell: int) -> int:
        r, c = divmod(cell, cols)
        around = [(rr, cc) for rr in range(r - 1, r + 2) for cc in range(c - 1, c + 2) if (rr, cc) != (r, c)]
        return sum(rr * cols + cc in layout for rr, cc in around if 0 <= rr < rows and 0 <= cc < cols)

    @cache
    def win(subset: frozenset[frozenset[int]]) -> float:
        if len(subset) == 1:
            return 1.0
        free = [cell for cell in hidden if all(cell not in layout for layout in subset)]
        parts: dict[tuple, set] = {}
        for layout in subset:
            parts.setdefault(tuple(shows(layout, cell) for cell in free), set()).add(layout)
        if len(parts) > 1:
            return sum(len(part) * win(frozenset(part)) for part in parts.values()) / len(subset)
        return max((reveal(subset, cell) for cell in hidden if cell not in free), default=0.0)

    def reveal(subset: frozenset[frozenset[int]], cell: int) -> float:
        parts: dict[int, set] = {}
        for layout in subset:
            if cell not in layout:
                parts.setdefault(shows(layout, cell), set()).add(layout)
        return sum(len(part) * win(frozenset(part)) for part in parts.values()) / len(subset)

    everything = frozenset(layouts)
    return {cell: reveal(everything, cell) for cell in hidden}


def seeded_positions(
    seed: int, count: int, shape: tuple[int, int], shown_share: float, most_layouts: int
) -> list[tuple[np.ndarray, int]]:
    """``count`` partly revealed positions of ``shape`` with 4 mines, no certainly safe cell and 2 to
    ``most_layouts`` layouts left (each cell shown with chance ``shown_share`` unless it is a mine)."""
    rng = np.random.default_rng(seed)
    cells = shape[0] * shape[1]
    positions = []
    while len(positions) < count:
        layout = np.zeros(cells, bool)
        layout[rng.choice(cells, 4, replace=False)] = True
        layout = layout.reshape(shape)
        shown = (rng.random(shape) < shown_share) & ~layout
        grid = np.where(shown, neighbour_counts(layout), HIDDEN).astype(np.int8)
        if not analyse(grid, 4).certain_safe.any() and 2 <= math.exp(analyse(grid, 4).log_layouts) <= most_layouts:
            positions.append((grid, 4))
    return positions


def small_positions() -> list[tuple[np.ndarray, int]]:
    """Partly revealed 4x5 positions with a handful of layouts left."""
    return seeded_positions(8, 12, (4, 5), 0.45, 60)


def real_game_win_chance(grid: np.ndarray, layouts: list[frozenset[int]]) -> float:
    """Win chance under optimal play of the real game: a revealed zero opens its region as the engine floods it,
    the game is won once only mines are hidden. A cell safe in every layout left is revealed first, one at a time
    (what it shows is free information, which cannot lower the chance); otherwise every hidden cell is tried."""
    rows, cols = grid.shape
    cells = rows * cols
    around = [[rr * cols + cc for rr in range(r - 1, r + 2) for cc in range(c - 1, c + 2)
               if (rr, cc) != (r, c) and 0 <= rr < rows and 0 <= cc < cols]
              for r in range(rows) for c in range(cols)]  # fmt: skip
    numbers = {layout: neighbour_counts(np.isin(np.arange(cells), list(layout)).reshape(grid.shape)).ravel()
               for layout in layouts}  # fmt: skip
    mines = len(layouts[0])

    def opened(layout: frozenset[int], cell: int, revealed: frozenset[int]) -> frozenset[int]:
        region, stack = set(), [cell]
        while stack:
            here = stack.pop()
            if here in region or here in revealed:
                continue
            region.add(here)
            if numbers[layout][here] == 0:
                stack.extend(next_cell for next_cell in around[here] if next_cell not in layout)
        return frozenset(region)

    @cache
    def win(revealed: frozenset[int], subset: frozenset[frozenset[int]]) -> float:
        if len(subset) == 1 or cells - len(revealed) == mines:
            return 1.0
        hidden = [cell for cell in range(cells) if cell not in revealed]
        safe = [cell for cell in hidden if all(cell not in layout for layout in subset)]
        return reveal(revealed, subset, safe[0]) if safe else max(reveal(revealed, subset, cell) for cell in hidden)

    def reveal(revealed: frozenset[int], subset: frozenset[frozenset[int]], cell: int) -> float:
        seen: dict[tuple, set] = {}
        for layout in subset:
            if cell not in layout:
                region = opened(layout, cell, revealed)
                shown = tuple(int(numbers[layout][here]) for here in sorted(region))
                seen.setdefault((region, shown), set()).add(layout)
        return sum(len(part) * win(revealed | region, frozenset(part))
                   for (region, _), part in seen.items()) / len(subset)  # fmt: skip

    return win(frozenset(np.flatnonzero(grid.ravel() >= 0).tolist()), frozenset(layouts))


def open_positions() -> list[tuple[np.ndarray, int]]:
    """Partly revealed 4x6 positions, fewer cells shown: room for zeros (every one of them can show one)."""
    return seeded_positions(3, 10, (4, 6), 0.35, 80)


@pytest.mark.parametrize(("grid", "mines"), open_positions())
def test_the_endgame_chance_is_that_of_optimal_play_in_the_real_game(grid: np.ndarray, mines: int) -> None:
    # Revealing the cells safe in every layout first and splitting by their numbers is how the search sees a
    # flood: the neighbours of a zero are such cells. So its chance is exact, not a lower bound.
    _, chance = best_endgame_guess(grid.ravel(), *grid.shape, mines, limit=200, work_budget=10_000_000)
    assert chance == pytest.approx(real_game_win_chance(grid, brute_layouts(grid, mines)), abs=1e-12)


@pytest.mark.parametrize(("grid", "mines"), small_positions())
def test_the_endgame_move_has_the_best_win_chance(grid: np.ndarray, mines: int) -> None:
    layouts = brute_layouts(grid, mines)
    unknown, found, complete = enumerate_layouts(grid.ravel(), *grid.shape, mines, limit=100)
    assert complete
    assert {frozenset(unknown[row.astype(bool)].tolist()) for row in found} == set(layouts)
    assert len(found) == round(math.exp(analyse(grid, mines).log_layouts))
    chances = reference_win_chance(grid, layouts)
    cell, chance = best_endgame_guess(grid.ravel(), *grid.shape, mines, limit=100, work_budget=100_000)
    assert chance == pytest.approx(max(chances.values()), abs=1e-12)
    assert chances[cell] == pytest.approx(chance, abs=1e-12)


def test_too_many_layouts_or_too_little_budget_give_up() -> None:
    empty = np.full((5, 5), HIDDEN, np.int8).ravel()
    assert enumerate_layouts(empty, 5, 5, mines=3, limit=100)[2] is False  # C(25, 3) = 2300 layouts
    assert best_endgame_guess(empty, 5, 5, mines=3, limit=100, work_budget=10_000) == (-1, -1.0)
    assert best_endgame_guess(empty, 5, 5, mines=1, limit=100, work_budget=1)[0] == -1  # 25 layouts, little work

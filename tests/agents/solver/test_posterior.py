"""The layout sampler against every layout listed by brute force, and play-outs on its layouts."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from agents.solver import posterior
from agents.solver.guess import PRESETS
from agents.solver.playouts import play_outs
from mine_env.analysis.probability import mine_probabilities
from mine_env.engine.constants import HIDDEN

MINES = 5
LAYOUT = np.zeros((4, 6), np.uint8)
LAYOUT[0, 1] = LAYOUT[1, 0] = LAYOUT[3, 5] = LAYOUT[2, 3] = LAYOUT[0, 4] = 1


def position(revealed: list[tuple[int, int]]) -> np.ndarray:
    """The observation of ``LAYOUT`` with ``revealed`` (safe cells) shown, every other cell hidden."""
    rows, cols = LAYOUT.shape
    padded = np.pad(LAYOUT, 1).astype(np.int64)
    counts = sum(padded[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    grid = np.full(LAYOUT.shape, HIDDEN, np.int8)
    for cell in revealed:
        grid[cell] = counts[cell] - LAYOUT[cell]
    return grid


def brute_force(grid: np.ndarray, mines: int) -> list[tuple[int, ...]]:
    """Every layout (a tuple of mine cells) with ``mines`` mines that fits the numbers of ``grid``."""
    rows, cols = grid.shape
    hidden = np.flatnonzero(grid.ravel() == HIDDEN).tolist()
    fitting = []
    for chosen in itertools.combinations(hidden, mines):
        layout = np.zeros(grid.size, np.int64)
        layout[list(chosen)] = 1
        board = np.pad(layout.reshape(rows, cols), 1)
        counts = sum(board[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
        shown = grid >= 0
        if np.array_equal(counts[shown], grid[shown]):
            fitting.append(chosen)
    return fitting


# two components (top-left, right) and an interior: revealed cells around each
GRID = position([(0, 0), (2, 0), (3, 0), (1, 5), (2, 5), (0, 5)])


def test_the_sampler_counts_the_layouts_brute_force_lists() -> None:
    sampler = posterior.PosteriorSampler(GRID, MINES)
    assert len(sampler.components) == 2 and sampler.interior.size > 0
    assert sampler.layout_count() == len(brute_force(GRID, MINES))


def test_the_sampler_draws_every_listed_layout_equally_often() -> None:
    listed = brute_force(GRID, MINES)
    sampler = posterior.PosteriorSampler(GRID, MINES)
    draws = 40 * len(listed)
    drawn = sampler.samples(np.random.default_rng(7), draws)
    seen = Counter(tuple(np.flatnonzero(layout).tolist()) for layout in drawn)
    assert set(seen) <= set(listed)  # every draw fits the numbers
    expected = draws / len(listed)
    chi_square = sum((seen[layout] - expected) ** 2 / expected for layout in listed)
    dof = len(listed) - 1
    assert chi_square < dof + 5 * np.sqrt(2 * dof)  # the uniform posterior is not rejected
    marginals = np.zeros(GRID.size)
    for layout, times in seen.items():
        marginals[list(layout)] += times / draws
    exact = mine_probabilities(GRID, MINES).ravel()
    error = np.sqrt(exact * (1 - exact) / draws) + 1e-12
    assert np.all(np.abs(marginals - exact) <= 5 * error)


def test_the_same_seed_draws_the_same_layouts() -> None:
    sampler = posterior.PosteriorSampler(GRID, MINES)
    first = sampler.samples(np.random.default_rng(3), 20)
    assert np.array_equal(first, sampler.samples(np.random.default_rng(3), 20))
    assert not np.array_equal(first, sampler.samples(np.random.default_rng(4), 20))


def test_a_component_with_too_many_layouts_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    grid = np.full((5, 5), HIDDEN, np.int8)
    grid[0, 0] = 1  # its mine may lie on any of three cells: three layouts, over a limit of two
    monkeypatch.setattr(posterior, "LAYOUT_LIMIT", 2)
    with pytest.raises(posterior.TooManyLayouts, match="too many to list"):
        posterior.PosteriorSampler(grid, 4)
    monkeypatch.setattr(posterior, "LAYOUT_LIMIT", 3)
    assert posterior.PosteriorSampler(grid, 4).layout_count() == 3 * math.comb(21, 3)  # 21 cells touch no number


def test_a_play_out_loses_on_a_mine_and_plays_a_safe_cell_on() -> None:
    sampler = posterior.PosteriorSampler(GRID, MINES)
    layouts = sampler.samples(np.random.default_rng(0), 30)
    mine_cell = int(np.flatnonzero(layouts[0])[0])
    won, _ = play_outs(GRID, MINES, layouts[:1], mine_cell, PRESETS["fast"], np.uint64(1))
    assert not won[0]
    safe_everywhere = np.flatnonzero((layouts.sum(axis=0) == 0) & (GRID.ravel() == HIDDEN))
    won, _ = play_outs(GRID, MINES, layouts, int(safe_everywhere[0]), PRESETS["fast"], np.uint64(1))
    assert won.any()


def test_a_component_may_hold_more_mines_than_are_left() -> None:
    grid = np.array([[HIDDEN, 1, HIDDEN, 1, HIDDEN, HIDDEN, HIDDEN]], np.int8)  # the middle cell, or both ends
    for mines in (1, 2):
        sampler = posterior.PosteriorSampler(grid, mines)
        assert sampler.layout_count() == len(brute_force(grid, mines))
        drawn = sampler.samples(np.random.default_rng(0), 50)
        assert {tuple(np.flatnonzero(layout)) for layout in drawn} <= set(brute_force(grid, mines))


def test_no_draw_is_an_empty_matrix() -> None:
    assert posterior.PosteriorSampler(GRID, MINES).samples(np.random.default_rng(0), 0).shape == (0, GRID.size)

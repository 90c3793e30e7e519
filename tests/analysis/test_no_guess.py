"""The no-guess generator: checked by brute force (every layout that fits, enumerated), deterministic, bounded,
and refusing what it cannot make with a clear error."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

from mine_env.analysis.no_guess import (
    MAX_DENSITY,
    check_no_guess_board,
    max_no_guess_mines,
    no_guess_layout,
    no_guess_layouts,
)
from mine_env.engine.board import Board
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import protected_cells
from mine_env.engine.layout import neighbour_counts
from mine_env.engine.spec import BoardSpec

# (rows, cols, mines, first cell (row, col), boards): a few hundred small boards in all.
BRUTE_FORCE_CASES = [(5, 5, 4, (2, 2), 120), (5, 6, 4, (0, 0), 100), (6, 6, 5, (1, 1), 80)]


@cache
def every_layout(rows: int, cols: int, mines: int, first_cell: int) -> tuple[np.ndarray, np.ndarray]:
    """Every layout of ``mines`` mines outside the opening block of ``first_cell`` (bool (L, n)) and its
    counts (int8 (L, n)): the plain enumeration the reference deduces from."""
    n = rows * cols
    free = sorted(set(range(n)) - set(protected_cells(rows, cols, "opening", first_cell)))
    layouts = np.zeros((len(list(itertools.combinations(free, mines))), n), dtype=bool)
    for row, chosen in enumerate(itertools.combinations(free, mines)):
        layouts[row, list(chosen)] = True
    counts = np.stack([neighbour_counts(layout.reshape(rows, cols)).ravel() for layout in layouts])
    return layouts, counts


def clears_without_guessing(layout: np.ndarray, first_cell: int) -> bool:
    """Whether revealing only cells that are safe in *every* layout fitting the position (with the mine
    count) clears ``layout`` (bool (rows, cols)) from ``first_cell``: the slow, independent reference."""
    rows, cols = layout.shape
    layouts, counts = every_layout(rows, cols, int(layout.sum()), first_cell)
    board = Board.from_layout(layout, "opening")
    board.reveal(*divmod(first_cell, cols))
    fitting = np.arange(len(layouts))
    while board.status == "playing":
        grid = board.grid.ravel()
        revealed = grid >= 0
        keep = ~layouts[fitting][:, revealed].any(axis=1) & (counts[fitting][:, revealed] == grid[revealed]).all(axis=1)
        fitting = fitting[keep]
        safe = np.flatnonzero((grid == HIDDEN) & ~layouts[fitting].any(axis=0))
        if safe.size == 0:
            return False
        for cell in safe:
            if board.grid.flat[cell] == HIDDEN:
                board.reveal(*divmod(int(cell), cols))
    return board.status == "won"


@pytest.mark.parametrize(("rows", "cols", "mines", "first", "games"), BRUTE_FORCE_CASES)
def test_every_layout_clears_without_a_guess_by_brute_force(rows, cols, mines, first, games) -> None:
    first_cell = first[0] * cols + first[1]
    keys = np.arange(games) * 104_729 + 11
    layouts = no_guess_layouts(rows, cols, mines, keys, np.full(games, first_cell))
    assert (layouts.sum(axis=1) == mines).all()
    for layout in layouts:
        assert clears_without_guessing(layout.reshape(rows, cols).astype(bool), first_cell)


def test_the_reference_finds_the_guesses_of_ordinary_boards() -> None:
    """The brute-force check can fail: many ordinary layouts of the same keys need a guess."""
    rows, cols, mines, first_cell = 6, 6, 5, 7
    needs_guess = 0
    for key in range(60):
        board = Board(BoardSpec(rows, cols, mines, "opening"), key)
        board.step(first_cell)
        needs_guess += not clears_without_guessing(board.layout, first_cell)
    assert needs_guess >= 5


def test_an_ordinary_layout_that_needs_no_guess_is_kept() -> None:
    """The generator starts from the key's ordinary layout and repairs only where play gets stuck."""
    spec = BoardSpec(6, 6, 5, "opening")
    kept = 0
    for key in range(40):
        board = Board(spec, key)
        board.step(7)
        if clears_without_guessing(board.layout, 7):
            assert (no_guess_layout(6, 6, 5, 7, key) == board.layout).all()
            kept += 1
    assert kept >= 10


def test_a_layout_is_a_pure_function_of_key_and_first_cell() -> None:
    first = no_guess_layout(16, 30, 99, 93, 12345)
    assert (no_guess_layout(16, 30, 99, 93, 12345) == first).all()
    assert not (no_guess_layout(16, 30, 99, 93, 12346) == first).all()
    assert not (no_guess_layout(16, 30, 99, 300, 12345) == first).all()
    batch = no_guess_layouts(16, 30, 99, np.array([12345, 12346]), np.array([93, 93]))
    assert (batch[0].reshape(16, 30).astype(bool) == first).all()


def test_the_first_click_opens_a_zero() -> None:
    layout = no_guess_layout(16, 16, 40, 0, 7)
    assert not layout[:2, :2].any()


def test_the_density_limit() -> None:
    assert max_no_guess_mines(16, 30) == int(MAX_DENSITY * (16 * 30 - 9)) == 117
    check_no_guess_board(16, 30, 117, "opening")
    with pytest.raises(ValueError, match=r"118 mines are too dense for no-guess 16x30 boards: at most 117"):
        check_no_guess_board(16, 30, 118, "opening")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((9, 9, 10, "safe"), r"no-guess boards start with the 'opening' rule.*got first_click='safe'"),
        ((9, 9, 10, "none"), r"use first_click='opening'"),
        ((2, 30, 3, "opening"), r"at least 3 rows and 3 columns, got 2x30"),
        ((9, 9, 30, "opening"), r"30 mines are too dense for no-guess 9x9 boards: at most 18"),
    ],
)
def test_boards_it_cannot_make_are_refused(args, message) -> None:
    with pytest.raises(ValueError, match=message):
        check_no_guess_board(*args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((9, 9, 10, 81, 0), r"first cell 81 is outside the 9x9 board's cells 0..80"),
        ((9, 9, 10, 0, -1), r"layout key must lie in \[0, 2\*\*63\)"),
        ((0, 9, 10, 0, 0), r"rows must be between 1 and"),
        ((9, 9, 40, 0, 0), r"40 mines are too dense"),
    ],
)
def test_bad_input_is_refused(args, message) -> None:
    with pytest.raises(ValueError, match=message):
        no_guess_layout(*args)

"""The compiled geometry helpers against the plain statements, on every cell of boards with corners, edges and
single rows or columns; and what each cell code means."""

from __future__ import annotations

import numpy as np
import pytest

from mine_env.engine.constants import FIRST_CLICK_RULES, FLAG, HIDDEN, MINE
from mine_env.engine.geometry import (
    RULE_CODES,
    adjacent,
    block,
    count_around,
    is_covered,
    is_known_mine,
    is_revealed,
    is_unknown,
    neighbours,
    protected_block,
    protected_cells,
    shared_block,
    touches_revealed,
)

SHAPES = [(1, 1), (1, 7), (7, 1), (2, 2), (3, 4), (5, 6)]
"""Board shapes, (rows, cols): a lone cell, a single row and column, boards of corners only, and boards with
edges and an inside."""

CODES = (HIDDEN, FLAG, MINE, *range(9))


def cells_of(r0: int, r1: int, c0: int, c1: int, cols: int) -> list[int]:
    """The flat cells of the rectangle [r0, r1) x [c0, c1), in increasing order."""
    return [r * cols + c for r in range(r0, r1) for c in range(c0, c1)]


def around(cell: int, rows: int, cols: int) -> set[int]:
    """The cell and its neighbours, by the plain :func:`neighbours`."""
    return {cell, *neighbours(cell, rows, cols)}


@pytest.mark.parametrize(("rows", "cols"), SHAPES)
def test_the_block_around_a_cell_is_the_cell_and_its_plain_neighbours(rows: int, cols: int) -> None:
    for cell in range(rows * cols):
        r, c = divmod(cell, cols)
        assert cells_of(*block(r, c, rows, cols), cols) == sorted(around(cell, rows, cols))


@pytest.mark.parametrize(("rows", "cols"), SHAPES)
def test_a_wider_block_holds_every_cell_within_its_reach(rows: int, cols: int) -> None:
    for cell in range(rows * cols):
        r, c = divmod(cell, cols)
        within = [other for other in range(rows * cols) if max(abs(other // cols - r), abs(other % cols - c)) <= 2]
        assert cells_of(*block(r, c, rows, cols, 2), cols) == within


def test_neighbours_are_those_of_the_picture() -> None:
    # A 3x4 board:  0  1  2  3
    #               4  5  6  7
    #               8  9 10 11
    assert neighbours(0, 3, 4) == [1, 4, 5]
    assert neighbours(5, 3, 4) == [0, 1, 2, 4, 6, 8, 9, 10]
    assert neighbours(11, 3, 4) == [6, 7, 10]
    assert neighbours(3, 1, 7) == [2, 4]
    assert neighbours(0, 1, 1) == []


@pytest.mark.parametrize(("rows", "cols"), SHAPES)
def test_adjacency_and_the_shared_block_follow_the_plain_neighbours(rows: int, cols: int) -> None:
    for a in range(rows * cols):
        ra, ca = divmod(a, cols)
        for b in range(rows * cols):
            rb, cb = divmod(b, cols)
            assert adjacent(ra, ca, rb, cb) == (b in around(a, rows, cols))
            shared = sorted(around(a, rows, cols) & around(b, rows, cols))
            assert cells_of(*shared_block(ra, ca, rb, cb, rows, cols), cols) == shared


@pytest.mark.parametrize(("rows", "cols"), SHAPES)
def test_count_around_counts_the_code_on_the_cell_and_its_plain_neighbours(rows: int, cols: int) -> None:
    flat = np.random.default_rng(rows * 10 + cols).choice(np.array(CODES, dtype=np.int8), size=rows * cols)
    for cell in range(rows * cols):
        r, c = divmod(cell, cols)
        for code in CODES:
            expected = sum(int(flat[other] == code) for other in around(cell, rows, cols))
            assert count_around(flat, rows, cols, r, c, code) == expected


@pytest.mark.parametrize(("rows", "cols"), SHAPES)
def test_touches_revealed_looks_for_a_number_on_the_cell_and_its_plain_neighbours(rows: int, cols: int) -> None:
    flat = np.random.default_rng(rows * 10 + cols).choice(np.array(CODES, dtype=np.int8), size=rows * cols)
    for cell in range(rows * cols):
        expected = any(flat[other] >= 0 for other in around(cell, rows, cols))
        assert touches_revealed(flat, rows, cols, cell) == expected


@pytest.mark.parametrize("first_click", FIRST_CLICK_RULES)
@pytest.mark.parametrize(("rows", "cols"), SHAPES)
def test_the_protected_cells_are_none_the_first_cell_or_it_and_its_neighbours(
    rows: int, cols: int, first_click: str
) -> None:
    rule = RULE_CODES[first_click]
    for cell in range(rows * cols):
        expected = {"none": [], "safe": [cell], "opening": sorted(around(cell, rows, cols))}[first_click]
        assert cells_of(*protected_block(rows, cols, rule, cell), cols) == expected
        assert protected_cells(rows, cols, first_click, cell) == expected
    assert cells_of(*protected_block(rows, cols, rule, -1), cols) == []  # no first cell yet: nothing protected
    assert protected_cells(rows, cols, first_click, -1) == []


@pytest.mark.parametrize("trust_flags", [False, True])
def test_what_each_code_means(trust_flags: bool) -> None:
    # code: (unknown, known mine, revealed, covered)
    meaning = {
        HIDDEN: (True, False, False, True),
        FLAG: (not trust_flags, trust_flags, False, True),
        MINE: (False, True, False, True),
        **{count: (False, False, True, False) for count in range(9)},
    }
    for code, expected in meaning.items():
        got = (is_unknown(code, trust_flags), is_known_mine(code, trust_flags), is_revealed(code), is_covered(code))
        assert got == expected, f"code {code}"

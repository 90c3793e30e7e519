"""The deduction kernel: sound against the exact count, and against its reference, the rule agent's rules."""

from __future__ import annotations

import numpy as np

from agents.rules import deduce
from mine_env.analysis.counting import count_position
from mine_env.analysis.deduction import certain_moves, local_safe, number_facts, one_number_safe, two_number_safe
from mine_env.engine.constants import FLAG, HIDDEN
from support import grid_from_rows, random_position


def with_some_flags(grid: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``grid`` flat, with flags on about 15% of its hidden cells (mines and safe cells alike)."""
    flat = grid.ravel().copy()
    flat[(flat == HIDDEN) & (rng.random(flat.size) < 0.15)] = FLAG
    return flat


def test_cells_one_or_two_numbers_clear_are_certainly_safe_and_hidden() -> None:
    rng = np.random.default_rng(5)
    found = 0
    for _ in range(400):
        _, grid = random_position(rng, 7, 9, 12)
        flat = with_some_flags(grid, rng)
        quick = local_safe(flat, 7, 9)
        safe = count_position(flat, 7, 9, 12)[2]
        assert safe[quick].all() and (flat[quick] == HIDDEN).all()
        found += quick.size > 0
    assert found > 100


def test_every_cell_one_number_clears_the_rule_agent_clears_too() -> None:
    rng = np.random.default_rng(7)
    cleared = 0
    for rows, cols, mines in ((7, 9, 12), (9, 9, 10), (5, 6, 9)):
        for _ in range(300):
            _, grid = random_position(rng, rows, cols, mines)
            flat = with_some_flags(grid, rng)
            one_number = np.flatnonzero(one_number_safe(flat, rows, cols, number_facts(flat, rows, cols)))
            assert set(one_number.tolist()) <= deduce(flat.reshape(rows, cols))[0]
            if one_number.size:
                assert local_safe(flat, rows, cols).tolist() == one_number.tolist()
                cleared += 1
    assert cleared > 300


def test_two_numbers_together_clear_what_neither_clears_alone() -> None:
    grid = grid_from_rows(". . . .", "1 1 1 1", "0 0 0 0")
    # The left 1 puts its mine among the first two cells, which the second 1 also sees: its third is safe.
    flat = grid.ravel()
    assert local_safe(flat, 3, 4).tolist() == [1, 2]
    assert not one_number_safe(flat, 3, 4, number_facts(flat, 3, 4)).any()
    assert count_position(flat, 3, 4, 2)[2][:4].tolist() == [False, True, True, False]
    assert deduce(grid)[0] == {1, 2}  # here each pair is a subset: the rule agent's subset rule agrees


def test_the_two_number_rule_clears_what_no_subset_shows() -> None:
    grid = grid_from_rows("2 . .", ". . 1")
    # The 2 sees (0,1), (1,0), (1,1): at least one of its mines lies in (0,1) or (1,1), which the 1 also
    # sees, so (0,2) is safe. Neither number's cells lie inside the other's: the rule agent finds nothing.
    flat = grid.ravel()
    facts = number_facts(flat, 2, 3)
    assert not one_number_safe(flat, 2, 3, facts).any()
    assert np.flatnonzero(two_number_safe(flat, 2, 3, facts)).tolist() == [2]
    assert local_safe(flat, 2, 3).tolist() == [2]
    assert count_position(flat, 2, 3, 2)[2][2]
    assert deduce(grid) == (set(), set())


def test_one_number_marks_a_mine_and_another_clears_beside_it() -> None:
    grid = grid_from_rows("1 . 1 .")  # the first 1 sees one covered cell: a mine, which the second 1 sees too
    flat = grid.ravel()
    facts = number_facts(flat, 1, 4)
    assert facts.mine.tolist() == [False, True, False, False]
    assert (facts.missing[[0, 2]].tolist(), facts.unknown[[0, 2]].tolist()) == ([0, 0], [0, 1])
    assert np.flatnonzero(one_number_safe(flat, 1, 4, facts)).tolist() == [3]
    assert local_safe(flat, 1, 4).tolist() == [3]
    assert deduce(grid) == ({3}, {1})


def test_the_certain_moves_are_deduction_first_else_the_counts_safe_cells() -> None:
    certain = certain_moves.py_func  # the body Python callers run; compiled callers inline the same
    flat = grid_from_rows(". . . .", "1 1 1 1", "0 0 0 0").ravel()
    cells, consistent, probability, _ = certain(flat, 3, 4, 2)
    assert (cells.tolist(), consistent, probability.size) == ([1, 2], True, 0)  # two numbers settle it: no count
    flat = grid_from_rows("1 . . .").ravel()  # the 1's cell is a mine; only the mine count clears the other two
    assert local_safe(flat, 1, 4).size == 0
    cells, consistent, probability, log_layouts = certain(flat, 1, 4, 1)
    assert (cells.tolist(), consistent, probability.tolist(), log_layouts) == ([2, 3], True, [0, 1, 0, 0], 0.0)
    cells, consistent, _, _ = certain(flat, 1, 4, 0)  # no mine in all: nothing fits the 1
    assert (cells.size, consistent) == (0, False)

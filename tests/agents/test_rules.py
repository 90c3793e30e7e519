"""The rule agent: its rules are never wrong, the subset rule, its memory, and its games."""

from __future__ import annotations

import numpy as np

from agents.probability import analyse
from agents.rules import RuleAgent, deduce, deduction_rounds
from support import grid_from_rows, random_position


def test_rule_agent_is_never_wrong_when_it_claims_certainty() -> None:
    rng = np.random.default_rng(3)
    claims = 0
    for _ in range(150):
        layout, grid = random_position(rng, 9, 9, 15)
        probabilities = analyse(grid, 15).probabilities.ravel()
        safe, mines = RuleAgent(seed=0).deduce(grid)
        assert all(probabilities[cell] == 0.0 and not layout.flat[cell] for cell in safe)
        assert all(probabilities[cell] == 1.0 and layout.flat[cell] for cell in mines)
        claims += len(safe) + len(mines)
    assert claims > 100


def test_rule_agent_uses_the_subset_rule() -> None:
    # The left 1 sees {a, b}, the 2 sees {a, b, c}: c must be the 2's second mine.
    grid = grid_from_rows(". . .", "1 2 1", "0 0 0")
    safe, mines = RuleAgent(seed=0).deduce(grid)
    assert mines == {0, 2}
    assert safe == {1}


def test_rule_agent_keeps_its_deduced_mines_until_reset() -> None:
    agent = RuleAgent(seed=0)
    grid = grid_from_rows(". 1 0")
    agent.deduce(grid)
    assert agent.known_mines == {0}
    agent.reset()
    assert agent.known_mines == set()


def test_mines_deduced_before_count_and_flags_are_not_trusted() -> None:
    grid = grid_from_rows(". . F", "1 2 1", "0 0 0")
    assert deduce(grid) == ({1}, {0, 2})  # the flag on (0,2) changes nothing: the rules find it a mine
    # The 2 and the 1 share (0,1) and (1,1); once (0,0) is known to be a mine, the 2's other cells lie
    # inside the 1's and hold its one mine, so (0,2) is safe.
    assert deduce(grid_from_rows(". . .", "2 . 1")) == (set(), set())
    assert deduce(grid_from_rows(". . .", "2 . 1"), known_mines={0}) == ({2}, {0})
    assert deduce(grid_from_rows("X . .", "2 . 1")) == ({2}, {0})


def test_deduction_rounds_give_the_shortest_chain_to_each_safe_cell() -> None:
    # The subset rule makes both corners mines in round 1; only then is the middle cell safe.
    assert deduction_rounds(grid_from_rows(". . .", "1 2 1")) == {1: 2}
    assert deduction_rounds(grid_from_rows("X . .", "2 . 1")) == {2: 1}  # the shown mine is known at once
    assert deduction_rounds(grid_from_rows(". 1 0")) == {}  # a mine proved, no safe cell
    rng = np.random.default_rng(5)
    deeper = 0
    for _ in range(100):
        _, grid = random_position(rng, 9, 9, 15)
        proved = deduction_rounds(grid)
        assert set(proved) == deduce(grid)[0]  # the same fixed point as the agent's rules
        assert all(analyse(grid, 15).probabilities.flat[cell] == 0.0 for cell in proved)
        deeper += any(round_number > 1 for round_number in proved.values())
    assert deeper > 0

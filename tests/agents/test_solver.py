"""The solver agent: its settings record, its count, its refusals and its seeding."""

from __future__ import annotations

import numpy as np
import pytest

from agents.probability import InconsistentBoard, analyse
from agents.seeding import numpy_first_draws
from agents.solver import STRENGTHS, SolverAgent, initial_state, initial_states
from agents.solver.guess import PRESETS
from mine_env.analysis.counting import count_position
from mine_env.engine.board import layout_key
from mine_env.engine.constants import HIDDEN
from support import grid_from_rows, info_for, random_position


def test_the_compiled_count_equals_the_reference_count() -> None:
    rng = np.random.default_rng(3)
    for _ in range(40):
        _, grid = random_position(rng, 7, 9, 12)
        analysis = analyse(grid, 12)
        consistent, probability, safe, log_layouts = count_position(grid.ravel(), 7, 9, 12)
        assert consistent
        np.testing.assert_allclose(probability, analysis.probabilities.ravel(), rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(safe, analysis.certain_safe.ravel())
        assert log_layouts == pytest.approx(analysis.log_layouts, rel=1e-12)


def test_the_compiled_count_reports_an_inconsistent_position() -> None:
    grid = grid_from_rows("3 .", ". .")  # a 3 next to three cells, one mine in all
    assert not count_position(grid.ravel(), 2, 2, 1)[0]
    with pytest.raises(InconsistentBoard, match="does not fit"):
        SolverAgent(seed=0).act(grid, info_for(grid, 1))


def test_a_position_that_does_not_fit_is_refused_even_when_one_number_clears_a_cell() -> None:
    grid = grid_from_rows("1 . 1 .")  # the first 1 makes (0,1) a mine, so (0,3) is safe
    with pytest.raises(InconsistentBoard):
        SolverAgent(seed=0).act(grid, info_for(grid, 3))  # three mines cannot fit in two covered cells


def test_each_strength_plays_its_preset_and_the_keywords_fill_the_record() -> None:
    assert STRENGTHS == ("fast", "standard", "strong")
    for strength in STRENGTHS:
        assert SolverAgent(strength=strength).settings == PRESETS[strength]
    options = {"margin": 0.2, "max_candidates": 5, "endgame_layouts": 0, "pairs_first": False}
    agent = SolverAgent(**options)
    assert agent.settings == PRESETS["strong"]._replace(**options)
    assert [type(value) for value in agent.settings] == [int, float, int, int, bool]  # one compiled type


@pytest.mark.slow
@pytest.mark.statistical
def test_every_strength_wins_most_beginner_games() -> None:
    keys = np.array([layout_key(seed) for seed in range(300)], dtype=np.int64)
    seeds = np.arange(300)
    fast = SolverAgent(strength="fast").play_compiled(9, 9, 10, "safe", keys, seeds)[0].sum()
    strong = SolverAgent(strength="strong").play_compiled(9, 9, 10, "safe", keys, seeds)[0].sum()
    assert 255 <= fast <= 295 and 255 <= strong <= 295  # about 91.5% each; docs/SOLVER.md has the ablation


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"strength": "wild"}, "unknown solver strength"),
        ({"margin": 1.0}, "margin"),
        ({"max_candidates": 0}, "max_cand"),
        ({"endgame_layouts": -1}, "endgame_layouts"),
    ],
)
def test_bad_solver_settings_are_refused(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SolverAgent(**options)


def test_compiled_seeding_equals_numpys_first_draw() -> None:
    edges = [0, 1, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1, 2**63, 2**64 - 1]
    drawn = np.random.default_rng(3).integers(0, 2**64 - 1, size=300, dtype=np.uint64, endpoint=True)
    seeds = edges + [int(seed) for seed in drawn] + list(range(200))
    expected = np.array([initial_state(seed) for seed in seeds], dtype=np.uint64)
    assert (numpy_first_draws(np.array(seeds, dtype=np.uint64)) == expected).all()
    assert (initial_states(seeds) == expected).all()


def test_seeds_outside_the_compiled_range_go_through_numpy() -> None:
    assert initial_states([2**64 + 5, 7]).tolist() == [initial_state(2**64 + 5), initial_state(7)]
    with pytest.raises(ValueError, match="non-negative"):
        initial_states([3, -1])
    with pytest.raises(TypeError):
        initial_states([1.5])


@pytest.mark.parametrize(("first_cell", "message"), [((1,), "pair"), (("a", 2), "pair"), ((1.5, 2), "pair")])
def test_a_malformed_first_cell_is_refused(first_cell: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SolverAgent(first_cell=first_cell)


def test_a_first_cell_off_the_board_is_refused_when_played() -> None:
    agent = SolverAgent(first_cell=(9, 0))
    with pytest.raises(ValueError, match="off the 9x9 board"):
        agent.play_compiled(9, 9, 10, "safe", np.arange(2), range(2))
    grid = np.full((9, 9), HIDDEN, np.int8)
    with pytest.raises(ValueError, match="off the 9x9 board"):
        agent.act(grid, info_for(grid, 10))


def test_one_seed_per_key() -> None:
    with pytest.raises(ValueError, match="one seed per key"):
        SolverAgent().play_compiled(9, 9, 10, "safe", np.arange(3), np.arange(2))

"""The zero start (mine_env.engine.starts, Suite.start, eval --start zero): a uniformly drawn zero cell of a uniform
layout opened for the agent, the same cell for every agent and every way of playing."""

from __future__ import annotations

import numpy as np
import pytest

from eval.agent_specs import resolve_agents
from eval.player import GamePlayer
from eval.suites import Suite, get_suite
from mine_env.engine.starts import zero_start_cell


def test_zero_start_opens_a_zero_cell_drawn_from_the_seed() -> None:
    rng = np.random.default_rng(1)
    mines = (rng.random(81) < 0.12).astype(np.uint8)
    grid = mines.reshape(9, 9)
    padded = np.pad(grid, 1)
    counts = sum(np.roll(np.roll(padded, dr, 0), dc, 1) for dr in (-1, 0, 1) for dc in (-1, 0, 1))[1:-1, 1:-1]
    counts = (counts - grid).ravel()
    cell = zero_start_cell(mines, counts, 7)
    assert mines[cell] == 0 and counts[cell] == 0
    assert zero_start_cell(mines, counts, 7) == cell
    assert len({zero_start_cell(mines, counts, seed) for seed in range(40)}) > 3
    assert zero_start_cell(np.ones(9, np.uint8), np.full(9, 3), 7) == -1


def test_zero_start_suites() -> None:
    suite = get_suite("expert-opening-10k").with_zero_start()
    assert suite == get_suite("expert-zero-10k")
    opening = get_suite("expert-opening-10k")
    assert (suite.first_click, suite.start, suite.base_seed) == ("none", "zero", opening.base_seed)
    assert suite.to_dict()["start"] == "zero"
    with pytest.raises(ValueError, match="needs the 'none' rule"):
        Suite("x", 9, 9, 10, "opening", 5, 0, start="zero")
    with pytest.raises(ValueError, match="unknown start"):
        Suite("x", 9, 9, 10, "none", 5, 0, start="middle")
    with pytest.raises(ValueError, match="no --first-cell"):
        get_suite("beginner-opening-1k").with_first_cell((4, 4)).with_zero_start()



@pytest.mark.parametrize("name", ["solver-fast", "solver"])
def test_compiled_games_open_the_zero_cell_the_env_opens(name: str) -> None:
    suite = get_suite("intermediate-zero-1k")
    agents = resolve_agents([name], suite.spec())
    compiled = GamePlayer(suite, agents, oracle=False).play_games(0, range(16))
    through_env = [GamePlayer(suite, agents, oracle=False).play(0, game) for game in range(16)]
    assert [r.outcome() for r in compiled] == [r.outcome() for r in through_env]
    assert [r.first_action for r in compiled] == [r.first_action for r in through_env]
    assert len({r.first_action for r in compiled}) > 8  # each game its own opening

"""The game player: records through the env, compiled games only for agents that declare them their own."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.solver import SolverAgent
from eval.agent_specs import AgentSpec, resolve_agents
from eval.player import GamePlayer
from eval.suites import Suite

SMALL = Suite("small", 6, 6, 5, "opening", games=12, base_seed=3)


class FirstCellSolver(SolverAgent):
    """A solver subclass that acts otherwise (it guesses the first valid cell) without saying a word."""

    def plan(self, obs: np.ndarray, info: dict[str, Any], valid: np.ndarray) -> list[int]:
        planned = super().plan(obs, info, valid)
        return planned if len(planned) > 1 else [int(valid[0])]


def outcomes(player: GamePlayer, games: range) -> list[tuple[Any, ...]]:
    return [record.outcome() for record in player.play_games(0, games)]


def test_without_the_oracle_its_metrics_are_none_on_either_path() -> None:
    for name in ("random", "solver"):  # played through the env, and in compiled code
        records = GamePlayer(SMALL, resolve_agents([name], SMALL.spec()), oracle=False).play_games(0, range(4))
        assert all(r.guesses is None and r.avoidable_loss is None and r.excess_risk is None for r in records)
        assert [r.game for r in records] == [0, 1, 2, 3] and all(r.agent == name for r in records)


def test_the_solver_plays_the_same_games_compiled_and_through_the_env() -> None:
    agents = resolve_agents(["solver"], SMALL.spec())
    compiled = GamePlayer(SMALL, agents, oracle=False).play_games(0, range(SMALL.games))
    through_env = GamePlayer(SMALL, agents, oracle=True).play_games(0, range(SMALL.games))
    assert [(r.won, r.steps, r.safe_revealed, r.first_action) for r in compiled] == [
        (r.won, r.steps, r.safe_revealed, r.first_action) for r in through_env
    ]
    assert {r.first_action for r in compiled} == {2 * SMALL.cols + 2}  # the opening rule's best cell, (2, 2)


def test_a_subclass_that_acts_otherwise_is_played_through_the_env() -> None:
    agents = [AgentSpec("first-cell", FirstCellSolver)]
    fast = outcomes(GamePlayer(SMALL, agents, oracle=False), range(SMALL.games))
    judged = outcomes(GamePlayer(SMALL, agents, oracle=True), range(SMALL.games))
    assert [o[:8] for o in fast] == [o[:8] for o in judged]  # everything but the oracle metrics
    solver = outcomes(GamePlayer(SMALL, [AgentSpec("first-cell", SolverAgent)], oracle=False), range(SMALL.games))
    assert fast != solver  # had it been played compiled, it would have played the solver's games

"""The agent interface's capability of compiled games: only agents whose compiled games are their own play them."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import CompiledGames, compiled_player
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from agents.rules import RuleAgent
from agents.solver import SolverAgent


class RenamedSolver(SolverAgent):
    """Only a name of its own: it plays the solver's games."""

    name = "renamed"


class OtherPlan(SolverAgent):
    """Plans otherwise: its games are not the solver's compiled ones."""

    def plan(self, obs: np.ndarray, info: dict[str, Any], valid: np.ndarray) -> list[int]:
        return [int(valid[0])]


class OtherPlanDeclared(OtherPlan):
    """Plans otherwise, and says its compiled games are its own anyway (its author's promise)."""

    def plays_compiled_games(self) -> bool:
        return True


def test_the_solver_at_every_setting_plays_its_compiled_games() -> None:
    for name in ("solver", "solver-fast", "solver-standard"):
        agent = make_agent(name, seed=0)
        assert isinstance(agent, CompiledGames) and compiled_player(agent) is agent
    assert compiled_player(RenamedSolver()) is not None


def test_a_subclass_that_changes_how_it_acts_plays_through_the_env_unless_it_says_otherwise() -> None:
    assert compiled_player(OtherPlan()) is None
    assert compiled_player(OtherPlanDeclared()) is not None


def test_agents_without_compiled_games_have_none() -> None:
    for agent in (RandomAgent(seed=0), RuleAgent(seed=0)):
        assert not isinstance(agent, CompiledGames) and not agent.plays_compiled_games()
        assert compiled_player(agent) is None

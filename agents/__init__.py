"""Minesweeper policies: the shared :class:`Agent` interface and the agents that play through it.

``RandomAgent`` (uniform valid reveals), ``RuleAgent`` (the classic hand rules) and ``SolverAgent`` (exact
mine probabilities; its decisions are the subpackage :mod:`agents.solver`); the oracle that judges a move and
its env wrappers; saved networks as agents in :mod:`agents.networks` (the model format and its player,
:mod:`agents.networks.player`). The battle AIs are the battle package's (:mod:`battle.players`). What a position
means (the exact analysis) lies below, in :mod:`mine_env.analysis`.
"""

from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.rules import RuleAgent
from agents.solver import SolverAgent
from mine_env.engine.compilation import announce_compiles

# The first compile of the agents' own kernels says so on stderr (the analysis announces its own groups).
announce_compiles("agents", "the solver's kernels", "a few seconds")
announce_compiles("agents.solver.guess.choose_guess", "the solver's guess kernels", "about 15 s")
announce_compiles("agents.seeding", "the solver's whole-game kernels", "up to about 40 s")
announce_compiles("agents.solver.games", "the solver's whole-game kernels", "up to about 40 s")

__all__ = ["Agent", "RandomAgent", "RuleAgent", "SolverAgent"]

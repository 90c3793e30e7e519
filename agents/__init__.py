"""Minesweeper policies: the shared :class:`Agent` interface and the three baselines.

``RandomAgent`` (uniform valid reveals), ``RuleAgent`` (the classic hand rules) and ``SolverAgent`` (exact
mine probabilities, :mod:`agents.analysis.probability`).
"""

from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.rules import RuleAgent
from agents.solver import SolverAgent

__all__ = ["Agent", "RandomAgent", "RuleAgent", "SolverAgent"]

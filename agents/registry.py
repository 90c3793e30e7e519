"""Baseline agents by name, for the command line and the evaluation runner."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from agents.base import Agent
from agents.guess_value import GuessValueAgent
from agents.random_agent import RandomAgent
from agents.rules import RuleAgent
from agents.solver import SolverAgent

AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "rules": RuleAgent,
    "solver": SolverAgent,
    "solver-standard": partial(SolverAgent, strength="standard"),
    "solver-fast": partial(SolverAgent, strength="fast"),
    "guess-value": GuessValueAgent,
}
"""``solver`` plays at the ``strong`` setting; ``solver-standard`` and ``solver-fast`` are the cheaper settings.
``guess-value`` plays every certainly safe cell and guesses the tied safest cell of highest value by a head learnt
from returns (:mod:`agents.guess_value`)."""

SOLVER_AGENTS = frozenset({"solver", "solver-standard", "solver-fast"})
"""The names that play with the solver's compiled kernels (their first move waits for the one-time compile)."""


def make_agent(name: str, seed: int | None = None) -> Agent:
    """A baseline agent by name; ValueError naming the known ones otherwise."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; expected one of {', '.join(sorted(AGENTS))}")
    return AGENTS[name](seed=seed)

"""Baseline agents by name, for the command line and the evaluation runner."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.guess_value import FEATURES, GuessValueAgent
from agents.random_agent import RandomAgent
from agents.rules import RuleAgent
from agents.solver import SolverAgent
from agents.solver.search import QUICK, SearchAgent
from agents.solver_value import SHORTLIST_FEATURES, SolverValueAgent

AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "rules": RuleAgent,
    "solver": SolverAgent,
    "solver-standard": partial(SolverAgent, strength="standard"),
    "solver-fast": partial(SolverAgent, strength="fast"),
    "guess-value": GuessValueAgent,
    "solver-search": SearchAgent,
    "solver-search-quick": partial(SearchAgent, search=QUICK),
}
"""``solver`` plays at the ``strong`` setting; ``solver-standard`` and ``solver-fast`` are the cheaper settings.
``guess-value`` plays every certainly safe cell and guesses the tied safest cell of highest value by a head learnt
from returns (:mod:`agents.guess_value`). ``solver-search`` is ``solver`` with a decision-time search at its guesses:
its candidates played on to the end on layouts drawn from the position's posterior (:mod:`agents.solver.search`;
tens of seconds a game on expert); ``solver-search-quick`` looks at a quarter of the layouts."""

SOLVER_AGENTS = frozenset({"solver", "solver-standard", "solver-fast", "solver-search", "solver-search-quick"})
"""The names that play with the solver's compiled kernels (their first move waits for the one-time compile)."""


def make_agent(name: str, seed: int | None = None) -> Agent:
    """A baseline agent by name; ValueError naming the known ones otherwise."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; expected one of {', '.join(sorted(AGENTS))}")
    return AGENTS[name](seed=seed)


HEAD_AGENTS: dict[int, type[GuessValueAgent] | type[SolverValueAgent]] = {
    FEATURES: GuessValueAgent,
    SHORTLIST_FEATURES: SolverValueAgent,
}
"""The agent that plays a learnt value head, by the head's inputs a candidate."""


def head_agent_class(head: str | Path) -> type[GuessValueAgent] | type[SolverValueAgent]:
    """The agent of a value head's kind (``guess-value`` or ``solver-value``), read from its first layer's width;
    FileNotFoundError or ValueError saying what is wrong with anything else."""
    path = Path(head)
    if not path.is_file():
        raise FileNotFoundError(f"no value head at {path}: train one with `python -m train.distill.guess.value`")
    try:
        with np.load(path) as saved:
            inputs = saved["weight_0"].shape[0]
    except (OSError, ValueError, KeyError):
        raise ValueError(f"{path} is not a value head (.npz with weight_0, bias_0, ...)") from None
    if inputs not in HEAD_AGENTS:
        raise ValueError(f"the head at {path} takes {inputs} inputs a candidate; the value heads take "
                         f"{FEATURES} (guess-value) or {SHORTLIST_FEATURES} (solver-value)")  # fmt: skip
    return HEAD_AGENTS[inputs]

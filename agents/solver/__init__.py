"""The exact-probability solver: its decisions on the analysis of what a position means, and the agent.

The analysis below (:mod:`mine_env.analysis`) says what a position means: the exact count, the cells one
or two numbers prove safe, the certain moves (:func:`mine_env.analysis.deduction.certain_moves`), no-guess
layouts. This package decides what to play from it, in layers, each importing only those under it
(pyproject.toml's import contracts):

* :mod:`~agents.solver.reference`: the ``standard`` policy restated in plain Python, for the tests;
* :mod:`~agents.solver.agent`: :class:`SolverAgent` (and :class:`PlannedMovesAgent`, the first click and a
  plan played in order, which the reference shares), the player through the env and in whole compiled games;
* :mod:`~agents.solver.search`: :class:`~agents.solver.search.SearchAgent` (``solver-search``), the solver with a
  decision-time search at its guesses, candidates raced by play-outs;
* :mod:`~agents.solver.games` (whole games in compiled code), :mod:`~agents.solver.guess_ahead` (the
  guess's count-free kernels, compiled ahead on a cold cache) and :mod:`~agents.solver.playouts` (a candidate
  move played on to the game's end on given layouts, in compiled code);
* :mod:`~agents.solver.guess`: the guess by strength, and :func:`~agents.solver.guess.decide`, the certain
  moves first; :mod:`~agents.solver.posterior`: layouts drawn exactly from a position's posterior;
* their parts: :mod:`~agents.solver.outlook` (what revealing a cell leads to: the next positions, forced
  50/50s, the long-term 50/50 risk) and :mod:`~agents.solver.endgame` (the exact search once few layouts
  remain).

``from agents.solver import SolverAgent`` is the public path (as is ``from agents import SolverAgent``).
"""

from agents.solver.agent import (
    DEFAULT_STRENGTH,
    STRENGTHS,
    PlannedMovesAgent,
    SolverAgent,
    first_click_cell,
    initial_state,
    initial_states,
)

__all__ = [
    "DEFAULT_STRENGTH",
    "STRENGTHS",
    "PlannedMovesAgent",
    "SolverAgent",
    "first_click_cell",
    "initial_state",
    "initial_states",
]

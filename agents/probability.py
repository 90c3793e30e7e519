"""Exact mine probabilities for a Minesweeper observation: the public face of :mod:`mine_env.analysis.probability`.

``from agents.probability import mine_probabilities, analyse`` is the documented entry point (the public
contract); the implementation lives in the analysis layer.
"""

from mine_env.analysis.probability import (
    VALUE_MINE,
    BoardAnalysis,
    ComponentSolution,
    InconsistentBoard,
    analyse,
    mine_probabilities,
    safe_cells_and_probabilities,
    value_distribution,
)

__all__ = [
    "VALUE_MINE",
    "BoardAnalysis",
    "ComponentSolution",
    "InconsistentBoard",
    "analyse",
    "mine_probabilities",
    "safe_cells_and_probabilities",
    "value_distribution",
]

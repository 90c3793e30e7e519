"""Saved models as battle players: the tournament's ``model:PATH`` agents.

A battle model is a saved model (:mod:`agents.networks.player`: its card and the weights of the model format)
whose network reads the single-player ``grid`` observation, as :mod:`battle.training` trains and saves them: the
battle view is shown to it as a single-player grid (:func:`battle.rules.analysis_grid`, every claimed
mine a shown mine), and it plays the hidden cell it prefers most (:class:`agents.networks.player.ModelAgent`,
greedy over the valid reveals; it never bombs). Loading, the card's checks and the clear errors are
:func:`agents.networks.player.load_model_agent`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.networks.player import ModelAgent, load_model_agent
from battle.players import BATTLE_AGENTS, BattleAgent, make_battle_agent
from battle.rules import BattleSpec, analysis_grid
from mine_env.engine.spec import BoardSpec

MODEL_PREFIX = "model:"
"""An agent spec ``model:PATH`` names the saved model at PATH (the ``.zip`` suffix may be left out)."""

_LOADED: dict[tuple[str, int, int], ModelAgent] = {}
"""Models already loaded in this process, by (path, rows, cols): a tournament plays thousands of games."""


class BattleModelAgent(BattleAgent):
    """A saved policy as a battle player: its favourite hidden cell of the battle view read as a grid."""

    def __init__(self, model: ModelAgent, spec_name: str) -> None:
        super().__init__(0)
        self.model = model
        self.name = spec_name

    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        grid = analysis_grid(obs["observation"])
        mask = np.asarray(obs["action_mask"])[: grid.size]
        return self.model.act(grid, {"action_mask": mask})


def load_battle_model(spec_name: str, spec: BattleSpec) -> ModelAgent:
    """The model of ``model:PATH`` for boards of ``spec``, loaded once per process.

    Raises:
        ValueError: no path, no such file, or a model that cannot be loaded or cannot read the board.
    """
    path = spec_name[len(MODEL_PREFIX) :]
    if not path:
        raise ValueError("model: needs a path or a shipped model's name, as in --agent model:maskable-ppo-battle")
    key = (path, spec.rows, spec.cols)
    if key not in _LOADED:
        board = BoardSpec(spec.rows, spec.cols, min(spec.mines, spec.n_cells - 1), "none")
        try:
            _LOADED[key] = load_model_agent(Path(path), board)
        except FileNotFoundError as error:
            raise ValueError(f"{spec_name}: {error}") from None
    return _LOADED[key]


def is_known_agent(name: str) -> bool:
    """Whether ``name`` is a battle agent's name or a ``model:PATH`` spec."""
    return name in BATTLE_AGENTS or name.startswith(MODEL_PREFIX)


def battle_player(name: str, seed: int | None, spec: BattleSpec) -> BattleAgent:
    """The player an agent spec names: a battle AI of :data:`battle.players.BATTLE_AGENTS`, or ``model:PATH``."""
    if name.startswith(MODEL_PREFIX):
        return BattleModelAgent(load_battle_model(name, spec), name)
    return make_battle_agent(name, seed)

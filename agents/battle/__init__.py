"""Battle minesweeper's players, in one home: the AIs, how they read a position, and the values they choose by.

``players`` holds the :class:`BattleAgent` interface, the four AIs by name (:data:`BATTLE_AGENTS`) and
:func:`play_battle`, one game between two of them on the engine; ``position`` reads a position (its exact
count and the outcomes of every click, in one compiled call); ``values`` holds the values the AIs choose by
in Python (the reference) and ``search`` the same formulas compiled. The rules are the engine's
(:mod:`mine_env.engine.battle`), the outcome counts the analysis's (:mod:`mine_env.analysis.battle`).
Single-player code never imports this package (a contract in pyproject.toml).
"""

from agents.battle.players import (
    BATTLE_AGENTS,
    BOMB_MARGIN,
    BattleAgent,
    ContestBattleAgent,
    GreedyBattleAgent,
    LookaheadBattleAgent,
    RandomBattleAgent,
    bomb_expectations,
    make_battle_agent,
    play_battle,
    seat_observation,
    shared_component_store,
)

__all__ = [
    "BATTLE_AGENTS",
    "BOMB_MARGIN",
    "BattleAgent",
    "ContestBattleAgent",
    "GreedyBattleAgent",
    "LookaheadBattleAgent",
    "RandomBattleAgent",
    "bomb_expectations",
    "make_battle_agent",
    "play_battle",
    "seat_observation",
    "shared_component_store",
]

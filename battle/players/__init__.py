"""Battle minesweeper's players, in one home: the AIs, how they read a position, and the values they choose by.

``agents`` holds the :class:`BattleAgent` interface, the four AIs by name (:data:`BATTLE_AGENTS`) and
:func:`play_battle`, one game between two of them on the rules; ``position`` reads a position (its exact
count and the outcomes of every click, in one compiled call); ``values`` holds the values the AIs choose by
in Python (the reference) and ``search`` the same formulas compiled. The rules are
:mod:`battle.rules`, the outcome counts :mod:`battle.counting`; ``warm_up`` compiles the AIs' kernels ahead.
"""

from battle.players.agents import (
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

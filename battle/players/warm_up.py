"""Compile the battle AIs' kernels before they are needed (the single-player warm-up is :mod:`agents.warm_up`)."""

from __future__ import annotations

import time

from battle.players.agents import make_battle_agent, play_battle
from battle.rules import BattleSpec


def warm_up_battle() -> float:
    """Compile (or load from the cache) the kernels the contest and look-ahead AIs call, with the bomb rule on:
    one whole small game between them; returns the seconds it took."""
    start = time.perf_counter()
    players = (make_battle_agent("lookahead", 0), make_battle_agent("contest", 0))
    play_battle(BattleSpec(6, 6, 9, bomb=True), 0, players)
    return time.perf_counter() - start

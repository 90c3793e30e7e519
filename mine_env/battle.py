"""Battle minesweeper's PettingZoo env at its public path: ``env()``, ``raw_env``, ``parallel_env()``.

The two-player game lives in one package, :mod:`battle` (rules, counting, env, players, tournament, self-play);
its env is :mod:`battle.env`. This module is where shared/CONTRACT.md says the env is, and stays the documented
way to reach it (``from mine_env import battle``): a public face that re-exports the env, not a deprecated alias.
It is the one module of :mod:`mine_env` that imports the battle package, named as such in pyproject.toml's
import contracts. PettingZoo is an optional dependency (the ``battle`` extra): importing :mod:`mine_env` does not
import this module.
"""

from battle.env import AGENTS, CLAIM_CHARS, CLAIM_COLOURS, env, parallel_env, raw_env

__all__ = ["AGENTS", "CLAIM_CHARS", "CLAIM_COLOURS", "env", "parallel_env", "raw_env"]

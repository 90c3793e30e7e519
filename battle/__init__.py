"""Battle minesweeper, two players on one board, in one package (the way PettingZoo keeps a game in one folder).

From the bottom up, each sub-package imports only those below it (a layers contract in pyproject.toml):

- :mod:`battle.rules`: the game itself (turns, claimed mines, the bomb), on the single-player engine.
- :mod:`battle.counting`: what a click's outcomes are, counted by the single-player exact count through a store
  of components (the same floats, less work).
- :mod:`battle.env`: the PettingZoo AEC env (its public path is :mod:`mine_env.battle`; needs the ``battle`` extra).
- :mod:`battle.players`: the AIs, how they read a position, and one game between two of them.
- :mod:`battle.tournament`: the seeded tournament, saved models as its players.
- :mod:`battle.training`: self-play, with SB3 (``python -m battle.training``) and under RLlib.

The package sits on the single-player packages (mine_env, agents, eval, train); the command line sits on it.
Single-player code never imports it, save the public face :mod:`mine_env.battle` (docs/ARCHITECTURE.md).
Importing this package imports nothing else: each sub-package loads when asked for.
"""

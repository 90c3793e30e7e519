"""Battle minesweeper's self-play, the training layer's one home of battle: with SB3 (:mod:`train.battle.sb3`,
run as ``python -m train.battle``) and under RLlib (:mod:`train.battle.rllib`, on :mod:`train.rllib`).

This package was the module of the SB3 self-play before: its names (``train.battle.main``, ...) still come from
there, with a DeprecationWarning.
"""

from train.moved import forward_names

__getattr__ = forward_names(__name__, "train.battle.sb3")

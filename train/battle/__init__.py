"""Battle minesweeper's self-play, the training layer's one home of battle: with SB3 (:mod:`train.battle.sb3`,
run as ``python -m train.battle``) and under RLlib (:mod:`train.battle.rllib`, on :mod:`train.rllib`).
"""

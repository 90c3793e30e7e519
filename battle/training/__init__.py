"""Battle minesweeper's self-play: with SB3 (:mod:`battle.training.sb3`, run as ``python -m battle.training``) and
under RLlib (:mod:`battle.training.rllib`, on :mod:`train.rllib`)."""

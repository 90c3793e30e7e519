"""Training scripts: DQN, PPO and MaskablePPO on Minesweeper with stable-baselines3 and sb3-contrib.

One readable file per algorithm (:mod:`train.dqn`, :mod:`train.ppo`, :mod:`train.maskable_ppo`), on the
shared pieces in :mod:`train.common` (config, command line, run directory, evaluation), :mod:`train.networks`
(the fully convolutional networks) and :mod:`train.vec_env` (the batched engine as an SB3 VecEnv).
"""

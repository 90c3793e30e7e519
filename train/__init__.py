"""Training scripts: DQN, PPO and MaskablePPO on Minesweeper with stable-baselines3 and sb3-contrib.

One readable file per algorithm (:mod:`train.dqn`, :mod:`train.ppo`, :mod:`train.maskable_ppo`), on the
shared pieces: :mod:`train.options` and :mod:`train.run_config` (the settings), :mod:`train.command_line`,
:mod:`train.sb3_training` (the run directory and the training loop with resume), :mod:`train.evaluation`,
:mod:`train.networks` (the fully convolutional networks) and :mod:`train.vec_env` (the batched engine as an SB3
VecEnv). The oracle's distillation is :mod:`train.distill` on :mod:`train.distill_config`,
:mod:`train.distill_losses`, :mod:`train.distill_network` and :mod:`train.distill_trainer`.
"""

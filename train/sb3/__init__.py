"""DQN, PPO and MaskablePPO with stable-baselines3 and sb3-contrib.

One script per algorithm (:mod:`train.sb3.dqn`, :mod:`train.sb3.ppo`, :mod:`train.sb3.maskable_ppo`) on
:mod:`train.sb3.run_config` (their shared settings), :mod:`train.sb3.training` (the run directory and the training
loop with resume), :mod:`train.sb3.checkpoints`, :mod:`train.sb3.evaluation` (the win-rate callback, the saved
model with its card), :mod:`train.sb3.export` (the model format), :mod:`train.sb3.networks` (the fully
convolutional networks as SB3 policies), :mod:`train.sb3.vec_env` (the batched engine as an SB3 VecEnv),
:mod:`train.sb3.warm_start` (``--init``: a distilled network's card and weights) and :mod:`train.sb3.mine_head`.
"""

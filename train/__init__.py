"""Training, one folder per method, on a few shared helpers.

- :mod:`train.sb3`: DQN, PPO and MaskablePPO with stable-baselines3 and sb3-contrib (one script per algorithm,
  the training loop with resume, the checkpoints, the networks as SB3 policies, the batched VecEnv, ``--init``
  from a distilled network, the export to the model format).
- :mod:`train.distill`: the oracle distilled into a network, in rounds (:mod:`train.distill.rounds`, run as
  ``python -m train.distill``) or streamed (:mod:`train.distill.stream`), grown, and taught to prefer guesses.
- :mod:`train.rllib`: the env and the network under RLlib, and its PPO script (:mod:`train.rllib.ppo`).

Battle minesweeper's self-play is the battle package's (:mod:`battle.training`), on this package.

The shared helpers stay here: :mod:`train.options` (the settings' fields and board options),
:mod:`train.command_line` (the options from the command line), :mod:`train.progress_log` (the progress CSV and
line), :mod:`train.plot_curves` (its figure).
"""

"""The oracle distilled into a network: the plain torch networks of :mod:`agents.networks`, trained directly.

One sub-package per pipeline, on the pieces they share:

- :mod:`train.distill.rounds`: collect, then train, in rounds on one machine (``python -m train.distill.rounds``,
  ``minesweeper train distill``);
- :mod:`train.distill.stream`: collect and train at once, streamed to a GPU (``python -m train.distill.stream``);
- :mod:`train.distill.guess`: the heads taught the guesses of a distilled network (``python -m
  train.distill.guess.preference``, ``python -m train.distill.guess.value``).

Shared: the oracle's labels (:mod:`train.distill.labels`), the positions and their dataset
(:mod:`train.distill.data`), the solver's guess positions (:mod:`train.distill.guesses`), the losses
(:mod:`train.distill.losses`), the network built, started, read and saved in the model format
(:mod:`train.distill.network`, :mod:`train.distill.saved`) and grown (:mod:`train.distill.grow`).
"""

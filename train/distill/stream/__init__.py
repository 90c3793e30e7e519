"""Distillation on a stream of positions, for a GPU beside many CPU cores, in a wall-clock budget.

:mod:`train.distill.stream.run` (the script, ``python -m train.distill.stream``) on its settings
(:mod:`train.distill.stream.config`), its optimiser steps and checkpoints (:mod:`train.distill.stream.trainer`), the
worker processes and the ring of positions (:mod:`train.distill.stream.data`), the held-out positions of its progress
log (:mod:`train.distill.stream.held_out`), the levers (:mod:`train.distill.stream.levers`, with the scattered boards
of :mod:`train.distill.stream.scattered`) and the weights' moving average (:mod:`train.weight_average`).
"""

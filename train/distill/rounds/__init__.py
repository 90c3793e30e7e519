"""Distillation in rounds on one machine's CPU: collect labelled positions, then train on all of them, again.

:mod:`train.distill.rounds.run` (the script, ``python -m train.distill.rounds``) on its settings
(:mod:`train.distill.rounds.config`) and its minibatches and optimiser steps (:mod:`train.distill.rounds.trainer`).
"""

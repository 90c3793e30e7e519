"""The oracle distilled into a network: ``python -m train.distill`` runs :mod:`train.distill.rounds`.

In rounds (:mod:`train.distill.rounds` on :mod:`train.distill.config`, :mod:`train.distill.data`,
:mod:`train.distill.labels`, :mod:`train.distill.guesses`, :mod:`train.distill.losses`,
:mod:`train.distill.network` and :mod:`train.distill.trainer`) or streamed to a GPU (:mod:`train.distill.stream`
on :mod:`train.distill.stream_config` and :mod:`train.distill.stream_data`); a network grown into a larger one
(:mod:`train.distill.grow`), the iterated trunk (:mod:`train.distill.iterated_trunk`) and the guess-preference head
(:mod:`train.distill.guess_preference`, taught the solver's guesses or, by reinforcement, the Monte-Carlo returns
of :mod:`train.distill.guess_returns`). The networks are MaskablePPO models of :mod:`train.sb3`.
"""

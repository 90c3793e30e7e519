"""What a distilled network learns about guesses, after its chances: the heads trained on the true guesses.

- :mod:`train.distill.guess.preference`: the guess-preference head of a distilled network, taught the default
  solver's guesses or, by reinforcement, the returns of :mod:`train.distill.guess.returns`;
- :mod:`train.distill.guess.returns`: the Monte-Carlo returns of the nearly safest cells at a true guess;
- :mod:`train.distill.guess.value`: the small value head of :mod:`agents.guess_value` on those returns.
"""

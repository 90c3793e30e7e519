"""The analysis of a position: exact mine probabilities, safe-cell deduction, look-ahead, endgame search.

Built on the board engine only; the agents (and through them the oracle wrappers and eval) build on it.
"""

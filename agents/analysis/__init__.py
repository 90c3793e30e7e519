"""The analysis of a position: exact mine probabilities, safe-cell deduction, look-ahead, endgame search.

Built on the board engine only; the agents (and through them the oracle wrappers and eval) build on it.
The first compile of these kernels in a process says so on stderr (:mod:`mine_env.engine.compilation`).
"""

from mine_env.engine.compilation import announce_compiles

announce_compiles("agents", "the solver's kernels", "about half a minute")
announce_compiles("agents.analysis.counting", "the exact-probability kernels", "about 10 s")

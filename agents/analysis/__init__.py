"""The analysis of a position: exact mine probabilities, safe-cell deduction, look-ahead, endgame search.

Built on the board engine only; the agents (and through them the oracle wrappers and eval) build on it.
The first compile of these kernels in a process says so on stderr (:mod:`mine_env.engine.compilation`),
by group: the exact count, the certain moves, the guess (compiled only when a game first needs a guess),
the no-guess board generator and whole compiled games, each with its cold compile time on the 2-core
development machine (docs/COLD_START.md, docs/NO_GUESS.md).
"""

from mine_env.engine.compilation import announce_compiles

announce_compiles("agents", "the solver's kernels", "a few seconds")
announce_compiles("agents.analysis.counting", "the exact-probability kernels", "about 10 s")
announce_compiles("agents.analysis.guess.choose_guess", "the solver's guess kernels", "about 15 s")
announce_compiles("agents.analysis.no_guess", "the no-guess board generator", "about 30 s")
announce_compiles("agents.analysis.outcomes", "the battle AIs' outcome counts", "about 10 s")
announce_compiles("agents.seeding", "the solver's whole-game kernels", "up to about 40 s")
announce_compiles("agents.solver_games", "the solver's whole-game kernels", "up to about 40 s")

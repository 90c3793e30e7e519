"""What a position means: exact mine probabilities, the cells deduction proves safe, the certain moves.

The second layer of :mod:`mine_env`: built on the engine alone (:mod:`mine_env.engine`), under the kinds of
board (:mod:`mine_env.boards`, whose no-guess layouts :mod:`mine_env.analysis.no_guess` makes) and the envs;
the agents, the oracle and eval build on it (what to play when nothing is certain is the solver's,
:mod:`agents.solver`). Battle minesweeper counts through it too, with a store of components
(:mod:`battle.counting`).

The first compile of these kernels in a process says so on stderr (:mod:`mine_env.engine.compilation`),
by group: the exact count, the certain moves, the no-guess board generator, each with its cold compile time
on the 2-core development machine (docs/COLD_START.md, docs/NO_GUESS.md).
"""

from mine_env.engine.compilation import announce_compiles

announce_compiles("mine_env.analysis", "the solver's kernels", "a few seconds")
announce_compiles("mine_env.analysis.counting", "the exact-probability kernels", "about 10 s")
announce_compiles("mine_env.analysis.no_guess", "the no-guess board generator", "about 30 s")

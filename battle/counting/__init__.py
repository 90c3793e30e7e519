"""What a click's outcomes are in battle minesweeper, counted by the single-player count through a store.

``outcomes`` counts, in one compiled call, every outcome of clicking each cell (the number it shows, or a
mine); ``component_store`` keeps the process's counted components by their local form, so that a component
a click leaves unchanged is taken from it; ``stored_counting`` is the exact count of
:mod:`mine_env.analysis.counting` given that store (the same floats); ``open_number`` counts the one
component a click changes and stores it.

The first compile of the outcome counts in a process says so on stderr (:mod:`mine_env.engine.compilation`).
"""

from mine_env.engine.compilation import announce_compiles

announce_compiles("battle.counting.outcomes", "the battle AIs' outcome counts", "about 10 s")

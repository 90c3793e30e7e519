"""What a click's outcomes are in battle minesweeper: every number it may show, or a mine, counted exactly.

``outcomes`` counts, in one compiled call, every outcome of clicking each cell, with the single-player count
(:func:`~mine_env.analysis.counting.count_board`) or, faster, with its component stage given a store of counted
components (:mod:`mine_env.analysis.component_store`, :mod:`mine_env.analysis.stored_components`): a component
a click leaves unchanged is taken from the store, and the one it changes is counted for all the numbers the cell
may show in one programme (:mod:`mine_env.analysis.open_number`). The same floats either way.

The first compile of the outcome counts in a process says so on stderr (:mod:`mine_env.engine.compilation`).
"""

from mine_env.engine.compilation import announce_compiles

announce_compiles("battle.counting.outcomes", "the battle AIs' outcome counts", "about 10 s")

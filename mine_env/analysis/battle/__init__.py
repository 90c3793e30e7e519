"""The analysis only battle minesweeper needs: what a click's outcomes are, counted through a store.

``outcomes`` counts, in one compiled call, every outcome of clicking each cell (the number it shows, or a
mine); ``component_store`` keeps the process's counted components by their local form, so that a component
a click leaves unchanged is taken from it; ``stored_counting`` is the exact count of
:mod:`mine_env.analysis.counting` through that store (the same floats); ``open_number`` counts the one
component a click changes and stores it. Single-player code never imports this package (a contract in
pyproject.toml).
"""

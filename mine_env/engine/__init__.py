"""The board engine: the rules as numba kernels, one board, a batch of boards, specs and the text format.

Pure game logic with no Gymnasium import: everything above it (the env, the analysis, the agents) builds
on it, and it imports nothing of theirs.
"""

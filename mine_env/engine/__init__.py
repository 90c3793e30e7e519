"""The board engine: the rules as numba kernels, one board, a batch of boards, specs and the text format.

Pure game logic with no Gymnasium import: everything above it (the env, the analysis, the agents) builds
on it, and it imports nothing of theirs. Its modules, from the bottom up:

- ``constants``: cell codes, presets, rule names; ``geometry``: neighbourhoods, the first-click protected
  block and what a cell code means; ``rng``: layout keys and the SplitMix64 stream; ``rewards``: what a step
  earns;
- ``layout``: mine placement and counts; ``rules``: the rules of play (reveal, chord, flags, valid actions,
  reward) and the game API of compiled drivers;
- ``spec``: board specifications; ``textformat``: boards as text; ``board``: one game; ``batch``: N games
  stepped in one compiled call; ``reference``: the rules in plain Python, the tests' yardstick;
- ``compilation``: the one-line notice while numba compiles the kernels for the first time (imported
  here, so that it listens before any kernel compiles); ``kernel_bundle``: a release's kernels compiled
  ahead, copied into numba's cache here, before any kernel is called.
"""

from mine_env.engine import compilation as compilation
from mine_env.engine import kernel_bundle as kernel_bundle

kernel_bundle.seed_once()

"""A bot that plays real minesweeper programs through the screen, as a person does.

It starts the program (inside its own Xvfb unless told a display), finds its window and the grid in a
screenshot, reads every cell from its pixels, asks the project's solver for the move and clicks through
the XTest extension. The layers, bottom up: :mod:`screen_bot.errors` (the one-line set-up errors),
:mod:`screen_bot.display` (the X server), :mod:`screen_bot.window` (finding a window),
:mod:`screen_bot.pointer` (XTest input), :mod:`screen_bot.capture` (mss screenshots),
:mod:`screen_bot.grid` (the cell lattice from a picture), :mod:`screen_bot.cells` (a cell's state from its
pixels), :mod:`screen_bot.programs` (what differs per program), :mod:`screen_bot.fixed_time` (the
``time()`` override that makes xdemineur reproducible), :mod:`screen_bot.launcher` (one running program),
:mod:`screen_bot.game` (one game: read, decide, click), :mod:`screen_bot.runner` (many games, the report).

Needs the ``screen`` extra (mss, python-xlib) and, on Debian, ``apt-get install xvfb xdemineur
sgt-puzzles``; docs/BOT.md has the set-up and the measured results.
"""

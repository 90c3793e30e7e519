"""The play apps of ``minesweeper play`` and ``minesweeper battle play``: a game as people play it, in the terminal
or in a window.

One job a module: ``session`` (a game as people play it), ``moves`` and ``outcome`` (the moves and what is
said about them), ``hints`` (the mine chances shown), ``controls`` (what both front ends do alike),
``solver_warm_up`` (the solver's kernels compiling while the board is shown); the terminal: ``tui`` (the
game's screen text and keys), ``terminal_layout``, ``curses_screen``, ``watch`` (plain text for pipes),
``battle_tui`` (the two-player game on the same screen); the window: ``gui`` (its events and what a frame
shows), ``window_layout``, ``window_drawing``, ``window_display`` (the screen under it).

They sit apart from the subcommand modules of :mod:`minesweeper_cli` (one per command), which parse options
and start them.
"""

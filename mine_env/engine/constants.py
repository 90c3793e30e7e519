"""Observation codes, presets and rule names shared by every part of the project."""

from __future__ import annotations

HIDDEN: int = -1
"""Observation code of a hidden, unflagged cell."""
FLAG: int = -2
"""Observation code of a hidden cell carrying the player's flag."""
MINE: int = -3
"""Observation code of a shown mine (the one that ended a lost game, or a mine in a given position)."""

PRESETS: dict[str, tuple[int, int, int]] = {
    "beginner": (9, 9, 10),
    "intermediate": (16, 16, 40),
    "expert": (16, 30, 99),
}
"""Classic boards as (rows, cols, mines)."""

FIRST_CLICK_RULES: tuple[str, ...] = ("safe", "opening", "none")
"""``safe``: the first revealed cell is never a mine. ``opening``: neither it nor its neighbours are,
so it always opens a zero. ``none``: the layout is fixed at reset, before any click."""

DEFAULT_FIRST_CLICK = "opening"

BOARD_KINDS: tuple[str, ...] = ("random", "no_guess")
"""Which layouts an env deals. ``random``: uniform under the first-click rule. ``no_guess``: layouts that logic
alone clears from the first click (``opening`` rule only; see docs/NO_GUESS.md)."""
DEFAULT_BOARDS = "random"
MAX_SIDE = 256
"""Largest number of rows or columns a board may have."""

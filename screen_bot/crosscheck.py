"""Checking the reader against the layout the program shows at the end of a game.

When a game ends every mine is known: after a loss the program draws them all (xdemineur by itself,
sgt-mines through its Solve command), after a win they are the cells left covered. Each number the bot
read while playing must then equal the count of those mines around its cell, and no cell it read as open
may hold a mine. A cell that fails either test is a misread.
"""

from __future__ import annotations

import numpy as np

from mine_env.engine.constants import FLAG, HIDDEN, MINE
from mine_env.engine.layout import neighbour_counts
from screen_bot.cells import EXPLODED, WRONG_FLAG


def shown_layout(final: np.ndarray, won: bool) -> np.ndarray:
    """The mines of a finished game's last picture: the covered and flagged cells of a win, the mines and
    correct flags a loss shows."""
    if won:
        return np.isin(final, (HIDDEN, FLAG))
    return np.isin(final, (MINE, EXPLODED, FLAG))


def misread_cells(played: np.ndarray, final: np.ndarray, won: bool) -> list[tuple[int, int]]:
    """The cells the bot read wrongly while playing (``played``: its last settled reading before the end),
    judged against the layout ``final`` shows. A flag the program calls wrong is a misread too."""
    mines = shown_layout(final, won)
    counts = neighbour_counts(mines)
    opened = played >= 0
    wrong = opened & ((played != counts) | mines)
    wrong |= final == WRONG_FLAG
    wrong |= (final >= 0) & opened & (final != played)
    return [(int(r), int(c)) for r, c in zip(*np.nonzero(wrong), strict=True)]


def layout_complete(final: np.ndarray, won: bool, mines: int) -> bool:
    """Whether the end picture shows exactly ``mines`` mines (else the check cannot be made)."""
    return int(shown_layout(final, won).sum()) == mines

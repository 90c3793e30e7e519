"""Where the terminal game's board lies on the screen, in character cells.

Three lines of title, counters and banner come first, then the column numbers and the rows, each row number
on the left of its row. Cells are as wide as the screen allows, up to room for a ``99%`` hint.
"""

from __future__ import annotations

from dataclasses import dataclass

HEADER_LINES = 3
"""Title, counters and the win/loss banner above the board."""
HINT_WIDTH = 3
"""Columns per cell while hints are shown, when the terminal is wide enough: room for ``99%``."""
ROOMY_SCREEN = 1000
"""The terminal width assumed when none is known (tests, before the first draw)."""


@dataclass(frozen=True)
class BoardGeometry:
    """Where the board's cells lie on the screen: ``cell_width`` characters per cell, a space between.

    Column numbers too wide for a cell are written downwards over several header lines (tens above units).
    """

    rows: int
    cols: int
    cell_width: int

    @classmethod
    def fitting(cls, rows: int, cols: int, screen_width: int, hints: bool) -> BoardGeometry:
        """The widest cells that fit the screen: room for whole column numbers (and ``99%`` hints), else 1."""
        wide = cls(rows, cols, max(len(str(cols - 1)), HINT_WIDTH if hints else 1))
        return wide if wide.width < screen_width else cls(rows, cols, 1)

    @property
    def header_rows(self) -> int:
        digits = len(str(self.cols - 1))
        return 1 if self.cell_width >= digits else digits

    @property
    def top(self) -> int:
        """Screen line of board row 0 (the column numbers are on the lines above)."""
        return HEADER_LINES + self.header_rows

    @property
    def left(self) -> int:
        """Screen column of board column 0 (the row numbers are on its left)."""
        return len(str(self.rows - 1)) + 1

    @property
    def width(self) -> int:
        return self.left + self.cols * (self.cell_width + 1) - 1

    def cell_x(self, col: int) -> int:
        return self.left + col * (self.cell_width + 1)

    def header_lines(self) -> list[str]:
        """The column numbers, one line, or one line per digit when they are wider than a cell."""
        digits = len(str(self.cols - 1))
        numbers = [str(c).rjust(digits) for c in range(self.cols)]
        if self.header_rows == 1:
            return [" " * self.left + " ".join(n.rjust(self.cell_width) for n in numbers)]
        return [" " * self.left + " ".join(n[i].rjust(self.cell_width) for n in numbers) for i in range(digits)]

    def cell_at(self, y: int, x: int) -> tuple[int, int] | None:
        """The cell drawn at screen (y, x), or None outside the board (between cells counts as outside)."""
        row, offset = y - self.top, x - self.left
        col, within = divmod(offset, self.cell_width + 1)
        if 0 <= row < self.rows and 0 <= col < self.cols and offset >= 0 and within < self.cell_width:
            return row, col
        return None

"""Board specifications: size, mine count and first-click rule, checked once with clear errors."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mine_env.engine.constants import BOARD_KINDS, DEFAULT_FIRST_CLICK, FIRST_CLICK_RULES, MAX_SIDE, PRESETS
from mine_env.engine.geometry import protected_cells


def most_protected_cells(rows: int, cols: int, first_click: str) -> int:
    """Cells the first-click rule keeps free of mines in the worst case: those it keeps around the board's
    centre cell, whose block no edge clips more than it clips any other cell's."""
    centre = (rows // 2) * cols + cols // 2
    return len(protected_cells(rows, cols, first_click, centre))


def max_mines(rows: int, cols: int, first_click: str) -> int:
    """The largest mine count a board can hold under a rule, whatever cell is clicked first.

    At least one safe cell must remain, and the rule's protected cells must fit beside the mines.
    """
    return rows * cols - max(most_protected_cells(rows, cols, first_click), 1)


def check_board_size(spec: object) -> None:
    """Check a frozen dataclass's ``rows``, ``cols`` and ``mines``: integers, each side 1..MAX_SIDE.

    Each is stored back as a plain ``int`` (numpy integers are accepted); a ValueError names the bad one.
    Shared by every board spec (single-player and battle), so the two cannot drift apart.
    """
    for name in ("rows", "cols", "mines"):
        value = getattr(spec, name)
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise ValueError(f"{name} must be an integer, got {value!r}")
        object.__setattr__(spec, name, int(value))
    for name in ("rows", "cols"):
        value = getattr(spec, name)
        if not 1 <= value <= MAX_SIDE:
            raise ValueError(f"{name} must be between 1 and {MAX_SIDE}, got {value}")


def check_boards(boards: object) -> str:
    """``boards`` itself when it names a kind of board (:data:`BOARD_KINDS`), else a ValueError listing them."""
    if boards not in BOARD_KINDS:
        raise ValueError(f"unknown boards {boards!r}; expected one of {', '.join(BOARD_KINDS)}")
    return str(boards)


@dataclass(frozen=True)
class BoardSpec:
    """A board size, its mine count and the first-click rule.

    Args:
        rows: Rows of the board, 1..MAX_SIDE.
        cols: Columns of the board, 1..MAX_SIDE.
        mines: Mines on the board, 0..:func:`max_mines`.
        first_click: One of ``"safe"``, ``"opening"``, ``"none"``.
    """

    rows: int
    cols: int
    mines: int
    first_click: str = DEFAULT_FIRST_CLICK

    def __post_init__(self) -> None:
        check_board_size(self)
        if self.first_click not in FIRST_CLICK_RULES:
            raise ValueError(
                f"unknown first_click rule {self.first_click!r}; expected one of {', '.join(FIRST_CLICK_RULES)}"
            )
        limit = max_mines(self.rows, self.cols, self.first_click)
        if not 0 <= self.mines <= limit:
            raise ValueError(
                f"{self.mines} mines do not fit a {self.rows}x{self.cols} board under the "
                f"{self.first_click!r} rule: expected 0..{limit}"
            )

    @property
    def n_cells(self) -> int:
        """Cells on the board."""
        return self.rows * self.cols

    @property
    def n_safe(self) -> int:
        """Cells without a mine: revealing all of them wins."""
        return self.n_cells - self.mines

    @classmethod
    def from_options(
        cls,
        preset: str | None = None,
        rows: int | None = None,
        cols: int | None = None,
        mines: int | None = None,
        first_click: str = DEFAULT_FIRST_CLICK,
    ) -> BoardSpec:
        """Build a spec from a preset name, explicit sizes, or a preset with some sizes overridden.

        With neither a preset nor all three sizes, the missing sizes come from the beginner preset.
        """
        if preset is not None and preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; expected one of {', '.join(PRESETS)}")
        base_rows, base_cols, base_mines = PRESETS[preset or "beginner"]
        return cls(
            rows=base_rows if rows is None else rows,
            cols=base_cols if cols is None else cols,
            mines=base_mines if mines is None else mines,
            first_click=first_click,
        )

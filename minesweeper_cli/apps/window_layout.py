"""Where everything lies in the window of ``minesweeper play --gui``, computed without pygame.

Above the board: the toolbar (its buttons wrap to the window's width), then two text lines (the counters,
then the last move or who won); below it, the legend row. :func:`plan_layout` shrinks the cells as much as
a larger board needs for the window to fit the screen, and :func:`corner_on_screen` says where to move a
window that grew past the screen's edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MIN_WIDTH = 460
"""The window is at least this wide (when the screen allows), so the buttons fit above a small board."""
MIN_CELL_PX = 10
"""The smallest cell the window shrinks to so that a large board fits the screen."""
SCREEN_RESERVE = (16, 96)
"""Pixels of the screen's width and height the window leaves to its frame, title bar and the desktop's panels."""
TITLE_BAR_PX = 32
"""Room kept above the window for its title bar when the window is moved back onto the screen."""
MARGIN = 6
BUTTON_HEIGHT = 26
TEXT_HEIGHT = 20
LEGEND_HEIGHT = 28
"""The row under the board: the key to the hint colours, or the controls while hints are off."""


@dataclass(frozen=True)
class WindowLayout:
    """Where everything lies in the window, in pixels; rectangles are (left, top, width, height).

    Attributes:
        cell_px: The size of a cell.
        size: The window's (width, height).
        buttons: One rectangle per toolbar button, in the order of the widths given to :func:`plan_layout`.
        status_top: The top of the two text lines above the board (counters, then the message).
        board: The board's rectangle.
        legend_top: The top of the legend row under the board.
    """

    cell_px: int
    size: tuple[int, int]
    buttons: tuple[tuple[int, int, int, int], ...]
    status_top: int
    board: tuple[int, int, int, int]
    legend_top: int


def plan_layout(
    rows: int, cols: int, cell_px: int, button_widths: Sequence[int], desktop: tuple[int, int]
) -> WindowLayout:
    """The window for a ``rows`` x ``cols`` board on a screen of ``desktop`` pixels (width, height).

    Cells are ``cell_px`` pixels, or as much smaller (down to :data:`MIN_CELL_PX`) as it takes for the whole
    window to fit the screen less :data:`SCREEN_RESERVE`; the legend row keeps the board off the bottom edge.

    Raises:
        ValueError: If the board does not fit even with the smallest cells.
    """
    room = (desktop[0] - SCREEN_RESERVE[0], desktop[1] - SCREEN_RESERVE[1])
    for size in range(cell_px, MIN_CELL_PX - 1, -1):
        layout = _layout_with_cells(rows, cols, size, button_widths, room[0])
        if layout.size[0] <= room[0] and layout.size[1] <= room[1]:
            return layout
    raise ValueError(f"a {rows}x{cols} board does not fit the {desktop[0]}x{desktop[1]} screen even with "
                     f"{MIN_CELL_PX}-pixel cells: play it in the terminal without --gui")  # fmt: skip


def _layout_with_cells(
    rows: int, cols: int, cell_px: int, button_widths: Sequence[int], room_width: int
) -> WindowLayout:
    """The layout with cells of ``cell_px``: the toolbar wraps to the window's width."""
    board_width = cols * cell_px
    width = max(min(MIN_WIDTH, room_width), board_width + 2 * MARGIN)
    buttons = []
    x, y = MARGIN, MARGIN
    for button_width in button_widths:
        if x + button_width > width - MARGIN and x > MARGIN:
            x, y = MARGIN, y + BUTTON_HEIGHT + MARGIN
        buttons.append((x, y, button_width, BUTTON_HEIGHT))
        x += button_width + MARGIN
    status_top = y + BUTTON_HEIGHT + MARGIN
    board = ((width - board_width) // 2, status_top + 2 * TEXT_HEIGHT + MARGIN, board_width, rows * cell_px)
    legend_top = board[1] + board[3] + MARGIN
    return WindowLayout(cell_px, (width, legend_top + LEGEND_HEIGHT + MARGIN), tuple(buttons), status_top, board,
                        legend_top)  # fmt: skip


def corner_on_screen(corner: tuple[int, int], size: tuple[int, int], desktop: tuple[int, int]) -> tuple[int, int]:
    """Where a window of ``size`` with its top-left corner at ``corner`` must go to lie on the screen.

    The corner moves only as far as it must: left and up until the window's right edge and its bottom (less the
    desktop's panels, :data:`SCREEN_RESERVE`) are on the screen, never above the room of the title bar.
    """
    right = desktop[0] - size[0]
    bottom = desktop[1] - size[1] - (SCREEN_RESERVE[1] - TITLE_BAR_PX)
    return max(0, min(corner[0], right)), max(TITLE_BAR_PX, min(corner[1], bottom))

"""Where everything lies in the window, planned without pygame: the window fits the screen it opens on."""

from __future__ import annotations

import pytest

from mine_env.engine.constants import PRESETS
from minesweeper_cli.apps.window_layout import (
    LEGEND_HEIGHT,
    MARGIN,
    MIN_CELL_PX,
    MIN_WIDTH,
    SCREEN_RESERVE,
    TEXT_HEIGHT,
    TITLE_BAR_PX,
    corner_on_screen,
    plan_layout,
)

TOOLBAR_WIDTHS = [90, 80, 80, 90, 80, 110, 70]


DESKTOPS = [(1920, 1080), (1366, 768), (1024, 768), (800, 600), (640, 480)]
BOARDS_THAT_FIT = [(desktop, rows, cols) for desktop in DESKTOPS for rows, cols, _ in PRESETS.values()]
BOARDS_THAT_FIT += [(desktop, 24, 40) for desktop in DESKTOPS[:-1]]


@pytest.mark.parametrize(("desktop", "rows", "cols"), BOARDS_THAT_FIT)
def test_the_planned_window_fits_the_screen_and_keeps_the_board_off_the_bottom_edge(desktop, rows, cols):
    layout = plan_layout(rows, cols, 32, TOOLBAR_WIDTHS, desktop)
    width, height = layout.size
    assert width <= desktop[0] - SCREEN_RESERVE[0] and height <= desktop[1] - SCREEN_RESERVE[1]
    left, top, board_width, board_height = layout.board
    assert (board_width, board_height) == (cols * layout.cell_px, rows * layout.cell_px)
    assert left >= MARGIN and left + board_width <= width - MARGIN
    assert layout.legend_top >= top + board_height + MARGIN and layout.legend_top + LEGEND_HEIGHT < height
    assert top >= layout.status_top + 2 * TEXT_HEIGHT
    assert all(x + w <= width - MARGIN and y + h <= layout.status_top for x, y, w, h in layout.buttons)
    assert MIN_CELL_PX <= layout.cell_px <= 32


def test_cells_shrink_only_as_much_as_the_screen_needs():
    big = plan_layout(16, 30, 32, TOOLBAR_WIDTHS, (1920, 1080))
    assert big.cell_px == 32 and big.size[0] == 30 * 32 + 2 * MARGIN
    small = plan_layout(16, 30, 32, TOOLBAR_WIDTHS, (800, 600))
    assert small.cell_px < 32
    assert plan_layout(16, 30, small.cell_px + 1, TOOLBAR_WIDTHS, (800, 600)).cell_px == small.cell_px  # the largest
    beginner = plan_layout(9, 9, 32, TOOLBAR_WIDTHS, (800, 600))
    assert beginner.cell_px == 32 and beginner.size[0] == MIN_WIDTH  # a small board keeps its cells


def test_a_board_too_large_for_the_screen_is_refused_with_a_message():
    with pytest.raises(ValueError, match=r"a 256x256 board does not fit the 1024x768 screen even with 10-pixel cells"):
        plan_layout(256, 256, 32, TOOLBAR_WIDTHS, (1024, 768))




def test_a_window_past_the_screens_edge_moves_back_only_as_far_as_it_must():
    desktop, size = (1024, 768), (500, 400)
    assert corner_on_screen((100, 100), size, desktop) == (100, 100)
    bottom = 768 - 400 - (SCREEN_RESERVE[1] - TITLE_BAR_PX)
    assert corner_on_screen((900, 700), size, desktop) == (1024 - 500, bottom)
    assert corner_on_screen((-20, 0), size, desktop) == (0, TITLE_BAR_PX)  # the title bar stays reachable

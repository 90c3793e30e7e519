"""Where the terminal game's board lies on the screen: clicks land on cells, cells fit the terminal."""

from __future__ import annotations

from minesweeper_cli.apps.terminal_layout import BoardGeometry


def test_clicks_map_screen_positions_to_cells():
    geometry = BoardGeometry(16, 30, cell_width=2)
    for row, col in [(0, 0), (15, 29), (7, 12)]:
        assert geometry.cell_at(geometry.top + row, geometry.cell_x(col) + 1) == (row, col)
    assert geometry.cell_at(geometry.top, geometry.cell_x(1) - 1) is None  # the space between two cells
    assert geometry.cell_at(geometry.top + 16, geometry.cell_x(0)) is None


def test_cells_are_as_wide_as_the_screen_allows_and_wide_column_numbers_are_written_downwards():
    expert = BoardGeometry.fitting(16, 30, screen_width=80, hints=True)  # the classic 80-column terminal
    assert expert.cell_width == 1 and expert.width < 80
    assert [line[expert.cell_x(29)] for line in expert.header_lines()] == ["2", "9"]
    assert BoardGeometry.fitting(16, 30, screen_width=200, hints=True).cell_width == 3

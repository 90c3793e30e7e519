"""Long-term 50/50 risk: each shape's share of layouts against a count over every layout."""

from __future__ import annotations

import numpy as np
import pytest

from agents.solver import outlook as risk
from agents.solver.endgame import enumerate_layouts
from mine_env.analysis.counting import count_position
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.rules import neighbour_counts
from support import grid_from_rows

ROWS, COLS, MINES = 5, 6, 7


def enumerated_positions(count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(observation, unknown cells, every layout as a 0/1 matrix) for positions whose safe cells are
    revealed in the left two or three columns only, so that shapes can form in the covered part."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        layout = np.zeros(ROWS * COLS, bool)
        layout[rng.choice(ROWS * COLS, MINES, replace=False)] = True
        layout = layout.reshape(ROWS, COLS)
        revealed = (np.arange(COLS) < rng.integers(2, 4)) & ~layout
        flat = np.where(revealed, neighbour_counts(layout), HIDDEN).astype(np.int8).ravel()
        cells, layouts, complete = enumerate_layouts(flat, ROWS, COLS, MINES, 50_000)
        if complete and layouts.shape[0] > 0:
            found.append((flat, cells, layouts))
    return found


def share_by_enumeration(flat, cells, layouts, mines_at, safe_at, flanks, most_missing) -> float:
    """Share of layouts with ``mines_at`` and every on-board flank mines and ``safe_at`` safe, or 0 when the
    shape cannot form (a cell not hidden or always a mine, a flank revealed, too many mines missing)."""
    column = {int(cell): layouts[:, j].astype(bool) for j, cell in enumerate(cells)}
    always_mine = {cell for cell, mine in column.items() if mine.all()}
    on_board = [r * COLS + c for r, c in flanks if 0 <= r < ROWS and 0 <= c < COLS]
    shape = mines_at + safe_at
    if any(cell not in column or cell in always_mine for cell in shape):
        return 0.0
    if any(flat[cell] >= 0 for cell in on_board):
        return 0.0
    missing = [cell for cell in on_board if flat[cell] != MINE and cell not in always_mine]
    mines_left = MINES - int((flat == MINE).sum()) - len(always_mine)
    if len(missing) + len(mines_at) > min(most_missing, mines_left):
        return 0.0
    hit = np.ones(layouts.shape[0], bool)
    for cell in missing + mines_at:
        hit &= column[cell]
    for cell in safe_at:
        hit &= ~column[cell]
    return float(hit.mean())


@pytest.mark.slow
def test_pair_and_box_shares_equal_counts_over_every_layout() -> None:
    checked = 0
    for flat, cells, layouts in enumerated_positions(6, seed=11):
        _, probability, _, log_layouts = count_position(flat, ROWS, COLS, MINES)
        mines_left = MINES - int(((flat == HIDDEN) & (probability >= 1 - 1e-9)).sum())
        for r in range(ROWS):
            for c in range(COLS):
                for vertical in (False, True):
                    r2, c2 = (r + 1, c) if vertical else (r, c + 1)
                    if r2 >= ROWS or c2 >= COLS:
                        continue
                    if vertical:
                        flanks = [(r - 1, c - 1 + k) for k in range(3)] + [(r + 2, c - 1 + k) for k in range(3)]
                    else:
                        flanks = [(r - 1 + k, c - 1) for k in range(3)] + [(r - 1 + k, c + 2) for k in range(3)]
                    expected = share_by_enumeration(
                        flat, cells, layouts, [r * COLS + c], [r2 * COLS + c2], flanks, risk.PAIR_MISSING
                    )
                    got = risk.pair_share(flat, ROWS, COLS, MINES, probability, log_layouts, mines_left, r, c, vertical)
                    assert got == pytest.approx(expected)
                    checked += expected > 0
                if r + 1 < ROWS and c + 1 < COLS:
                    corners = [(r - 1, c - 1), (r - 1, c + 2), (r + 2, c - 1), (r + 2, c + 2)]
                    diagonal = [r * COLS + c, (r + 1) * COLS + c + 1]
                    other = [r * COLS + c + 1, (r + 1) * COLS + c]
                    expected = share_by_enumeration(flat, cells, layouts, diagonal, other, corners, risk.BOX_MISSING)
                    got = risk.box_share(flat, ROWS, COLS, MINES, probability, log_layouts, mines_left, r, c)
                    assert got == pytest.approx(expected)
                    checked += expected > 0
    assert checked > 20, checked  # shapes that can form were met, not only zeros


def test_a_cells_risk_is_capped_by_its_chance_of_either_outcome() -> None:
    for flat, _, _ in enumerated_positions(4, seed=12):
        _, probability, _, log_layouts = count_position(flat, ROWS, COLS, MINES)
        for cell in np.flatnonzero(flat == HIDDEN):
            value = risk.fifty_fifty_risk(flat, ROWS, COLS, MINES, probability, log_layouts, cell)
            assert 0.0 <= value <= min(probability[cell], 1.0 - probability[cell]) + 1e-12


def test_a_pair_closed_by_the_border_and_shown_mines_is_a_fifty_fifty_in_every_layout() -> None:
    # The pair (0, 0)-(0, 1): off the board on the left, shown mines on the right, and both numbers below
    # see both cells. One of the two is the last mine, so the left one is the mine of the pair in half the
    # layouts, and so is the right one.
    grid = grid_from_rows(". . X", "1 3 X")
    flat, (rows, cols), mines = grid.ravel(), grid.shape, 3
    _, probability, _, log_layouts = count_position(flat, rows, cols, mines)
    pair = risk.pair_share(flat, rows, cols, mines, probability, log_layouts, mines_left=1, r=0, c=0, vertical=False)
    assert pair == pytest.approx(0.5)
    for cell in (0, 1):
        assert risk.fifty_fifty_risk(flat, rows, cols, mines, probability, log_layouts, cell) == pytest.approx(0.5)

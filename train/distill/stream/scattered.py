"""Scattered positions: a fresh layout with a random share of its safe cells opened, zeros flooding as in play.

The oracle's games (:class:`train.distill.stream.levers.OracleBoards`) show a network one growing opened region per
board, a frontier of a few dozen cells. A scattered board shows many small regions at once: hundreds of frontier cells
in every local pattern, and about half its hidden cells settled by the numbers (measured on expert at opening
rates drawn in 5-50%): many more local patterns a position than a move of a game holds, though not the positions
a network's own games reach. The published 44.85% expert network trains on a third of such positions. Here they
are labelled exactly, as the oracle's are (:func:`train.distill.stream.levers.label_varied`, under the ``none`` rule: a
scattered board has no first click), and travel the stream beside them (``--scatter SHARE``,
:func:`train.distill.stream.levers.produce_varied`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mine_env.engine import rules as k
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import RULE_NONE
from mine_env.engine.rng import draw_layout_keys
from mine_env.engine.spec import BoardSpec

OPEN_RATES = (0.05, 0.5)
"""The range a scattered board's opening rate (the chance each safe cell is opened) is drawn from, uniformly."""


@njit(cache=True)
def _scatter(obs: np.ndarray, mines: np.ndarray, counts: np.ndarray, meta: np.ndarray, stack: np.ndarray,
             n_mines: np.ndarray, rows: int, cols: int, keys: np.ndarray, opened: np.ndarray) -> None:  # fmt: skip
    """Board i: a new game of layout ``keys[i]`` with ``n_mines[i]`` mines under the ``none`` rule, then every safe
    cell with ``opened[i, cell] < 1`` (the draw against its rate, made by the caller) revealed, zeros flooding."""
    for i in range(obs.shape[0]):
        rules = k.Rules(rows, cols, n_mines[i], RULE_NONE)
        k.new_game(obs[i], mines[i], counts[i], meta[i], stack, rules, keys[i])
        for cell in range(obs.shape[1]):
            if opened[i, cell] < 1.0 and mines[i, cell] == 0 and obs[i, cell] == HIDDEN:
                k.reveal(obs[i], mines[i], counts[i], meta[i], stack, rows, cols, cell)


def scattered_boards(spec: BoardSpec, counts: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One scattered board per entry of ``counts`` (its mine count) on ``spec``'s size: the grids int8 (N, rows, cols)
    and their true mines float32 (N, rows, cols). Each board's opening rate is drawn in :data:`OPEN_RATES`; the
    layouts, the rates and which cells open all come from ``rng``."""
    boards, cells = len(counts), spec.n_cells
    if boards and (counts.min() < 1 or counts.max() >= cells):
        raise ValueError(f"mine counts must lie in 1..{cells - 1}, got {counts.min()}..{counts.max()}")
    obs = np.full((boards, cells), HIDDEN, dtype=np.int8)
    mines = np.zeros((boards, cells), dtype=np.uint8)
    neighbours = np.zeros((boards, cells), dtype=np.int8)
    meta = np.zeros((boards, k.META_SIZE), dtype=np.int64)
    rates = rng.uniform(*OPEN_RATES, size=boards)
    opened = rng.random((boards, cells)) / rates[:, None]  # below 1 with chance ``rate``
    _scatter(obs, mines, neighbours, meta, np.empty(cells, dtype=np.int32), counts.astype(np.int64), spec.rows,
             spec.cols, draw_layout_keys(rng, boards), opened)  # fmt: skip
    shape = (boards, spec.rows, spec.cols)
    return obs.reshape(shape), mines.reshape(shape).astype(np.float32)

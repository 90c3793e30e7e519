"""The oracle's labels for distillation: the exact mine probability of every cell of many positions, on both
cores.

:func:`label_positions` counts a batch of positions in one compiled call (the counting pipeline of
:mod:`agents.analysis.counting`, the same one :func:`agents.probability.mine_probabilities` runs), and
:class:`Labeller` spreads a batch over worker processes. The board before the first click is the one
position whose exact probabilities say nothing useful (every cell has the same, and the first click is safe
under every rule): its label marks the rule's best first click (:func:`agents.solver.first_click_cell`) as
the safe cell, so the network learns where the oracle starts.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable

import numpy as np
from numba import njit

from agents.analysis.counting import count_position
from agents.solver import first_click_cell
from mine_env.engine.constants import HIDDEN


@njit(cache=True)
def _count_batch(flat: np.ndarray, rows: int, cols: int, mines: int, out: np.ndarray) -> int:
    """Exact mine probabilities of each position (rows of ``flat``, int8) into ``out`` (float32, same shape);
    returns the index of the first position no layout fits, or -1."""
    bad = -1
    for i in range(flat.shape[0]):
        consistent, probability, _, _ = count_position(flat[i], rows, cols, mines)
        if not consistent:
            if bad < 0:
                bad = i
            continue
        for j in range(flat.shape[1]):
            out[i, j] = probability[j]
    return bad


def label_positions(grids: np.ndarray, mines: int, first_click: str) -> np.ndarray:
    """Exact mine probability of every cell of every grid (N, rows, cols) int8, as float32 (N, rows, cols).

    Revealed cells get 0.0. An untouched board gets the first-click label of the module docstring.

    Raises:
        ValueError: a position that no layout with ``mines`` mines fits (not a position of a real game).
    """
    n, rows, cols = grids.shape
    flat = np.ascontiguousarray(grids.reshape(n, rows * cols), dtype=np.int8)
    out = np.zeros((n, rows * cols), dtype=np.float32)
    bad = _count_batch(flat, rows, cols, mines, out)
    if bad >= 0:
        raise ValueError(f"position {bad} of the batch fits no layout of {mines} mines: not a position of a game")
    untouched = (flat == HIDDEN).all(axis=1)
    if untouched.any():
        r, c = first_click_cell(rows, cols, first_click)
        out[untouched] = mines / (rows * cols)
        out[untouched, r * cols + c] = 0.0
    return out.reshape(n, rows, cols)


def _label_chunk(task: tuple[np.ndarray, int, str]) -> np.ndarray:
    return label_positions(*task)


class Labeller:
    """Labels batches of positions with ``workers`` processes (1: in this process), in chunks of ``chunk``.

    The workers are forked once and live as long as the labeller (use it as a context manager); each loads
    the compiled counting kernel from numba's cache.
    """

    def __init__(self, workers: int = 2, chunk: int = 64) -> None:
        if workers < 1 or chunk < 1:
            raise ValueError(f"label workers and chunk must be at least 1, got {workers} and {chunk}")
        self.workers = workers
        self.chunk = chunk
        self._pool = None
        if workers > 1:
            label_positions(np.full((1, 2, 2), HIDDEN, dtype=np.int8), 1, "opening")  # compile before forking
            self._pool = multiprocessing.get_context("fork").Pool(workers)

    def label(
        self, grids: np.ndarray, mines: int, first_click: str, progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """:func:`label_positions` of ``grids``, spread over the workers; ``progress(n)`` after each chunk."""
        if self._pool is None or len(grids) <= self.chunk:
            labels = label_positions(grids, mines, first_click)
            if progress is not None:
                progress(len(grids))
            return labels
        tasks = [(grids[i : i + self.chunk], mines, first_click) for i in range(0, len(grids), self.chunk)]
        parts = []
        for part in self._pool.imap(_label_chunk, tasks):
            parts.append(part)
            if progress is not None:
                progress(len(part))
        return np.concatenate(parts)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> Labeller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

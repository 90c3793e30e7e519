"""The oracle's labels for distillation: the exact mine probability of every cell of many positions, on the
cores of this machine or on a Ray cluster.

:func:`label_positions` counts a batch of positions in one compiled call (the counting pipeline of
:mod:`mine_env.analysis.counting`, the same one :func:`agents.probability.mine_probabilities` runs), and
:class:`Labeller` spreads a batch, in chunks, over a backend (:mod:`backends`: local worker processes or
Ray tasks); a label depends only on its position, so every backend gives the same labels.

The board before the first click is the one position whose exact probabilities say nothing useful (every
cell has the same, and the first click is safe under every rule): its label marks the rule's best first
click (:func:`agents.solver.first_click_cell`) and its mirror images (equally good: the board is symmetric) as
the safe cells, so the network learns where the oracle starts, and a label stays a label of its mirrored board
(``train distill --augment``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from agents.solver import first_click_cell
from backends import Backend, open_backend
from mine_env.analysis.counting import count_position
from mine_env.engine.constants import HIDDEN
from mine_env.engine.symmetry import cell_images

MIN_CHUNK = 64
"""Fewest positions of a chunk the labeller makes by itself: a task costs about a millisecond (docs/SCALING.md)."""


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
        out[untouched] = mines / (rows * cols)
        for r, c in first_click_images(rows, cols, first_click):
            out[untouched, r * cols + c] = 0.0
    return out.reshape(n, rows, cols)


def first_click_images(rows: int, cols: int, first_click: str) -> set[tuple[int, int]]:
    """The rule's best first click and its images under the board's symmetries: the cells as good as it on an
    untouched board."""
    return cell_images(first_click_cell(rows, cols, first_click), rows, cols)


LabelSettings = tuple[int, str]
"""What every chunk of one batch shares: the mine count and the first-click rule."""


def label_chunk(settings: LabelSettings, grids: np.ndarray) -> np.ndarray:
    """The backends' job: :func:`label_positions` of one chunk of positions."""
    return label_positions(grids, *settings)


def warm_up_labels() -> None:
    """Compile (or load from numba's cache) the counting kernel in a worker before its first chunk."""
    label_positions(np.full((1, 2, 2), HIDDEN, dtype=np.int8), 1, "opening")


class Labeller:
    """Labels batches of positions, in chunks, on a backend: ``workers`` processes of this machine
    (``backend="local"``; 1: in this process) or Ray tasks (``backend="ray"``: a private Ray instance with
    ``workers`` CPUs, or the cluster at ``address``, all of whose CPUs it uses).

    ``chunk``: positions per chunk; by default each batch is split evenly over the workers, in chunks of at
    least :data:`MIN_CHUNK` positions (one chunk per worker: each chunk costs a task, docs/SCALING.md). The
    workers start once and live as long as the labeller (use it as a context manager); each loads the
    compiled counting kernel from numba's cache before its first chunk.

    Raises:
        ValueError: ``workers`` or ``chunk`` below 1, or the backend's own refusals (an unknown backend, an
            address without ``ray``, Ray not installed, an address nobody listens at).
    """

    def __init__(
        self, workers: int = 2, chunk: int | None = None, backend: str = "local", address: str | None = None
    ) -> None:
        if workers < 1 or (chunk is not None and chunk < 1):
            raise ValueError(f"label workers and chunk must be at least 1, got {workers} and {chunk}")
        self.chunk = chunk
        self._backend: Backend = open_backend(backend, workers, address, warm_up=warm_up_labels)
        self.workers = self._backend.workers

    def chunk_size(self, positions: int) -> int:
        """Positions per chunk of a batch of ``positions``."""
        return self.chunk or max(MIN_CHUNK, -(-positions // self.workers))

    def label(
        self, grids: np.ndarray, mines: int, first_click: str, progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """:func:`label_positions` of ``grids``, spread over the workers; ``progress(n)`` after each chunk."""
        size = self.chunk_size(len(grids))
        chunks = [grids[i : i + size] for i in range(0, len(grids), size)]
        if len(chunks) <= 1:
            labels = label_positions(grids, mines, first_click)
            if progress is not None:
                progress(len(grids))
            return labels
        parts: dict[int, np.ndarray] = {}
        for index, part in self._backend.run(label_chunk, (mines, first_click), chunks):  # as chunks finish
            parts[index] = part
            if progress is not None:
                progress(len(part))
        return np.concatenate([parts[index] for index in range(len(chunks))])

    def close(self) -> None:
        self._backend.close()

    def __enter__(self) -> Labeller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

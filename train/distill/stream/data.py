"""Labelled positions as a stream, for training on an accelerator while the CPU cores play and label.

- :func:`produce`: a worker process that plays boards by the oracle's policy (the safest hidden cell, a uniform
  hidden cell with chance ``explore``), labels every position with its exact mine probabilities
  (:mod:`train.distill.labels`) and puts them on a queue in chunks, until told to stop.
- :class:`LearnerPlay`: boards played by the network being trained (one batched forward pass a move), their
  positions labelled in a process pool: the states the learner itself reaches (DAgger), as the anchors train on.
- :class:`PositionBuffer`: a ring of positions on the training device, sampled uniformly, with the board's
  symmetries applied per minibatch, and with marks: the mines the labels make certain shown as flags (a random
  share of them, :func:`mark_known`), the input a network that marks its own certain mines reads as it plays
  (:mod:`agents.marks`).

With the levers of :mod:`train.distill.stream.levers` on, the oracle's workers are
:func:`train.distill.stream.levers.produce_varied` and a position travels with its true mines and its board's mine
count; the buffer keeps them beside it.
"""

from __future__ import annotations

import queue as queue_module
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, NamedTuple

import numpy as np
import torch as th

from agents.marks import score_marked
from mine_env.engine.batch import BatchEngine
from mine_env.engine.constants import FLAG, HIDDEN
from mine_env.engine.spec import BoardSpec
from train.distill.data import PositionCollector
from train.distill.labels import Labeller, label_positions

Chunk = tuple[Any, ...]
"""Grids int8 (N, rows, cols) and their labels float16 (N, rows, cols); with the levers, also the true mines float16
(N, rows, cols) and the mine counts int16 (N,), each None when not sent (:meth:`PositionBuffer.add`)."""


class Batch(NamedTuple):
    """A minibatch: grids int8 and labels float32 (n, rows, cols); the true mines float32 (n, rows, cols) and the
    boards' mine counts int16 (n,) where the buffer keeps them, else None."""

    grids: th.Tensor
    labels: th.Tensor
    truth: th.Tensor | None
    counts: th.Tensor | None


def produce(board: tuple[int, int, int, str], seed: int, boards: int, explore: float, chunk: int,
            out: Any, stop: Any) -> None:  # fmt: skip
    """A worker's loop (module-level, so a spawned process can run it): oracle play and labels in chunks of
    ``chunk`` positions onto the queue ``out``, until the event ``stop`` is set."""
    spec = BoardSpec(*board)
    with Labeller(workers=1) as labeller:
        collector = PositionCollector(spec, boards, seed, labeller, explore)
        while not stop.is_set():
            grids, labels, _ = collector.collect(chunk, (1.0, 0.0, 0.0), None)
            put_until_stopped(out, (grids, labels.astype(np.float16)), stop)


def put_until_stopped(out: Any, item: Any, stop: Any) -> None:
    """Put ``item`` on the queue ``out``, waiting while it is full, unless the event ``stop`` is set first."""
    while not stop.is_set():
        try:
            out.put(item, timeout=0.5)
            return
        except queue_module.Full:
            continue


class LearnerPlay:
    """``boards`` boards played greedily by a scorer of safety logits (its highest hidden cell; a uniform hidden
    cell with chance ``explore``), each position sent to ``pool`` for its labels; :meth:`harvest` returns the
    labelled ones. With ``mark_above`` the scorer marks its own certain mines as it plays (:mod:`agents.marks`):
    it reads them as flags, and never reveals a marked cell while an unmarked one is hidden. With ``truth`` a
    harvested chunk carries the boards' true mines too (the label where a game has no layout yet).

    With ``rescue`` a move onto a mine is replaced by the scorer's best cell that is safe (read from the layout,
    never shown to the scorer), so the learner's games run to their end instead of stopping at its first mistake:
    its positions cover the middle and the endgame of its own play, not only its openings. :attr:`rescued` counts
    the moves replaced."""

    def __init__(self, spec: BoardSpec, boards: int, seed: int, explore: float, pool: Executor,
                 mark_above: float | None = None, truth: bool = False, rescue: bool = False) -> None:  # fmt: skip
        self.spec = spec
        self.engine = BatchEngine(spec, boards)
        self.engine.reset(seed)
        self.rng = np.random.default_rng(seed)
        self.explore = explore
        self.pool = pool
        self.mark_above = mark_above
        self.marks = np.zeros((boards, spec.rows * spec.cols), dtype=bool)
        self.truth = truth
        self.rescue = rescue
        self.rescued = 0
        self.pending: deque[tuple[np.ndarray, Future[np.ndarray], Any]] = deque()

    def step(self, scorer: Callable[[np.ndarray], np.ndarray]) -> None:
        """Send the boards' positions to be labelled and play one move on each."""
        grids = self.engine.grids()
        layouts = self.engine.layouts() if self.truth or self.rescue else None
        self.pending.append((grids, self.pool.submit(label_positions, grids, self.spec.mines, self.spec.first_click),
                             layouts if self.truth else None))  # fmt: skip
        flat = grids.reshape(len(grids), -1)
        hidden = flat == HIDDEN
        if self.mark_above is None:
            scores, playable = scorer(grids), hidden
        else:
            scores, self.marks, playable = score_marked(scorer, grids, self.marks, self.mark_above)
        actions = np.where(playable, scores, -np.inf).argmax(axis=1)
        explore = self.rng.random(len(grids)) < self.explore
        noise = self.rng.random(flat.shape)
        actions[explore] = np.where(hidden[explore], noise[explore], -np.inf).argmax(axis=1)
        if self.rescue and layouts is not None:
            actions = self._rescued(actions, scores, playable, hidden, *layouts)
        finished = self.engine.step(actions)
        self.marks[finished.terminated | finished.truncated] = False

    def _rescued(self, actions: np.ndarray, scores: np.ndarray, playable: np.ndarray, hidden: np.ndarray,
                 mines: np.ndarray, known: np.ndarray) -> np.ndarray:  # fmt: skip
        """``actions`` with each move onto a known mine replaced by the best-scored safe playable cell (a safe
        hidden one where every playable cell is a mine: a wrong mark hides the safe cell)."""
        rows = np.arange(len(actions))
        wrong = known & (mines[rows, actions] == 1)
        if not wrong.any():
            return actions
        safe = mines[wrong] == 0
        allowed = np.where((playable[wrong] & safe).any(axis=1, keepdims=True), playable[wrong], hidden[wrong])
        actions = actions.copy()
        actions[wrong] = np.where(allowed & safe, scores[wrong], -np.inf).argmax(axis=1)
        self.rescued += int(wrong.sum())
        return actions

    def harvest(self) -> list[Chunk]:
        """The positions whose labels are ready, oldest first."""
        done: list[Chunk] = []
        while self.pending and self.pending[0][1].done():
            grids, future, layouts = self.pending.popleft()
            labels = future.result()
            if layouts is None:
                done.append((grids, labels.astype(np.float16)))
                continue
            mines, known = layouts
            truth = np.where(known[:, None, None], mines.reshape(grids.shape), labels)
            done.append((grids, labels.astype(np.float16), truth.astype(np.float16), None))
        return done


class PositionBuffer:
    """The last ``capacity`` positions on ``device``; :meth:`sample` draws a minibatch uniformly, in a random one of
    the board's symmetries (flips; transposes too on a square board), the labels transformed alike.

    With ``truth`` it keeps each position's true mines too (its label where a chunk carries none), with
    ``default_count`` each position's mine count (that count where a chunk carries none)."""

    def __init__(self, capacity: int, rows: int, cols: int, device: th.device, generator: th.Generator,
                 seed: int, truth: bool = False, default_count: int | None = None) -> None:  # fmt: skip
        self.grids = th.empty((capacity, rows, cols), dtype=th.int8, device=device)
        self.labels = th.empty((capacity, rows, cols), dtype=th.float16, device=device)
        self.truth = th.empty((capacity, rows, cols), dtype=th.float16, device=device) if truth else None
        self.counts = None if default_count is None else th.empty(capacity, dtype=th.int16, device=device)
        self.default_count = default_count
        self.capacity = capacity
        self.size = 0
        self.next = 0
        self.added = 0
        self.generator = generator
        self.rng = np.random.default_rng(seed)

    def add(self, grids: np.ndarray, labels: np.ndarray, truth: np.ndarray | None = None,
            counts: np.ndarray | None = None) -> None:  # fmt: skip
        """Append positions (with their true mines and mine counts where kept), overwriting the oldest once full."""
        n = min(len(grids), self.capacity)
        first = min(n, self.capacity - self.next)
        self._store(self.grids, grids[-n:], first)
        self._store(self.labels, np.asarray(labels[-n:], dtype=np.float16), first)
        if self.truth is not None:
            self._store(self.truth, np.asarray((labels if truth is None else truth)[-n:], dtype=np.float16), first)
        if self.counts is not None:
            self._store(self.counts, np.full(n, self.default_count, np.int16) if counts is None
                        else np.asarray(counts[-n:], dtype=np.int16), first)  # fmt: skip
        self.next = (self.next + n) % self.capacity
        self.size = min(self.capacity, self.size + n)
        self.added += len(grids)

    def _store(self, target: th.Tensor, values: np.ndarray, first: int) -> None:
        """Write ``values`` at the ring's next slots: ``first`` of them before its end, the rest from its start."""
        tensor = th.from_numpy(np.ascontiguousarray(values)).to(target.device, non_blocking=True)
        target[self.next:self.next + first] = tensor[:first]
        target[:len(values) - first] = tensor[first:]

    def sample(self, n: int, marks: bool = False) -> Batch:
        """``n`` positions drawn with replacement (:class:`Batch`); with ``marks``, a random share of each
        position's certain mines flagged (:func:`mark_known`)."""
        device = self.grids.device
        index = th.randint(self.size, (n,), device=device, generator=self.generator)
        grids, labels = self.grids[index], self.labels[index].float()
        truth = None if self.truth is None else self.truth[index].float()
        flips = self.rng.integers(2, size=3)  # drawn on the host: no wait on the device
        for dim, flip in zip((1, 2), flips[:2], strict=True):
            if flip:
                grids, labels = grids.flip(dim), labels.flip(dim)
                truth = None if truth is None else truth.flip(dim)
        if flips[2] and grids.shape[1] == grids.shape[2]:
            grids, labels = grids.transpose(1, 2), labels.transpose(1, 2)
            truth = None if truth is None else truth.transpose(1, 2)
        if marks:
            grids = mark_known(grids, labels, self.generator)
        counts = None if self.counts is None else self.counts[index]
        return Batch(grids.contiguous(), labels.contiguous(), None if truth is None else truth.contiguous(), counts)


def mark_known(grids: th.Tensor, labels: th.Tensor, generator: th.Generator) -> th.Tensor:
    """The grids with some of their certain mines (hidden cells labelled 1) flagged: all of them in half the
    positions, each with a chance drawn uniformly per position in the other half.

    A network that marks its own certain mines as it plays has, at any move, marked nearly all it has found: the
    ones the last reveal made certain are not marked yet. Both ends and what lies between are trained on.
    """
    n = len(grids)
    device = grids.device
    share = th.rand((n, 1, 1), device=device, generator=generator)
    share = th.where(th.rand((n, 1, 1), device=device, generator=generator) < 0.5, th.ones_like(share), share)
    chosen = th.rand(grids.shape, device=device, generator=generator) < share
    known = (grids == HIDDEN) & (labels >= 1.0)
    return th.where(known & chosen, th.full_like(grids, FLAG), grids)

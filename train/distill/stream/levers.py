"""Four levers of streamed distillation (:mod:`train.distill.stream.run`), all off by default; the published 44.85%
expert agent trains with the first three.

- ``--mine-range LO,HI``: the oracle workers' games each hold a mine count drawn uniformly in [LO, HI] when the
  game starts (:class:`VariedBoards`, from the worker's seeded generator), labelled by the oracle with that count
  (:func:`label_varied`). Varied densities show the network the same local patterns under many counts of the
  mines left, which is what the cells no number touches, and the endgame, turn on.
- ``--targets exact|mines|both``: the per-cell loss on a hidden cell is taken against the oracle's exact mine
  chance (as before), the layout's true mine (0 or 1: what the game will show, an unbiased sample of that chance),
  or both (the mean of the two losses, which is the loss against the mean of the two targets: binary
  cross-entropy is linear in its target). The other terms (revealed cells, the choice of the oracle's safest
  cells) stay the oracle's. A position whose game has no layout yet (the untouched board under the ``opening``
  or ``safe`` rule) or whose layout is unknown (a ``--dataset``'s) keeps the exact label as its true-mine target.
- ``--scatter SHARE``: that share of every worker's chunk is scattered boards (:mod:`train.distill.stream.scattered`: a
  fresh layout, each safe cell opened with a chance drawn per board) instead of the oracle's games, labelled
  exactly under the ``none`` rule, their mine counts drawn as the games' are.
- ``--log-odds-weight W``: W times the squared error of the mine log-odds against the oracle's on the hidden cells
  of an uncertain chance (:func:`train.distill.losses.log_odds_loss`), beside whatever ``--targets`` says: the
  cross-entropy weighs a small chance's error by its size, and the network's chances under 1% come out about three
  times too low, which a player revealing every cell under 1% pays for.

How the network reads a varied count: only through its density plane (mines not yet shown per covered cell,
:func:`agents.networks.layers.remaining_density`), which training measures per position against the position's
own count (:func:`board_density`). The trunks' ``mines`` (the count the plane is measured against when they
play) stays the preset's, so a model trained with a range is saved, loaded and played exactly as one without:
at play time on expert (99 mines) nothing changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from numba import njit

from agents.networks.layers import remaining_density
from agents.solver import first_click_cell
from mine_env.engine import rules as k
from mine_env.engine.constants import HIDDEN
from mine_env.engine.rng import draw_layout_keys
from mine_env.engine.spec import BoardSpec
from train.distill.labels import label_positions
from train.distill.losses import choice_loss, distill_loss, log_odds_loss
from train.distill.stream.data import put_until_stopped
from train.distill.stream.scattered import scattered_boards

TARGETS = ("exact", "mines", "both")
"""What the per-cell loss on a hidden cell is taken against (``--targets``)."""


def mine_range_bounds(text: str, spec: BoardSpec) -> tuple[int, int] | None:
    """``--mine-range LO,HI`` as (LO, HI) checked against the board (None for an empty text: the option is off).

    Raises:
        ValueError: not two integers, LO above HI or below 1, or HI more mines than the board holds.
    """
    if not text.strip():
        return None
    try:
        low, high = (int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"mine_range must be two integers LO,HI (e.g. 40,160), got {text!r}") from None
    if not 1 <= low <= high:
        raise ValueError(f"mine_range LO,HI needs 1 <= LO <= HI, got {text!r}")
    try:
        BoardSpec(spec.rows, spec.cols, high, spec.first_click)
    except ValueError as error:
        raise ValueError(f"mine_range {text!r}: {error}") from None
    return low, high


@njit(cache=True)
def _play(obs: np.ndarray, mines: np.ndarray, counts: np.ndarray, meta: np.ndarray, stack: np.ndarray,
          n_mines: np.ndarray, rows: int, cols: int, rule: int, actions: np.ndarray,
          ended: np.ndarray) -> None:  # fmt: skip
    """Reveal ``actions[i]`` on board i (its own mine count ``n_mines[i]``); ``ended[i]``: its game is over."""
    for i in range(obs.shape[0]):
        k.apply_action(obs[i], mines[i], counts[i], meta[i], stack, k.Rules(rows, cols, n_mines[i], rule), False,
                       actions[i])  # fmt: skip
        status = meta[i, k.META_STATUS]
        ended[i] = status == k.WON or status == k.LOST


@njit(cache=True)
def _start(obs: np.ndarray, mines: np.ndarray, counts: np.ndarray, meta: np.ndarray, stack: np.ndarray,
           n_mines: np.ndarray, rows: int, cols: int, rule: int, which: np.ndarray,
           keys: np.ndarray) -> None:  # fmt: skip
    """Start a new game on each board of ``which`` (layout key ``keys[j]`` for board ``which[j]``)."""
    for j in range(which.shape[0]):
        i = which[j]
        k.new_game(obs[i], mines[i], counts[i], meta[i], stack, k.Rules(rows, cols, n_mines[i], rule), keys[j])


class VariedBoards:
    """``boards`` games of one size and rule, each with its own mine count drawn uniformly in ``mine_range`` when
    it starts; the counts and the layout keys come from ``rng``. The rules are the engine's own
    (:mod:`mine_env.engine.rules`); only the mine count differs from board to board, and a game ends by a win or a
    loss (the oracle's play reveals a hidden cell every move, so no game needs a step limit)."""

    def __init__(self, spec: BoardSpec, boards: int, mine_range: tuple[int, int], rng: np.random.Generator) -> None:
        self.spec = spec
        self.mine_range = mine_range
        self.rng = rng
        self.rule = k.RULE_CODES[spec.first_click]
        cells = spec.n_cells
        self.obs = np.full((boards, cells), HIDDEN, dtype=np.int8)
        self.mines = np.zeros((boards, cells), dtype=np.uint8)
        self.counts = np.zeros((boards, cells), dtype=np.int8)
        self.meta = np.zeros((boards, k.META_SIZE), dtype=np.int64)
        self.stack = np.empty(cells, dtype=np.int32)
        self.n_mines = np.zeros(boards, dtype=np.int64)
        self.ended = np.zeros(boards, dtype=np.bool_)
        self._start(np.arange(boards))

    def _start(self, which: np.ndarray) -> None:
        low, high = self.mine_range
        self.n_mines[which] = self.rng.integers(low, high + 1, size=len(which))
        keys = draw_layout_keys(self.rng, len(which))
        _start(self.obs, self.mines, self.counts, self.meta, self.stack, self.n_mines, self.spec.rows,
               self.spec.cols, self.rule, which, keys)  # fmt: skip

    def grids(self) -> np.ndarray:
        """A copy of every board's grid, int8 (N, rows, cols)."""
        return self.obs.reshape(len(self.obs), self.spec.rows, self.spec.cols).copy()

    def truth(self, labels: np.ndarray) -> np.ndarray:
        """Every board's true mines as float (N, rows, cols), the ``labels`` where its game has no layout yet."""
        known = self.meta[:, k.META_STATUS] == k.PLAYING
        return np.where(known[:, None, None], self.mines.reshape(labels.shape), labels)

    def step(self, actions: np.ndarray) -> np.ndarray:
        """Reveal ``actions[i]`` on board i; a game that ends is replaced by a new one at once. Returns which ended."""
        _play(self.obs, self.mines, self.counts, self.meta, self.stack, self.n_mines, self.spec.rows, self.spec.cols,
              self.rule, actions.astype(np.int64), self.ended)  # fmt: skip
        which = np.flatnonzero(self.ended)
        if which.size:
            self._start(which)
        return self.ended.copy()


def label_varied(grids: np.ndarray, counts: np.ndarray, first_click: str) -> np.ndarray:
    """:func:`train.distill.labels.label_positions` of each grid with its own mine count, float32."""
    labels = np.empty(grids.shape, dtype=np.float32)
    for count in np.unique(counts):
        which = counts == count
        labels[which] = label_positions(grids[which], int(count), first_click)
    return labels


def oracle_moves(grids: np.ndarray, labels: np.ndarray, rng: np.random.Generator, explore: float,
                 first_cell: int) -> np.ndarray:  # fmt: skip
    """The oracle's move on each grid (the rule's first cell on an untouched board, else the hidden cell of least
    mine chance, ties broken at random), a uniform hidden cell instead with chance ``explore``."""
    n = len(grids)
    hidden = grids.reshape(n, -1) == HIDDEN
    noise = rng.random(hidden.shape)
    actions = np.where(hidden, -labels.reshape(n, -1) + 1e-6 * noise, -np.inf).argmax(axis=1)
    actions[hidden.all(axis=1)] = first_cell
    explore_now = rng.random(n) < explore
    actions[explore_now] = np.where(hidden[explore_now], noise[explore_now], -np.inf).argmax(axis=1)
    return actions


class OracleBoards:
    """The oracle's games on :class:`VariedBoards` (the board's own count when ``mine_range`` is None), every
    position labelled with its game's count; :meth:`collect` returns them with their true mines and counts."""

    def __init__(self, spec: BoardSpec, boards: int, seed: int, explore: float,
                 mine_range: tuple[int, int] | None) -> None:  # fmt: skip
        self.spec = spec
        self.rng = np.random.default_rng(seed)
        self.boards = VariedBoards(spec, boards, mine_range or (spec.mines, spec.mines), self.rng)
        self.explore = explore
        self.first_cell = int(np.ravel_multi_index(first_click_cell(spec.rows, spec.cols, spec.first_click),
                                                   (spec.rows, spec.cols)))  # fmt: skip

    def collect(self, positions: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Play until ``positions`` positions are labelled: grids int8, labels float32, true mines float32 (the
        label where the game has no layout yet), mine counts int16 (N,)."""
        parts: list[tuple[np.ndarray, ...]] = []
        collected = 0
        while collected < positions:
            grids, counts = self.boards.grids(), self.boards.n_mines.astype(np.int16)
            labels = label_varied(grids, counts, self.spec.first_click)
            parts.append((grids, labels, self.boards.truth(labels).astype(np.float32), counts))
            collected += len(grids)
            self.boards.step(oracle_moves(grids, labels, self.rng, self.explore, self.first_cell))
        grids, labels, truth, counts = (np.concatenate(part)[:positions] for part in zip(*parts, strict=True))
        return grids, labels, truth, counts


def scattered_positions(spec: BoardSpec, positions: int, rng: np.random.Generator,
                        mine_range: tuple[int, int] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``positions`` scattered boards (:func:`train.distill.stream.scattered.scattered_boards`) of mine counts drawn in
    ``mine_range`` (the board's own without one), labelled exactly: grids, labels, true mines, counts, as
    :meth:`OracleBoards.collect` returns them."""
    low, high = mine_range or (spec.mines, spec.mines)
    counts = rng.integers(low, high + 1, size=positions).astype(np.int16)
    grids, mines = scattered_boards(spec, counts, rng)
    return grids, label_varied(grids, counts, "none"), mines, counts


def board_density(grids: th.Tensor, counts: th.Tensor) -> th.Tensor:
    """The density plane's value (N,) of each grid measured against its own mine count ``counts`` (N,)."""
    return remaining_density(grids, counts.long())  # type: ignore[arg-type]  (elementwise on a tensor of counts)


def lever_loss(logits: th.Tensor, grids: th.Tensor, labels: th.Tensor, truth: th.Tensor | None, targets: str,
               revealed_weight: float, choice_weight: float, log_odds_weight: float = 0.0,
               per_position: bool = False) -> th.Tensor:  # fmt: skip
    """The stream's loss on flat (N, cells) tensors with ``--targets``: :func:`train.distill.losses.distill_loss`
    against the exact ``labels`` (``exact``: as before), the true mines ``truth`` or their mean with the labels;
    the choice term always on the oracle's safest cells, and ``log_odds_weight`` times
    :func:`train.distill.losses.log_odds_loss` against the exact labels (``--log-odds-weight``).

    With ``per_position`` (``--per-position``) the cross-entropy terms are each position's mean, averaged over the
    positions: an endgame position of ~110 hidden cells counts as much as an opening of ~450 (by default a position
    counts by its hidden cells), and the endgame is where the expert network's errors lose games
    (docs/lab/2026-12-03-where-the-expert-network-loses.md)."""
    weight = position_weights(grids) if per_position else th.ones_like(labels)
    if targets == "exact" or truth is None:
        loss = distill_loss(logits, grids, labels, weight, revealed_weight, choice_weight)
    else:
        cells = truth if targets == "mines" else 0.5 * (labels + truth)
        loss = distill_loss(logits, grids, cells, weight, revealed_weight)
        if choice_weight:
            loss = loss + choice_weight * choice_loss(logits, labels, grids == HIDDEN)
    if log_odds_weight:
        loss = loss + log_odds_weight * log_odds_loss(logits, labels, grids == HIDDEN)
    return loss


def position_weights(grids: th.Tensor) -> th.Tensor:
    """Cell weights (N, cells) under which every position of the batch weighs alike in the two cross-entropy terms:
    a hidden cell one over its position's hidden cells, a revealed one over its revealed cells, each scaled by the
    batch's mean count so that the loss keeps its size."""
    hidden = grids == HIDDEN
    hidden_count = hidden.sum(dim=1, keepdim=True).float().clamp(min=1.0)
    revealed_count = (~hidden).sum(dim=1, keepdim=True).float().clamp(min=1.0)
    return th.where(hidden, hidden_count.mean() / hidden_count, revealed_count.mean() / revealed_count)


def produce_varied(board: tuple[int, int, int, str], seed: int, boards: int, explore: float, chunk: int,
                   mine_range: tuple[int, int] | None, truth: bool, scatter: float, out: Any,
                   stop: Any) -> None:  # fmt: skip
    """A worker's loop (module-level, for a spawned process): :class:`OracleBoards`' positions in chunks of
    ``chunk`` onto the queue ``out`` as (grids, labels, true mines or None, counts or None), until ``stop``; with
    ``scatter`` above 0 that share of every chunk is scattered boards instead (:func:`scattered_positions`)."""
    spec = BoardSpec(*board)
    collector = OracleBoards(spec, boards, seed, explore, mine_range)
    scattered = round(chunk * scatter)
    while not stop.is_set():
        parts = [collector.collect(chunk - scattered)] if scattered < chunk else []
        if scattered:
            parts.append(scattered_positions(spec, scattered, collector.rng, mine_range))
        grids, labels, mines, counts = (np.concatenate(part) for part in zip(*parts, strict=True))
        item = (grids, labels.astype(np.float16), mines.astype(np.float16) if truth else None,
                counts if mine_range else None)  # fmt: skip
        put_until_stopped(out, item, stop)

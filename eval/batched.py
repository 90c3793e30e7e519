"""A suite's games played all at once by a network: one batched forward pass a move for thousands of games.

:func:`play_batched` plays the games of a :class:`~eval.suites.Suite` with a greedy scorer (the highest score
among the hidden cells is revealed), stepping every unfinished game together with the engine's own kernels:
game ``i`` is the layout of :meth:`Suite.layout_key` ``(i)`` and its first reveal places the mines, exactly as the
env does after ``reset(seed=game_seeds(i).env)``, so a game here is the game ``minesweeper eval --model`` plays
(the same first cell, the same moves, up to the rounding of the scores on another device). A network on a GPU
plays expert-opening-10k in seconds where the per-game runner takes hours on a CPU.

Run: ``python -m eval.batched --model distill-expert --suite expert-opening-10k --device cuda``, or
``--preset expert --games 1000 --seed 5151`` for the games ``minesweeper eval`` plays with those options
(``--start zero``: the anchor's start, :mod:`mine_env.engine.starts`; on a CPU, ``--workers N`` splits the games
over N processes). A model whose card gives a mark threshold (``mark_above``) plays with marks
(:mod:`agents.marks`); ``--mark-above`` overrides it. ``--reveal-below 0.01`` plays as the published 44.85% expert
agent's player does: every cell under a 1% mine chance revealed after one call of the network, its safest cell when
none is. ``--symmetries 4 --sure 1e-5`` plays it mirrored where it is unsure, as ``minesweeper eval`` does
(:func:`agents.networks.mirrored_play.gated_batch_scorer`: one more batched pass a move, over the unsure games'
other images).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from agents.marks import score_marked
from agents.model_card import ModelCard, model_paths
from agents.networks.mirrored_play import gated_batch_scorer
from backends.base import check_workers
from backends.local import LocalBackend
from eval.stats import wilson_interval
from eval.suites import Suite
from mine_env.engine import rules as k
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import RULE_CODES
from mine_env.engine.starts import zero_start_cell
from mine_env.engine.symmetry import check_symmetries

Scorer = Callable[[np.ndarray], np.ndarray]
"""Scores (N, cells) of a batch of grids (N, rows, cols) int8; the highest hidden cell is played."""
Columns = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""A block of games' won, first cell, moves and calls: :class:`BatchedResult`'s columns."""
Finished = Callable[[np.ndarray, Columns], None]
"""``finished(games, columns)``: told of games as they end (their indices in the suite, and their columns), to
log them and show progress."""


@dataclass(frozen=True)
class PlayRule:
    """How one call's scores become moves.

    Attributes:
        mark_above: Mark the cells of a mine chance above it and show them to the network as flags
            (:mod:`agents.marks`); None: no marks.
        reveal_below: Reveal every playable cell of a mine chance below it after one call (the scores are safety
            logits), the safest first; the safest cell alone when none is below, and on an untouched board, where
            the first-click rule vouches for the clicked cell only (a network learns the first click's images of
            the board's symmetries as safe alike: :func:`train.distill.labels.label_positions`). None: the safest
            cell alone.
        opening: The cell (flat) every game the agent opens reveals first: a model's learnt opening
            (:mod:`agents.opening`); None: the network's own pick.
    """

    mark_above: float | None = None
    reveal_below: float | None = None
    opening: int | None = None

    def __post_init__(self) -> None:
        if self.reveal_below is not None and not 0.0 < self.reveal_below < 0.5:
            raise ValueError(f"--reveal-below is a mine chance between 0 and 0.5, got {self.reveal_below:g}")

    def cells(self, scores: np.ndarray, playable: np.ndarray) -> np.ndarray:
        """The cells (N, K) each game reveals after this call, in order, padded with -1: the safest playable cell,
        then with ``reveal_below`` every other playable cell below it where a cell is already revealed."""
        best = np.where(playable, scores, -np.inf).argmax(axis=1)
        if self.reveal_below is None:
            return best[:, None]
        started = ~playable.all(axis=1, keepdims=True)
        chosen = playable & started & (scores > np.log((1.0 - self.reveal_below) / self.reveal_below))
        chosen[np.arange(len(best)), best] = True
        order = np.argsort(np.where(chosen, -scores, np.inf), axis=1, kind="stable")[:, : chosen.sum(axis=1).max()]
        return np.where(np.take_along_axis(chosen, order, axis=1), order, -1)


@dataclass
class BatchedResult:
    """Per game of the suite: won, the first cell revealed (flat), the cells the player revealed (its moves) and
    the scorer's calls (one a move unless the rule reveals several cells a call)."""

    won: np.ndarray
    first_cell: np.ndarray
    moves: np.ndarray
    calls: np.ndarray
    seconds: float

    def summary(self) -> dict[str, Any]:
        wins, games = int(self.won.sum()), int(self.won.size)
        low, high = wilson_interval(wins, games)
        return {"games": games, "wins": wins, "win_rate": wins / games, "ci95": [low, high],
                "moves": int(self.moves.sum()), "calls": int(self.calls.sum()),
                "seconds": round(self.seconds, 1)}  # fmt: skip


@njit(cache=True)
def _new_games(obs, mines, counts, meta, stack, rules, keys):  # type: ignore[no-untyped-def]
    for i in range(obs.shape[0]):
        k.new_game(obs[i], mines[i], counts[i], meta[i], stack, rules, keys[i])


@njit(cache=True)
def _play(obs, mines, counts, meta, stack, rules, which, cells, moves):  # type: ignore[no-untyped-def]
    """Game ``which[j]`` reveals ``cells[j]`` in order (-1: none), until it ends; ``moves`` counts its reveals."""
    for j in range(which.shape[0]):
        i = which[j]
        for cell in cells[j]:
            if cell < 0 or meta[i, k.META_STATUS] > k.PLAYING:
                break
            if k.apply_action(obs[i], mines[i], counts[i], meta[i], stack, rules, False, cell) != k.INVALID:
                moves[i] += 1


def play_batched(scorer: Scorer, suite: Suite, games: int | None = None, batch: int = 10_000,
                 mark_above: float | None = None, reveal_below: float | None = None,
                 only: Sequence[int] | None = None, finished: Finished | None = None,
                 opening: int | None = None) -> BatchedResult:  # fmt: skip
    """Play the first ``games`` games of ``suite`` (all by default), ``batch`` games at a time, each started as
    the suite says (:attr:`Suite.start`); with ``mark_above``, the scorer's safety logits mark its sure mines
    (:mod:`agents.marks`); with ``reveal_below``, a call reveals every cell below that mine chance; with
    ``opening``, every game the agent opens starts on that cell (:class:`PlayRule`). ``only``: play just these of
    those games (a resumed run's), in this order; ``finished`` is told of every game as it ends.

    Raises:
        ValueError: a suite with a fixed first cell or no-guess boards (not played here), or a rule out of range.
    """
    rule = PlayRule(mark_above, reveal_below, opening)
    played = _games_left(suite, games, only)
    began = time.perf_counter()
    return BatchedResult(*_play_games(scorer, suite, played, batch, rule, finished), time.perf_counter() - began)


def play_model_batched(model: str, suite: Suite, games: int | None = None, batch: int = 10_000, device: str = "cpu",
                       mark_above: float | None = None, workers: int = 1, passes: int | None = None,
                       reveal_below: float | None = None, symmetries: int = 1, sure: float = 0.0,
                       only: Sequence[int] | None = None, finished: Finished | None = None,
                       opening: bool = False) -> BatchedResult:  # fmt: skip
    """:func:`play_batched` of the saved ``model`` on ``device``, its games split into chunks of consecutive games
    played by ``workers`` CPU processes (each loads the model; the games and their outcomes are those of one
    process).
    On a CPU one process gains nothing from more torch threads on these small convolutions, so processes are the
    way to use the cores. ``symmetries`` and ``sure``: the network's scores averaged over that many of the board's
    images where it is less sure than ``sure`` (everywhere when 0), as ``minesweeper eval`` plays them.
    ``opening``: open every game the agent opens on the model card's learnt first cell (:mod:`agents.opening`).

    Raises:
        ValueError: ``workers`` above 1 on a device other than the CPU, ``passes`` for a network that is not the
            iterated trunk, ``reveal_below`` for one whose scores are not safety logits, symmetries the board does
            not have or a gate that cannot work, an opening the card lacks or learnt on another board, or a suite
            or rule :func:`play_batched` refuses.
    """
    check_workers(workers)
    rule = PlayRule(mark_above, reveal_below, learnt_opening(model, suite) if opening else None)
    if passes is not None:
        check_passes(model, passes)
    if reveal_below is not None:
        check_safety_logits(model)
    check_symmetries(symmetries, suite.rows, suite.cols)
    check_gate(model, symmetries, sure)
    if workers > 1 and device != "cpu":
        raise ValueError(f"--workers splits the games over CPU processes; on {device} one process plays them all: "
                         "drop --workers")  # fmt: skip
    played = _games_left(suite, games, only)
    if workers == 1:
        scorer = gated_batch_scorer(model_scorer(model, device, suite.mines, passes), symmetries, sure)
        return play_batched(scorer, suite, games, batch, mark_above, reveal_below, played, finished, rule.opening)
    size = max(1, min(batch, -(-len(played) // (4 * workers))))  # a few chunks a worker: progress, even shares
    chunks = [played[start : start + size] for start in range(0, len(played), size)]
    began = time.perf_counter()
    parts: dict[int, Columns] = {}
    with LocalBackend(workers) as backend:
        shared = (model, suite, batch, rule, passes, symmetries, sure)
        for index, columns in backend.run(_play_model_chunk, shared, chunks):
            parts[index] = columns
            if finished is not None:
                finished(np.asarray(chunks[index], dtype=np.int64), columns)
    columns = _joined([parts[i] for i in range(len(chunks))])
    return BatchedResult(*columns, time.perf_counter() - began)


def _games_left(suite: Suite, games: int | None, only: Sequence[int] | None) -> list[int]:
    """The games played: the suite's first ``games`` (or all), or ``only`` those of them, once the suite is one
    played here."""
    if suite.first_cell is not None or suite.boards != "random":
        raise ValueError("batched play covers random boards opened by the agent (no --first-cell, no no-guess)")
    total = suite.games if games is None else min(games, suite.games)
    if only is None:
        return list(range(total))
    if any(not 0 <= game < total for game in only):
        raise ValueError(f"games to play must lie in 0..{total - 1}")
    return [int(game) for game in only]


_SCORER: tuple[tuple[Any, ...], Scorer] | None = None
"""A worker process's scorer of the latest shared model: loaded once per process, not once per chunk."""


def _play_model_chunk(shared: tuple[str, Suite, int, PlayRule, int | None, int, float], chunk: list[int]) -> Columns:
    """A worker's part of :func:`play_model_batched`: the games ``chunk`` of the shared model."""
    global _SCORER
    model, suite, batch, rule, passes, symmetries, sure = shared
    key = (model, suite.mines, passes, symmetries, sure)
    if _SCORER is None or _SCORER[0] != key:
        _SCORER = (key, gated_batch_scorer(model_scorer(model, "cpu", suite.mines, passes), symmetries, sure))
    return _play_games(_SCORER[1], suite, chunk, batch, rule)


def _play_games(scorer: Scorer, suite: Suite, games: list[int], batch: int, rule: PlayRule,
                finished: Finished | None = None) -> Columns:  # fmt: skip
    """The games ``games``, ``batch`` at a time: the columns of each."""
    return _joined([_play_block(scorer, suite, games[start : start + batch], rule, finished)
                    for start in range(0, len(games), batch)])  # fmt: skip


def _joined(parts: list[Columns]) -> Columns:
    """Consecutive blocks' columns as one block's."""
    if not parts:
        return np.zeros(0, bool), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    won, first_cell, moves, calls = (np.concatenate(column) for column in zip(*parts, strict=True))
    return won, first_cell, moves, calls


def _play_block(scorer: Scorer, suite: Suite, indices: Sequence[int], rule: PlayRule,
                finished: Finished | None = None) -> Columns:  # fmt: skip
    rows, cols, cells = suite.rows, suite.cols, suite.rows * suite.cols
    rules = k.Rules(rows, cols, suite.mines, RULE_CODES[suite.first_click])
    n = len(indices)
    obs = np.empty((n, cells), np.int8)
    mines = np.empty((n, cells), np.uint8)
    counts = np.empty((n, cells), np.int8)
    meta = np.zeros((n, k.META_SIZE), np.int64)
    stack = np.empty(cells, np.int32)
    keys = np.array([suite.layout_key(i) for i in indices], dtype=np.int64)
    _new_games(obs, mines, counts, meta, stack, rules, keys)
    first_cell = np.full(n, -1, np.int64)
    if suite.start == "zero":
        for j, game in enumerate(indices):
            first_cell[j] = zero_start_cell(mines[j], counts[j], suite.game_seeds(game).env)
        opened = np.flatnonzero(first_cell >= 0)
        _play(obs, mines, counts, meta, stack, rules, opened, first_cell[opened, None], np.zeros(n, np.int64))
    moves = np.zeros(n, np.int64)
    if rule.opening is not None:  # the agent's own first move, as the per-game player makes it
        opens = np.flatnonzero(first_cell < 0)
        first_cell[opens] = rule.opening
        _play(obs, mines, counts, meta, stack, rules, opens, first_cell[opens, None], moves)
    calls = np.zeros(n, np.int64)
    marks = np.zeros((n, cells), dtype=bool)
    while True:
        playing = np.flatnonzero(meta[:, k.META_STATUS] <= k.PLAYING)
        if playing.size == 0:
            break
        grids = obs[playing]
        hidden = grids == HIDDEN
        if rule.mark_above is None:
            scores = np.asarray(scorer(grids.reshape(-1, rows, cols)), dtype=np.float64)
        else:
            scores, marks[playing], hidden = score_marked(scorer, grids.reshape(-1, rows, cols), marks[playing],
                                                          rule.mark_above)  # fmt: skip
        reveals = rule.cells(scores, hidden)
        untouched = first_cell[playing] < 0
        first_cell[playing[untouched]] = reveals[untouched, 0]
        calls[playing] += 1
        _play(obs, mines, counts, meta, stack, rules, playing, reveals, moves)
        ended = playing[meta[playing, k.META_STATUS] > k.PLAYING]
        if finished is not None and ended.size:
            won = meta[ended, k.META_STATUS] == k.WON
            finished(np.asarray(indices, dtype=np.int64)[ended], (won, first_cell[ended], moves[ended], calls[ended]))
    return meta[:, k.META_STATUS] == k.WON, first_cell, moves, calls


def model_scorer(path: str, device: str, mines: int, passes: int | None = None) -> Scorer:
    """A saved model's scores on ``device``, as ``minesweeper eval --model`` reads them (its action preferences);
    ``passes``: an iterated trunk's passes when it plays (its card's by default)."""
    from agents.networks.player import load_model_agent, tell_mine_count
    from agents.networks.trunks import set_passes

    agent = load_model_agent(path)
    agent.network.to(device)
    tell_mine_count(agent.network, mines)
    if passes is not None:
        set_passes(agent.network, passes)
    return agent.batch_scores


def learnt_opening(model: str, suite: Suite) -> int | None:
    """The model's learnt first cell (flat) for the games of ``suite`` the agent opens; None under the zero start,
    which opens a cell for it. ValueError: the card has none, or learnt it on another board or rule."""
    from agents.networks.player import checked_opening

    if suite.start == "zero":
        return None
    opening = checked_opening(ModelCard.of_model(model), model_paths(model)[0], suite.spec())
    return opening.action(suite.cols)


def check_passes(model: str, passes: int) -> None:
    """Refuse a pass count the model cannot play: at least 1, and only for the iterated trunk."""
    spec = ModelCard.of_model(model).network_spec
    if spec is None or spec.trunk != "iterated":
        raise ValueError(f"--passes: {model}'s network is not the iterated trunk (only it runs a chosen number of "
                         "passes); drop --passes")  # fmt: skip
    if passes < 1:
        raise ValueError(f"--passes must be at least 1, got {passes}")


def check_safety_logits(model: str) -> None:
    """Refuse ``--reveal-below`` for a model whose scores are not safety logits (only a distilled network's are)."""
    algo = ModelCard.of_model(model).algo
    if algo != "distill":
        raise ValueError(f"--reveal-below reads mine chances from safety logits, which only a distilled network "
                         f"gives; {model} is a {algo} model: drop --reveal-below")  # fmt: skip


def check_gate(model: str, symmetries: int, sure: float) -> None:
    """Refuse a ``sure`` gate that cannot work: out of (0, 1), without symmetries, or on scores that are not safety
    logits (:func:`agents.networks.player.check_sure`)."""
    from agents.networks.player import check_sure

    check_sure(sure, symmetries, ModelCard.of_model(model), model_paths(model)[0])


def card_mark_above(model: str) -> float:
    """The mark threshold a model's card says it plays with (0: none)."""
    return ModelCard.of_model(model).mark_above


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m eval.batched``: see :mod:`eval.batched_command`."""
    from eval.batched_command import main as command

    return command(argv)


if __name__ == "__main__":
    sys.exit(main())

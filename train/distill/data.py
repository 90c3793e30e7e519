"""Positions for distillation: played on the batched engine by a mix of policies, labelled by the oracle, kept
as a dataset on disk.

:class:`PositionCollector` plays N boards at once. Each game is played by one policy, drawn when it starts:

- ``oracle``: the cell of least exact mine probability (ties broken at random): the ``solver-fast`` policy;
- ``learner``: the network being trained, greedily (DAgger: the positions the learner reaches are the ones
  its mistakes lead to, and the oracle labels them too);
- ``random``: a uniform hidden cell (short games, early positions of every shape);

and any move is, with probability ``explore``, a uniform hidden cell instead. Every position reached is
labelled (:mod:`train.distill.labels`), whichever policy reached it.

A :class:`Dataset` is written as one compressed ``.npz``: the grids (int8), the labels (float16, exact to
about 1e-3 of each probability), the default solver's choices in the guess positions where they were asked for
(:mod:`train.distill.guesses`), and the JSON of the board and the configuration that generated it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.solver import first_click_cell
from mine_env.engine.batch import BatchEngine
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from train.distill.guesses import NO_CHOICE, solver_choices
from train.distill.labels import Labeller

POLICIES = ("oracle", "learner", "random")
"""The policies that play the collected games, in the order of their shares."""

Scorer = Callable[[np.ndarray], np.ndarray]
"""The learner: grids (N, rows, cols) int8 to a preference per cell (N, rows * cols), higher = play."""

LATE_FRACTION = 0.1
"""A position is *late* when fewer than this fraction of the board's safe cells are still hidden: the endgame,
where the count of the remaining mines decides and most hidden cells are mines."""


@dataclass
class Dataset:
    """Labelled positions of one board: ``grids`` int8 (N, rows, cols), ``labels`` float16 mine probabilities
    of the same shape, the board they were played on and the configuration that generated them; ``choices``
    int16 (N,): the default solver's guess (a flat cell) where it was recorded, :data:`NO_CHOICE` elsewhere
    (all of them unless :meth:`record_solver_choices` ran)."""

    spec: BoardSpec
    grids: np.ndarray
    labels: np.ndarray
    config: dict[str, Any] = field(default_factory=dict)
    choices: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))

    def __post_init__(self) -> None:
        if len(self.choices) != len(self.grids):
            if len(self.choices):
                raise ValueError(f"{len(self.choices)} choices for {len(self.grids)} positions")
            self.choices = np.full(len(self.grids), NO_CHOICE, np.int16)

    def __len__(self) -> int:
        return len(self.grids)

    def late_positions(self) -> np.ndarray:
        """Indices of the late positions (:data:`LATE_FRACTION`): a small share of any collection (a game has
        few of them), and the ones where the distilled networks still miss certainly safe cells."""
        safe_hidden = (self.grids == HIDDEN).sum(axis=(1, 2), dtype=np.int64) - self.spec.mines
        return np.flatnonzero(safe_hidden < LATE_FRACTION * self.spec.n_safe)

    def guess_positions(self) -> np.ndarray:
        """Indices of the positions with no certainly safe cell (every hidden cell's label above 0) after the first
        click: where a move is a true guess and only the ranking of the risky cells matters. About 0.5% of an
        intermediate collection."""
        hidden = self.grids == HIDDEN
        safe_hidden = (hidden & (self.labels == 0)).any(axis=(1, 2))
        started = ~hidden.all(axis=(1, 2))
        return np.flatnonzero(started & ~safe_hidden)

    def record_solver_choices(self, seed: int) -> int:
        """Record the default solver's guess in every guess position that has none yet; returns how many were
        recorded. The ``choice`` loss then teaches that cell there (``--guess-target solver``)."""
        missing = self.guess_positions()
        missing = missing[self.choices[missing] == NO_CHOICE]
        self.choices[missing] = solver_choices(self.grids[missing], self.spec.mines, seed)
        return len(missing)

    def extend(self, grids: np.ndarray, labels: np.ndarray, choices: np.ndarray | None = None) -> None:
        """Append positions (with the solver's ``choices`` when known, else none recorded)."""
        if choices is None:
            choices = np.full(len(grids), NO_CHOICE, np.int16)
        self.grids = np.concatenate([self.grids, grids])
        self.labels = np.concatenate([self.labels, labels.astype(np.float16)])
        self.choices = np.concatenate([self.choices, choices.astype(np.int16)])

    @classmethod
    def empty(cls, spec: BoardSpec, config: dict[str, Any]) -> Dataset:
        shape = (0, spec.rows, spec.cols)
        return cls(spec, np.zeros(shape, np.int8), np.zeros(shape, np.float16), config)

    def save(self, path: str | Path) -> Path:
        """Write the dataset as a compressed ``.npz`` (the suffix is added if missing); returns the path.

        The file is written beside the target and then renamed over it, so a run stopped while saving leaves
        the previous round's dataset whole, never a truncated one."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        board = {"rows": self.spec.rows, "cols": self.spec.cols, "mines": self.spec.mines,
                 "first_click": self.spec.first_click}  # fmt: skip
        meta = json.dumps({"board": board, "config": self.config})
        partial = path.with_name(path.name + ".partial")
        try:
            with partial.open("wb") as handle:
                np.savez_compressed(handle, grids=self.grids, labels=self.labels, choices=self.choices,
                                    meta=np.array(meta))  # fmt: skip
            partial.replace(path)
        finally:
            partial.unlink(missing_ok=True)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Dataset:
        """The dataset in ``path``.

        Raises:
            FileNotFoundError: no such file.
            ValueError: the file is not a dataset written by :meth:`save`.
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(
                f"no dataset at {path}: write one with 'minesweeper train distill --save-dataset {path}' "
                "(or leave --dataset out to generate the positions)"
            )
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                grids, labels = data["grids"], data["labels"]
                choices = data["choices"] if "choices" in data.files else np.zeros(0, np.int16)  # older files
            spec = BoardSpec(**meta["board"])
        except Exception as error:  # not a zip, missing arrays, bad JSON, bad board: all one message
            raise ValueError(f"{path} is not a distillation dataset (.npz written by train distill): {error}") from None
        if grids.shape != labels.shape or grids.shape[1:] != (spec.rows, spec.cols):
            raise ValueError(f"{path}: grids {grids.shape} and labels {labels.shape} do not match its board")
        if len(choices) not in (0, len(grids)):
            raise ValueError(f"{path}: {len(choices)} solver choices for {len(grids)} positions")
        return cls(spec, grids.astype(np.int8, copy=False), labels.astype(np.float16, copy=False), meta["config"],
                   choices.astype(np.int16, copy=False))  # fmt: skip

    def check_board(self, spec: BoardSpec, path: str | Path) -> None:
        """ValueError unless the dataset was played on ``spec`` (its mine count and rule decide every label)."""
        if self.spec != spec:
            mine = self.spec
            raise ValueError(
                f"dataset {path} holds positions of {mine.rows}x{mine.cols} boards with {mine.mines} mines "
                f"({mine.first_click} rule), not of the {spec.rows}x{spec.cols}/{spec.mines} ({spec.first_click}) "
                f"board this run trains on: give the dataset's board (--rows {mine.rows} --cols {mine.cols} "
                f"--mines {mine.mines} --first-click {mine.first_click}) or generate a dataset for this one"
            )


class PositionCollector:
    """N boards of one spec played by the policy mix of the module docstring; see :meth:`collect`."""

    def __init__(self, spec: BoardSpec, boards: int, seed: int, labeller: Labeller, explore: float = 0.05) -> None:
        self.spec = spec
        self.engine = BatchEngine(spec, boards)
        self.engine.reset(seed)
        self.rng = np.random.default_rng(seed)
        self.labeller = labeller
        self.explore = explore
        self.policy = np.zeros(boards, dtype=np.int64)
        self.first_cell = int(np.ravel_multi_index(first_click_cell(spec.rows, spec.cols, spec.first_click),
                                                   (spec.rows, spec.cols)))  # fmt: skip

    def collect(
        self,
        positions: int,
        shares: tuple[float, float, float],
        learner: Scorer | None,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
        """Play until ``positions`` positions are labelled; returns grids, labels (float32) and statistics.

        ``shares``: the chance a new game is played by the oracle, the learner and the random policy (the
        learner's share goes to the oracle while there is no learner yet).
        """
        shares_array = np.asarray(shares, dtype=np.float64)
        if learner is None:
            shares_array = np.array([shares_array[0] + shares_array[1], 0.0, shares_array[2]])
        shares_array = shares_array / shares_array.sum()
        self.policy = self.rng.choice(len(POLICIES), size=self.engine.num_boards, p=shares_array)
        grids_out, labels_out = [], []
        games = wins = 0
        collected = 0
        while collected < positions:
            grids = self.engine.grids()
            labels = self.labeller.label(grids, self.spec.mines, self.spec.first_click)
            grids_out.append(grids)
            labels_out.append(labels)
            collected += len(grids)
            if progress is not None:
                progress(len(grids))
            out = self.engine.step(self._actions(grids, labels, learner))
            ended = out.terminated | out.truncated
            games += int(ended.sum())
            wins += int(out.success[ended].sum())
            if ended.any():
                self.policy[ended] = self.rng.choice(len(POLICIES), size=int(ended.sum()), p=shares_array)
        stats = {"games": games, "win_rate": wins / games if games else float("nan")}
        return np.concatenate(grids_out)[:positions], np.concatenate(labels_out)[:positions], stats

    def _actions(self, grids: np.ndarray, labels: np.ndarray, learner: Scorer | None) -> np.ndarray:
        n = len(grids)
        flat = grids.reshape(n, -1)
        hidden = flat == HIDDEN
        noise = self.rng.random(flat.shape)
        scores = np.where(hidden, noise, -np.inf)  # random policy: a uniform hidden cell
        oracle = self.policy == 0
        scores[oracle] = np.where(hidden[oracle], -labels.reshape(n, -1)[oracle] + 1e-6 * noise[oracle], -np.inf)
        uses_learner = self.policy == 1
        if learner is not None and uses_learner.any():
            scores[uses_learner] = np.where(hidden[uses_learner], learner(grids[uses_learner]), -np.inf)
        actions = scores.argmax(axis=1)
        untouched = hidden.all(axis=1) & oracle
        actions[untouched] = self.first_cell
        explore = self.rng.random(n) < self.explore
        actions[explore] = np.where(hidden[explore], noise[explore], -np.inf).argmax(axis=1)
        return actions

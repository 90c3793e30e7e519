"""The guess-value agent: every certainly safe cell, and at a true guess the tied safest cell whose game is likeliest
won, by a value head learnt from the returns of played-out games.

Among the hidden cells of least exact mine chance (the oracle's tie mask: on intermediate five cells on average at
a guess, all equally safe) the one to reveal is a matter of what it leads to: ``solver-fast`` takes the one with
the fewest hidden neighbours, the solver looks one number ahead. Here a small network scores each tied cell by
the chance that its game is won once it is safe, learnt by reinforcement from Monte-Carlo returns
(:mod:`train.distill.guess.value`): each tied cell of ``solver-fast``'s guesses revealed on a copy of the game and
played on to the end. Picking the cell of highest learnt value is one step of policy iteration beyond
``solver-fast``.

The head reads each candidate's neighbourhood (:func:`candidate_features`: the 7x7 cells around it, each one-hot
as off the board, hidden or its number, and the position's mine chance, density and hidden share), so one head
plays any board size. It plays in numpy and compiled code (:mod:`agents.guess_value_kernels`), so playing needs
no torch.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from agents.guess_value_kernels import CODES, FEATURES, SCALARS, WINDOW, head_guess, plan, play_games
from agents.random_agent import allowed_reveals
from agents.shipped_models import shipped_dir
from agents.solver import first_click_cell
from agents.solver.agent import PlannedMovesAgent, compiled_game_starts
from agents.solver.outlook import TIE_TOLERANCE
from mine_env.engine.constants import DEFAULT_BOARDS, HIDDEN
from mine_env.engine.rules import RULE_CODES

__all__ = ["CODES", "FEATURES", "SCALARS", "WINDOW", "GuessValueAgent", "ValueHead", "candidate_features",
           "tied_safest"]  # fmt: skip

SHIPPED_HEAD = "guess_value.npz"
"""The shipped head's file among the shipped models (:func:`agents.shipped_models.shipped_dir`), trained on the
returns of beginner, intermediate and expert together (one head for every board; its card, ``guess_value.json``
beside it, says on what): the one ``--agent guess-value`` plays."""
_OFF_BOARD = 99


def candidate_features(grid: np.ndarray, cells: np.ndarray, chances: np.ndarray, mines: int) -> np.ndarray:
    """float32 (len(cells), :data:`FEATURES`): each candidate's neighbourhood one-hot (row-major, :data:`CODES`
    classes a cell; a flagged cell counts as hidden) and the scalars of :data:`SCALARS`, for the position ``grid``
    (rows, cols) with ``mines`` mines, candidates ``cells`` (flat indices) of exact mine chances ``chances``."""
    rows, cols = grid.shape
    side = 2 * WINDOW + 1
    padded = np.full((rows + 2 * WINDOW, cols + 2 * WINDOW), _OFF_BOARD, np.int16)
    padded[WINDOW : WINDOW + rows, WINDOW : WINDOW + cols] = grid
    cells = np.asarray(cells, np.int64)
    offsets = np.arange(side)
    windows = padded[(cells // cols)[:, None, None] + offsets[:, None], (cells % cols)[:, None, None] + offsets]
    windows = windows.reshape(len(cells), -1)
    classes = np.where(windows == _OFF_BOARD, 0, np.where(windows < 0, 1, windows + 2))  # a flag reads as hidden
    one_hot = np.zeros((len(cells), side * side, CODES), np.float32)
    np.put_along_axis(one_hot, classes[..., None].astype(np.int64), 1.0, axis=2)
    hidden = int((grid == HIDDEN).sum())
    scalars = np.empty((len(cells), SCALARS), np.float32)
    scalars[:, 0] = chances
    scalars[:, 1] = mines / max(hidden, 1)
    scalars[:, 2] = hidden / grid.size
    return np.concatenate([one_hot.reshape(len(cells), -1), scalars], axis=1)


class ValueHead:
    """The trained head in numpy: ReLU layers, then one logit a candidate (its game won once it is safe)."""

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray], features: int = FEATURES) -> None:
        if len(weights) != len(biases) or not weights or weights[0].shape[0] != features:
            raise ValueError(f"a value head takes {features} features a candidate; these weights do not")
        self.weights, self.biases = weights, biases

    @classmethod
    def load(cls, path: str | Path, features: int = FEATURES) -> ValueHead:
        """The head saved at ``path`` (``.npz`` of ``weight_0``, ``bias_0``, ... as :meth:`save` writes), which
        must take ``features`` inputs."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no value head at {path}: train one with `python -m train.distill.guess.value`")
        with np.load(path) as saved:
            layers = len([name for name in saved.files if name.startswith("weight_")])
            weights = [saved[f"weight_{i}"] for i in range(layers)]
            biases = [saved[f"bias_{i}"] for i in range(layers)]
        try:
            return cls(weights, biases, features)
        except ValueError:
            raise ValueError(f"the head at {path} takes {weights[0].shape[0] if weights else 0} features a candidate, "
                             f"not the {features} this agent gives: a head of another agent?") from None

    def save(self, path: str | Path, about: str = "") -> None:
        """Write the head to ``path`` (``.npz``), with ``about`` (how it was trained) as its ``about`` entry."""
        layers = enumerate(zip(self.weights, self.biases, strict=True))
        arrays = {name: array for i, (w, b) in layers for name, array in ((f"weight_{i}", w), (f"bias_{i}", b))}
        np.savez(path, about=np.array(about), **arrays)

    def layers(self) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
        """The weights and the biases as the compiled kernels take them (:mod:`agents.guess_value_kernels`):
        tuples of contiguous float32 arrays."""
        weights = tuple(np.ascontiguousarray(weight, np.float32) for weight in self.weights)
        return weights, tuple(np.ascontiguousarray(bias, np.float32) for bias in self.biases)

    def logits(self, features: np.ndarray) -> np.ndarray:
        """One logit a feature row: the learnt chance of winning once the candidate is safe, before the sigmoid."""
        hidden = np.asarray(features, np.float32)
        for weight, bias in zip(self.weights[:-1], self.biases[:-1], strict=True):
            hidden = np.maximum(hidden @ weight + bias, 0.0)
        return (hidden @ self.weights[-1] + self.biases[-1])[:, 0]


def tied_safest(flat: np.ndarray, probability: np.ndarray) -> np.ndarray:
    """The hidden cells of least exact mine chance, within the solver's relative tie tolerance."""
    hidden = np.flatnonzero(flat == HIDDEN)
    least = probability[hidden].min()
    return hidden[probability[hidden] <= least + TIE_TOLERANCE * least]


class GuessValueAgent(PlannedMovesAgent):
    """Certainly safe cells first (the exact count), then the tied safest cell of highest learnt value.

    Through the env it plays a position's certainly safe cells in increasing order before it counts again, as the
    solvers do (:class:`agents.solver.agent.PlannedMovesAgent`); any order reaches the same position at each guess.
    :meth:`play_compiled` plays the same games in compiled code (:mod:`agents.guess_value_kernels`).

    Args:
        seed: unused (the agent is deterministic); taken for the registry's signature.
        head: the value head's ``.npz``; the shipped head (:data:`SHIPPED_HEAD`) by default.
        first_cell: (row, col) of the first click; the solver's first cell for the rule by default.
    """

    name = "guess-value"

    def __init__(self, seed: int | None = None, head: str | Path | None = None,
                 first_cell: tuple[int, int] | None = None) -> None:  # fmt: skip
        del seed
        self.head = ValueHead.load(shipped_dir() / SHIPPED_HEAD if head is None else head)
        self.first_cell = first_cell
        self.reset()

    def first_click(self, rows: int, cols: int, rule: str) -> tuple[int, int]:
        """``first_cell`` when one was given, else the solver's first cell for the rule."""
        return self.first_cell or first_click_cell(rows, cols, rule)

    def plan(self, obs: np.ndarray, info: dict[str, Any], valid: np.ndarray) -> list[int]:
        """The position's certainly safe cells the mask allows (a flagged cell is no move), else the head's guess."""
        rows, cols = obs.shape
        flat = np.ascontiguousarray(obs, dtype=np.int8).ravel()
        weights, biases = self.head.layers()
        cells = plan(flat, rows, cols, int(info["mines"]), weights, biases)
        if cells.size == 0:
            raise ValueError("the position fits no layout of its mine count: the guess-value agent plays only "
                             "positions of a real game")  # fmt: skip
        playable = allowed_reveals(cells, info)
        return playable.tolist() if playable.size else [int(valid[0])]

    def pick(self, grid: np.ndarray, probability: np.ndarray, mines: int) -> int:
        """The head's guess in position ``grid`` of exact mine chances ``probability``: the tied safest cell of
        highest learnt value (the first of them on equal values)."""
        rows, cols = grid.shape
        flat = np.ascontiguousarray(grid, dtype=np.int8).ravel()
        return int(head_guess(flat, rows, cols, mines, np.asarray(probability, np.float64), *self.head.layers()))

    def play_compiled(
        self, rows: int, cols: int, mines: int, rule: str, keys: np.ndarray, seeds: Iterable[int],
        boards: str = DEFAULT_BOARDS, first_cells: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
        """Game ``g`` on the layout key ``keys[g]`` played as this agent plays it through the env, without the env
        (:func:`agents.guess_value_kernels.play_games`); ``seeds`` only count the games (the agent draws nothing).
        ``boards="no_guess"``: on the no-guess layout of each key; ``first_cells``: the cell each game opens on in
        place of the agent's own first click. Returns (won, safe cells revealed, reveals made), one entry a game."""
        keys = np.asarray(keys, dtype=np.int64)
        games = len(list(seeds))
        if games != keys.size:
            raise ValueError(f"one seed per key: got {games} seeds for {keys.size} keys")
        opened, layouts = compiled_game_starts(rows, cols, mines, rule, keys, self.first_click(rows, cols, rule),
                                               boards, first_cells)  # fmt: skip
        return play_games(rows, cols, mines, RULE_CODES[rule], opened, keys, layouts, *self.head.layers())

"""A model's learnt opening: the first cell it plays on an untouched board, chosen by the returns of its own games.

The empty board is the one position of every game, and under a first-click rule the first cell places the mines,
so the first move decides which boards a player meets at all. A policy trained by PPO learns that move from the
outcome of whole games through one noisy advantage per game, and a few points of win rate ride on it (on expert,
one network wins several points more opening near a corner than on the cell its own scores pick). The move is
learnt better directly: play the model's games from each candidate first cell, keep the cell with the highest
win rate (a bandit over one state, Monte-Carlo returns, :mod:`eval.opening`), and record it in the model card's
``opening`` section, together with the evidence that chose it::

    "opening": {"cell": [3, 3], "board": [16, 30, 99], "first_click": "opening", "symmetries": 4, "sure": 1e-05,
                "seed": 7, "candidates": [{"cell": [3, 3], "games": 1200, "won": 508}, ...]}

The player plays the cell only when asked (``load_model_agent(..., opening=True)``, ``minesweeper eval --opening``)
and only on the board and rule it was learnt on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mine_env.engine.spec import BoardSpec


@dataclass(frozen=True)
class CandidateReturns:
    """The games a candidate first cell was played from, and how many of them were won."""

    cell: tuple[int, int]
    games: int
    won: int

    @property
    def win_rate(self) -> float:
        """The fraction of its games won (0 before any)."""
        return self.won / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"cell": list(self.cell), "games": self.games, "won": self.won}


@dataclass(frozen=True)
class LearntOpening:
    """The first cell a model plays on an untouched board of one board and rule, and the returns that chose it.

    Attributes:
        cell: (row, col) played first.
        board: (rows, cols, mines) it was learnt on, and the only board it is played on.
        first_click: The first-click rule it was learnt under.
        symmetries: How the model played in the games that chose it (averaged over this many images) ...
        sure: ... and the gate of that average (0: averaged at every move).
        seed: The base seed of the games (the candidates' rounds use the seeds that follow it).
        candidates: Every candidate's games and wins, the chosen cell's among them.
    """

    cell: tuple[int, int]
    board: tuple[int, int, int]
    first_click: str
    symmetries: int
    sure: float
    seed: int
    candidates: tuple[CandidateReturns, ...]

    def __post_init__(self) -> None:
        rows, cols, mines = self.board
        BoardSpec(rows, cols, mines, self.first_click)  # the engine's own checks and messages
        for row, col in (self.cell, *(candidate.cell for candidate in self.candidates)):
            if not (0 <= row < rows and 0 <= col < cols):
                raise ValueError(f"opening cell ({row}, {col}) lies off the {rows}x{cols} board")

    def plays_on(self, spec: BoardSpec) -> bool:
        """Whether this is the board and rule the opening was learnt on."""
        return (spec.rows, spec.cols, spec.mines, spec.first_click) == (*self.board, self.first_click)

    def action(self, cols: int) -> int:
        """The cell as a flat action index of a board ``cols`` wide."""
        return self.cell[0] * cols + self.cell[1]

    def to_dict(self) -> dict[str, Any]:
        """The card's ``opening`` section."""
        return {"cell": list(self.cell), "board": list(self.board), "first_click": self.first_click,
                "symmetries": self.symmetries, "sure": self.sure, "seed": self.seed,
                "candidates": [candidate.to_dict() for candidate in self.candidates]}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Any) -> LearntOpening:
        """The opening of a card's section; ValueError naming what is missing or malformed."""
        keys = ("cell", "board", "first_click", "symmetries", "sure", "seed", "candidates")
        if not isinstance(data, dict) or set(data) != set(keys):
            raise ValueError(f"opening must be an object with exactly the keys {', '.join(keys)}")
        if not isinstance(data["board"], list) or len(data["board"]) != 3:
            raise ValueError(f"opening: board is [rows, cols, mines], got {data['board']!r}")
        try:
            candidates = tuple(CandidateReturns(_pair(item["cell"]), int(item["games"]), int(item["won"]))
                               for item in data["candidates"])  # fmt: skip
            return cls(_pair(data["cell"]), tuple(int(value) for value in data["board"]), str(data["first_click"]),
                       int(data["symmetries"]), float(data["sure"]), int(data["seed"]), candidates)  # fmt: skip
        except (TypeError, KeyError) as error:
            raise ValueError(f"opening: malformed section ({error})") from None


def _pair(value: Any) -> tuple[int, int]:
    """A [row, col] pair of integers; TypeError otherwise."""
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(isinstance(item, int) for item in value):
        raise TypeError(f"a cell is a [row, col] pair of integers, got {value!r}")
    return int(value[0]), int(value[1])

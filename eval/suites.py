"""Evaluation suites: a board, a first-click rule, a number of games and a base seed, with seeds per game.

A suite fixes everything about the games an agent plays except the agent's own moves. Game ``i`` of a suite
is played on a :class:`mine_env.env.MinesweeperEnv` of the suite's board after ``env.reset(seed=s)``, where
``s`` is :meth:`Suite.game_seeds` ``(i).env``. The layout of a game is a pure function of that seed and the
first cell revealed, so every agent that opens the same first cell plays the same board.

Seeds are derived with NumPy's :class:`~numpy.random.SeedSequence`: the sequence of game ``i`` is
``SeedSequence(base_seed, spawn_key=(i,))`` -- the ``i``-th child of ``SeedSequence(base_seed).spawn`` --
and its first two 64-bit words are the env's seed and the seed of a seeded agent for that game. Each game's
seeds depend only on ``(base_seed, i)``, never on which process plays it or in what order, so the results of
a suite are the same on any machine and with any number of worker processes. Because a suite of ``n`` games
is a prefix of the same suite with more games, ``beginner-opening-1k`` is the first thousand games of
``beginner-opening-10k``.
"""

from __future__ import annotations

import operator
from dataclasses import asdict, dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from mine_env.boards import layout_source
from mine_env.engine.board import layout_key
from mine_env.engine.constants import DEFAULT_BOARDS, FIRST_CLICK_RULES, PRESETS
from mine_env.engine.spec import BoardSpec
from mine_env.engine.starts import STARTS

SEEDING = "numpy.random.SeedSequence(base_seed, spawn_key=(game,)).generate_state(2, uint64) -> (env, agent)"
"""How the seeds of a game are derived, recorded in every report."""

SUITE_VERSION = "v1"
"""Version of the named suites: a new version is added, never an old one changed, when a definition moves."""
SUITE_BASE_SEED = 20261121
"""Base seed shared by every named suite of :data:`SUITE_VERSION`."""
SUITE_SIZES: dict[str, int] = {"1k": 1_000, "10k": 10_000, "100k": 100_000}
"""Number of games of the named suites, by the suffix of their names."""


class GameSeeds(NamedTuple):
    """The seeds of one game: the env's ``reset`` seed and the seed of a seeded agent."""

    env: int
    agent: int


@dataclass(frozen=True)
class Suite:
    """A reproducible set of games.

    Args:
        name: The suite's name (``beginner-opening-10k``, or a description of an ad-hoc suite).
        rows: Rows of the board.
        cols: Columns of the board.
        mines: Mines on the board.
        first_click: The first-click rule (``"safe"``, ``"opening"`` or ``"none"``).
        games: Number of games, at least 1.
        base_seed: The seed every game's seeds are derived from (a non-negative integer).
        version: ``"v1"`` for named suites, ``"adhoc"`` for suites built from options.
        boards: The kind of board (``"random"`` or ``"no_guess"``, :mod:`mine_env.boards`): no-guess games
            are played on the no-guess layout of the same seed and the agent's first cell.
        first_cell: (row, col) played first in every game on every agent's behalf, or None (each agent opens
            where it likes). Under a first-click rule the first cell places the mines, so with it every agent
            plays the very same board of every game (:meth:`with_first_cell`).
        start: ``"agent"`` (the agent opens) or ``"zero"``: a uniformly drawn zero cell of the game's uniform
            layout is revealed on the agent's behalf first, as the published expert agents are measured
            (:mod:`mine_env.engine.starts`; the ``none`` rule, random boards, no first cell).
    """

    name: str
    rows: int
    cols: int
    mines: int
    first_click: str
    games: int
    base_seed: int
    version: str = "adhoc"
    boards: str = DEFAULT_BOARDS
    first_cell: tuple[int, int] | None = None
    start: str = "agent"

    def __post_init__(self) -> None:
        layout_source(self.boards, self.spec())  # checks the board, rule and kind, with the env's messages
        if self.first_cell is not None:
            object.__setattr__(self, "first_cell", checked_cell(self.first_cell, self.rows, self.cols))
        if isinstance(self.games, bool) or not isinstance(self.games, int | np.integer) or self.games < 1:
            raise ValueError(f"a suite needs at least 1 game, got games={self.games!r}")
        if isinstance(self.base_seed, bool) or not isinstance(self.base_seed, int | np.integer) or self.base_seed < 0:
            raise ValueError(f"the base seed must be a non-negative integer, got {self.base_seed!r}")
        if self.start not in STARTS:
            raise ValueError(f"unknown start {self.start!r}; expected one of {', '.join(STARTS)}")
        if self.start == "zero" and (self.first_click != "none" or self.first_cell is not None
                                     or self.boards != DEFAULT_BOARDS):  # fmt: skip
            raise ValueError("the zero start opens a zero cell of a uniform layout: it needs the 'none' rule, "
                             "random boards and no first cell")  # fmt: skip

    def spec(self) -> BoardSpec:
        """The board of every game of this suite."""
        return BoardSpec(self.rows, self.cols, self.mines, self.first_click)

    def layout_follows_first_click(self) -> bool:
        """Whether a game's layout depends on the agent's first cell: under the ``opening`` and ``safe`` rules
        (and so on no-guess boards, which need ``opening``) the mines are placed around it, unless the suite
        plays the first cell itself."""
        return self.first_click != "none" and self.first_cell is None

    def first_action(self) -> int | None:
        """The action index of :attr:`first_cell`, or None."""
        return None if self.first_cell is None else self.first_cell[0] * self.cols + self.first_cell[1]

    def with_first_cell(self, cell: tuple[int, int]) -> Suite:
        """The same games with ``cell`` played first on every agent's behalf, named after it."""
        row, col = checked_cell(cell, self.rows, self.cols)
        return replace(self, name=f"{self.name}-first-{row}-{col}", first_cell=(row, col))

    def with_zero_start(self) -> Suite:
        """The same seeds played under the zero start (:attr:`start`): uniform layouts, a zero cell opened first.
        A named suite ``{preset}-{rule}-{size}`` becomes ``{preset}-zero-{size}``."""
        if self.start == "zero":
            return self
        if self.first_cell is not None or self.boards != DEFAULT_BOARDS:
            raise ValueError("the zero start plays random boards opened on a zero cell: it takes no --first-cell "
                             "and no no-guess boards")  # fmt: skip
        parts = self.name.split("-")
        named = self.version == SUITE_VERSION and len(parts) == 3 and parts[1] in FIRST_CLICK_RULES
        name = f"{parts[0]}-zero-{parts[2]}" if named else f"{self.name}-zero-start"
        return replace(self, name=name, first_click="none", start="zero")

    def game_seeds(self, game: int) -> GameSeeds:
        """The seeds of game ``game`` (0-based), a pure function of ``(base_seed, game)``."""
        if not 0 <= game < self.games:
            raise ValueError(f"game {game} is outside this suite's games 0..{self.games - 1}")
        return derive_game_seeds(self.base_seed, game)

    def layout_key(self, game: int) -> int:
        """The layout key of game ``game``: the one the env draws after ``reset(seed=game_seeds(game).env)``,
        for players that deal the game's layout without the env (compiled games)."""
        return layout_key(self.game_seeds(game).env)

    def to_dict(self) -> dict[str, Any]:
        """The suite as plain JSON values, with the seed derivation spelled out."""
        return {**asdict(self), "seeding": SEEDING}


def checked_cell(cell: Any, rows: int, cols: int) -> tuple[int, int]:
    """``cell`` as a (row, col) pair of integers on a ``rows`` x ``cols`` board, else a ValueError saying why."""
    try:
        row, col = (operator.index(value) for value in cell)
    except (TypeError, ValueError):
        raise ValueError(f"a first cell is a (row, col) pair of integers, got {cell!r}") from None
    if not (0 <= row < rows and 0 <= col < cols):
        raise ValueError(f"first cell ({row}, {col}) lies off the {rows}x{cols} board")
    return row, col


def derive_game_seeds(base_seed: int, game: int) -> GameSeeds:
    """The env and agent seeds of game ``game`` of any suite with base seed ``base_seed``."""
    words = np.random.SeedSequence(int(base_seed), spawn_key=(int(game),)).generate_state(2, np.uint64)
    return GameSeeds(env=int(words[0]), agent=int(words[1]))


def adhoc_suite(spec: BoardSpec, games: int, seed: int, boards: str = DEFAULT_BOARDS) -> Suite:
    """A suite built from command-line style options, named after what it holds."""
    kind = "" if boards == DEFAULT_BOARDS else f"-{boards.replace('_', '-')}"
    name = f"{spec.rows}x{spec.cols}-{spec.mines}-{spec.first_click}{kind}-{games}-seed{seed}"
    return Suite(name, spec.rows, spec.cols, spec.mines, spec.first_click, games, seed, "adhoc", boards)


def _named_suites() -> dict[str, Suite]:
    """Every preset, under every first-click rule that lets the first move be safe, at every size; under the zero
    start (``{preset}-zero-*``: uniform layouts, a random zero cell opened for the agent); and its no-guess boards
    (``opening`` rule) at every size; all of them the games of the same seeds."""
    suites = {}
    for preset, (rows, cols, mines) in PRESETS.items():
        for rule in FIRST_CLICK_RULES:
            if rule == "none":
                continue
            for suffix, games in SUITE_SIZES.items():
                name = f"{preset}-{rule}-{suffix}"
                suites[name] = Suite(name, rows, cols, mines, rule, games, SUITE_BASE_SEED, SUITE_VERSION)
        for suffix, games in SUITE_SIZES.items():
            name = f"{preset}-zero-{suffix}"
            suites[name] = Suite(name, rows, cols, mines, "none", games, SUITE_BASE_SEED, SUITE_VERSION, start="zero")
        for suffix, games in SUITE_SIZES.items():
            name = f"{preset}-no-guess-{suffix}"
            suites[name] = Suite(name, rows, cols, mines, "opening", games, SUITE_BASE_SEED, SUITE_VERSION, "no_guess")
    return suites


SUITES: dict[str, Suite] = _named_suites()
"""The named suites, by name."""


def get_suite(name: str) -> Suite:
    """A named suite; ``name`` may carry its version (``beginner-opening-10k@v1``).

    Raises:
        ValueError: the name or version is unknown (the message lists the known names).
    """
    base, _, version = name.partition("@")
    suite = SUITES.get(base)
    if suite is None:
        raise ValueError(f"unknown suite {name!r}; known suites: {', '.join(SUITES)} (see --list-suites)")
    if version and version != suite.version:
        raise ValueError(f"suite {base!r} has no version {version!r}; the current one is {suite.version!r}")
    return suite


def list_suites() -> list[Suite]:
    """The named suites, in a stable order (preset, rule, size)."""
    return list(SUITES.values())

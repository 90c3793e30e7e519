"""The classic hand rules of Minesweeper, as a baseline between random play and the exact solver.

Rules, applied to a fixed point on every move (:func:`deduce`):

* a number whose missing mines equal its undetermined covered neighbours: all of them are mines;
* a number already satisfied by its known mines: all its undetermined covered neighbours are safe;
* the subset rule between two numbers A and B: when A's undetermined set is a subset of B's, the cells of B
  outside A hold exactly (B's missing - A's missing) mines, so they are all safe when that is 0 and all
  mines when it equals their number.

Deduced mines are remembered (the agent never flags through the env). When no rule yields a safe cell the
agent guesses uniformly (seeded) among the valid hidden cells it has not deduced to be mines; its first move
is such a guess too (no corner preference: this baseline shows what the rules alone are worth).

:func:`deduce` is also the plain-Python reference of the solver's compiled deduction,
:func:`mine_env.analysis.deduction.local_safe`: in a position that fits, every cell the kernel's one-number
stage clears, :func:`deduce` clears too (tested); the kernel's two-number rule is more general than the
subset rule, and :func:`deduce` chains its rules where the kernel makes one pass (the kernel's module
docstring states the relation).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from agents.base import Agent
from agents.random_agent import follows, valid_reveals
from mine_env.engine.geometry import cells_where, is_covered, is_known_mine, is_revealed, is_unknown, neighbours

Constraint = tuple[frozenset[int], int]
"""What one number still says: (its undetermined covered neighbours, the mines among them)."""
Conclusions = tuple[set[int], set[int]]
"""(cells proved safe, cells proved mines)."""


def _numbers(grid: np.ndarray) -> dict[int, tuple[int, list[int]]]:
    """Each revealed number that has covered neighbours (hidden, flagged or shown mines): (value, those)."""
    rows, cols = grid.shape
    flat = grid.ravel()
    covered = cells_where(flat, is_covered)
    numbers = {}
    for cell in np.flatnonzero(cells_where(flat, is_revealed)).tolist():
        around = [other for other in neighbours(cell, rows, cols) if covered[other]]
        if around:
            numbers[cell] = (int(flat[cell]), around)
    return numbers


def _constraints(numbers: dict[int, tuple[int, list[int]]], mines: set[int], safe: set[int]) -> dict[int, Constraint]:
    """The :data:`Constraint` of each number that still has undetermined neighbours."""
    constraints = {}
    for cell, (value, around) in numbers.items():
        undetermined = frozenset(other for other in around if other not in mines and other not in safe)
        if undetermined:
            constraints[cell] = (undetermined, value - sum(other in mines for other in around))
    return constraints


def _one_number_rules(constraints: dict[int, Constraint]) -> Conclusions:
    """The two one-number rules."""
    safe: set[int] = set()
    mines: set[int] = set()
    for undetermined, missing in constraints.values():
        if missing == len(undetermined):
            mines |= undetermined
        elif missing == 0:
            safe |= undetermined
    return safe, mines


def _subset_rule(constraints: dict[int, Constraint], rows: int, cols: int) -> Conclusions:
    """The two-number subset rule, over every pair of numbers where one's undetermined set lies inside the
    other's (so the other is next to each of its cells: one cell's neighbours name every such number)."""
    safe: set[int] = set()
    mines: set[int] = set()
    for inner, inner_missing in constraints.values():
        for other in neighbours(min(inner), rows, cols):
            outer, outer_missing = constraints.get(other, (frozenset(), 0))
            if len(outer) <= len(inner) or not inner <= outer:
                continue
            rest = outer - inner
            extra = outer_missing - inner_missing
            if extra == 0:
                safe |= rest
            elif extra == len(rest):
                mines |= rest
    return safe, mines


def _learn(conclusions: Conclusions, safe: set[int], mines: set[int]) -> bool:
    """Add the conclusions to what is known; True when something new was learnt."""
    new_safe, new_mines = conclusions
    learnt = bool(new_safe - safe or new_mines - mines)
    safe |= new_safe
    mines |= new_mines
    return learnt


def deduce(grid: np.ndarray, known_mines: Iterable[int] = ()) -> Conclusions:
    """The rules applied to ``grid`` until none teaches anything new: (certainly safe cells, certain mines),
    as flat indices, given mines deduced before. Each round tries the one-number rules, and the subset rule
    only when they teach nothing. Flags are not trusted; shown mines are mines."""
    rows, cols = grid.shape
    numbers = _numbers(grid)
    mines = set(known_mines) | set(np.flatnonzero(cells_where(grid.ravel(), is_known_mine, False)).tolist())
    safe: set[int] = set()
    while True:
        constraints = _constraints(numbers, mines, safe)
        if not _learn(_one_number_rules(constraints), safe, mines) and not _learn(
            _subset_rule(constraints, rows, cols), safe, mines
        ):
            return safe, mines


def deduction_rounds(grid: np.ndarray) -> dict[int, int]:
    """Every cell the rules prove safe in ``grid`` (flat index), with the round that proves it: 1 from the
    numbers as shown, ``n`` with what rounds 1 to ``n - 1`` proved (mines and safe cells). Both rules run in
    every round, so the round is the length of the shortest chain of rule steps that reaches the cell (how far
    a reader of the board, a network included, must carry conclusions to find it)."""
    rows, cols = grid.shape
    numbers = _numbers(grid)
    mines = set(np.flatnonzero(cells_where(grid.ravel(), is_known_mine, False)).tolist())
    safe: set[int] = set()
    proved: dict[int, int] = {}
    round_number = 0
    while True:
        round_number += 1
        constraints = _constraints(numbers, mines, safe)
        known = set(safe)
        one_number = _learn(_one_number_rules(constraints), safe, mines)
        if not _learn(_subset_rule(constraints, rows, cols), safe, mines) and not one_number:
            return proved
        proved.update(dict.fromkeys(safe - known, round_number))


class RuleAgent(Agent):
    """Plays by the classic rules, guessing uniformly (seeded) when they give nothing.

    Args:
        seed: seed of the agent's own ``np.random.Generator`` (None: fresh entropy).
    """

    name = "rules"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self.reset()

    def reset(self) -> None:
        """Forget the deduced mines and pending safe cells of the previous game."""
        self.known_mines: set[int] = set()
        self._pending_safe: list[int] = []
        self._previous: np.ndarray | None = None

    def deduce(self, obs: np.ndarray) -> tuple[set[int], set[int]]:
        """Run the rules on ``obs``: (certainly safe hidden cells, certain mines), both as flat indices.

        The mines are also remembered for later moves of the same game.
        """
        safe, mines = deduce(obs, self.known_mines)
        self.known_mines = mines
        return safe, mines

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        """A cell the rules prove safe, or a uniform guess among the cells not deduced to be mines."""
        self._notice_new_game(obs)
        valid = set(valid_reveals(obs, info).tolist())
        flat = obs.ravel()
        while self._pending_safe:
            cell = self._pending_safe.pop()
            if cell in valid and is_unknown(int(flat[cell]), False):
                return cell
        safe, mines = self.deduce(obs)
        safe_valid = sorted(safe & valid, reverse=True)
        if safe_valid:
            self._pending_safe = safe_valid
            return self._pending_safe.pop()
        candidates = sorted(cell for cell in valid if cell not in mines) or sorted(valid)
        return int(self._rng.choice(candidates))

    def _notice_new_game(self, obs: np.ndarray) -> None:
        """Drop the memory if ``obs`` cannot follow the last position seen (a new game without reset)."""
        if not follows(self._previous, obs):
            self.reset()
        self._previous = obs.copy()

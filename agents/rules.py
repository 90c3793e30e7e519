"""The classic hand rules of Minesweeper, as a baseline between random play and the exact solver.

Rules, applied to a fixed point on every move:

* a number whose missing mines equal its undetermined hidden neighbours: all of them are mines;
* a number already satisfied by its known mines: all its undetermined hidden neighbours are safe;
* the subset rule between two numbers A and B within two cells of each other: when A's undetermined set is a
  subset of B's, the cells of B outside A hold exactly (B's missing - A's missing) mines, so they are all
  safe when that is 0 and all mines when it equals their number.

Deduced mines are remembered (the agent never flags through the env). When no rule yields a safe cell the
agent guesses uniformly (seeded) among the valid hidden cells it has not deduced to be mines; its first move
is such a guess too (no corner preference: this baseline shows what the rules alone are worth).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from agents.random_agent import follows, valid_reveals
from mine_env.engine.constants import FLAG, HIDDEN, MINE

_SUBSET_REACH = 2
"""Two numbers can share hidden neighbours only if they are at most two cells apart."""


def _neighbours(rows: int, cols: int, r: int, c: int, reach: int = 1) -> list[tuple[int, int]]:
    """Cells within Chebyshev distance ``reach`` of (r, c), the cell itself excluded."""
    return [
        (rr, cc)
        for rr in range(max(r - reach, 0), min(r + reach + 1, rows))
        for cc in range(max(c - reach, 0), min(c + reach + 1, cols))
        if (rr, cc) != (r, c)
    ]


class _Deductions:
    """One fixed-point pass of the rules over a position, given the mines already deduced."""

    def __init__(self, grid: np.ndarray, known_mines: set[int]) -> None:
        self.grid = grid
        self.rows, self.cols = grid.shape
        flat = grid.ravel()
        self.mines = set(known_mines) | {int(i) for i in np.flatnonzero(flat == MINE)}
        self.safe: set[int] = set()
        # Each number with its value and the cells around it that are not revealed (hidden, flagged or
        # shown mines); numbers without such cells can teach nothing and are left out.
        self.numbers: dict[tuple[int, int], tuple[int, list[int]]] = {}
        for r, c in np.argwhere(grid >= 0):
            around = [rr * self.cols + cc for rr, cc in _neighbours(self.rows, self.cols, int(r), int(c))]
            unrevealed = [index for index in around if flat[index] in (HIDDEN, FLAG, MINE)]
            if unrevealed:
                self.numbers[(int(r), int(c))] = (int(grid[r, c]), unrevealed)

    def _state(self, value: int, unrevealed: list[int]) -> tuple[frozenset[int], int]:
        """(undetermined neighbours, mines still missing) of a number with the given unrevealed cells."""
        undetermined = frozenset(i for i in unrevealed if i not in self.mines and i not in self.safe)
        missing = value - sum(i in self.mines for i in unrevealed)
        return undetermined, missing

    def _mark(self, cells: frozenset[int] | set[int], as_mines: bool) -> bool:
        """Record cells as mines or safe; True when something new was learnt."""
        target = self.mines if as_mines else self.safe
        new = set(cells) - target
        target.update(new)
        return bool(new)

    def _single_rules(self, states: dict[tuple[int, int], tuple[frozenset[int], int]]) -> bool:
        """The two one-number rules."""
        changed = False
        for undetermined, missing in states.values():
            if missing == len(undetermined):
                changed |= self._mark(undetermined, as_mines=True)
            elif missing == 0:
                changed |= self._mark(undetermined, as_mines=False)
        return changed

    def _subset_rule(self, states: dict[tuple[int, int], tuple[frozenset[int], int]]) -> bool:
        """The two-number subset rule, over every pair of nearby numbers.

        Facts read from ``states`` stay true while cells get marked, so one pass applies them all.
        """
        changed = False
        for (r, c), (inner, inner_missing) in states.items():
            for other in _neighbours(self.rows, self.cols, r, c, _SUBSET_REACH):
                outer, outer_missing = states.get(other, (frozenset(), 0))
                if len(outer) <= len(inner) or not inner <= outer:
                    continue
                rest = outer - inner
                extra = outer_missing - inner_missing
                if extra == 0:
                    changed |= self._mark(rest, as_mines=False)
                elif extra == len(rest):
                    changed |= self._mark(rest, as_mines=True)
        return changed

    def run(self) -> None:
        """Apply the rules until none teaches anything new."""
        while True:
            states = {}
            for cell, (value, unrevealed) in self.numbers.items():
                undetermined, missing = self._state(value, unrevealed)
                if undetermined:
                    states[cell] = (undetermined, missing)
            if not self._single_rules(states) and not self._subset_rule(states):
                return


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
        deductions = _Deductions(obs, self.known_mines)
        deductions.run()
        self.known_mines = deductions.mines
        return deductions.safe, deductions.mines

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        """A cell the rules prove safe, or a uniform guess among the cells not deduced to be mines."""
        self._notice_new_game(obs)
        valid = set(valid_reveals(obs, info).tolist())
        flat = obs.ravel()
        while self._pending_safe:
            cell = self._pending_safe.pop()
            if cell in valid and flat[cell] in (HIDDEN, FLAG):
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

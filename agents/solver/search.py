"""``solver-search``: the solver with a decision-time search at its guesses, a search the solver itself does not do.

The solver rates the cells it might guess by their safety and by what revealing each leads to one step on
(:mod:`agents.solver.guess`). At a true guess (no cell certainly safe) this agent also plays each of those cells on
to the end of the game, on layouts drawn exactly from the position's posterior
(:class:`agents.solver.posterior.PosteriorSampler`), and guesses the one that won most often:

1. the candidates are the cells ``strong``'s look-ahead weighs (:func:`agents.solver.guess.guess_candidates`, its
   ties among equally crowded cells by a fixed draw, so the solver's own random stream is not touched) and the
   solver's own pick;
2. they race in rounds of ``batch`` layouts, every one still in the race on the same layouts from the same random
   state (:func:`agents.solver.playouts.race_candidates`: the differences are paired); a candidate that trails the
   leader by more than ``race`` paired standard errors leaves; at most ``layouts`` layouts;
3. the best share won is played, the solver's pick on a tie.

It does not search where the solver's endgame search already decides (few layouts left: that search is exact), at a
forced 50/50 (two cells, one a mine, that no reveal can tell apart), where the solver weighs a single cell, or where
a frontier component has too many layouts to list (:class:`agents.solver.posterior.TooManyLayouts`): there it plays
the solver's guess. Certain moves and the first
click are the solver's, and its random stream advances exactly as the solver's would, so a game where the search
agrees with the solver at every guess is the solver's game, move for move (tested): a paired comparison with
``solver`` on the same boards differs only where the search chose otherwise.

A forced 50/50 is guessed first, as the solver does: it must be guessed some day, at even odds whatever else is
played, and its number, revealed early, can only help; play-outs there would instead score the continuation
(``fast`` guesses the safest cell next, where the search itself would race that guess too) and count the gain of the
next guess twice.

Its cost is the play-outs: on expert the default setting makes some 20,000 a searched guess, about ten seconds on
one core, so its games take tens of seconds against the solver's milliseconds; :data:`QUICK` about a third of that.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from agents.solver.agent import SolverAgent
from agents.solver.guess import PRESETS, guess_candidates
from agents.solver.outlook import forced_fifty_fifty
from agents.solver.playouts import Head, race_candidates
from agents.solver.posterior import PosteriorSampler, TooManyLayouts

PLAYERS = ("fast", "standard", "guess-value")
"""Who plays the play-outs on: a solver setting, or ``guess-value``'s learnt head."""


@dataclass(frozen=True)
class SearchSettings:
    """How hard the search looks at a guess (the defaults: ``solver-search``; :data:`QUICK`: the quick one)."""

    layouts: int = 8000
    """At most this many layouts a candidate."""
    race: float = 2.5
    """A candidate trailing the leader by more than this many paired standard errors leaves the race (0: none
    leaves, every candidate is played on every layout)."""
    batch: int = 200
    """Layouts a round of the race."""
    player: str = "fast"
    """Who plays the play-outs on (:data:`PLAYERS`)."""

    def __post_init__(self) -> None:
        if self.layouts < 1:
            raise ValueError(f"layouts must be at least 1, got {self.layouts}")
        if self.batch < 1:
            raise ValueError(f"batch must be at least 1, got {self.batch}")
        if not self.race >= 0:
            raise ValueError(f"race must be 0 (no race) or a positive number of standard errors, got {self.race}")
        if self.player not in PLAYERS:
            raise ValueError(f"unknown play-out player {self.player!r}; expected one of {', '.join(PLAYERS)}")


QUICK = SearchSettings(layouts=2000, race=2.5, batch=100)
"""A quarter of the layouts, about a third of the play-outs: ``solver-search-quick``."""


@dataclass
class SearchCounts:
    """What the search did over the games played: guesses searched, where it chose otherwise, play-outs made."""

    guesses: int = 0
    searched: int = 0
    changed: int = 0
    playouts: int = 0
    too_many_layouts: int = 0
    forced_pairs: int = 0
    """Guesses at a forced 50/50, left to the solver."""
    changes: list[tuple[int, int]] = field(default_factory=list)
    """(the solver's pick, the search's) at each guess where they differ."""


class SearchAgent(SolverAgent):
    """``solver`` (at ``strong``) that races its candidates by play-outs at each true guess (module docstring).

    Args:
        seed: seeds the solver's random stream as :class:`SolverAgent` does, and, apart from it, the layouts and
            the play-outs' random states.
        search: how hard the search looks (:class:`SearchSettings`).
        first_cell: as :class:`SolverAgent`'s (the solver's other settings are its defaults, ``strong``).
    """

    name = "solver-search"

    def __init__(self, seed: int | None = None, *, search: SearchSettings | None = None,
                 first_cell: tuple[int, int] | None = None) -> None:  # fmt: skip
        super().__init__(seed, first_cell=first_cell)
        self.search = search or SearchSettings()
        self.counts = SearchCounts()
        self._rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0] if seed is not None else None)
        self._head: Head | None = None

    def plays_compiled_games(self) -> bool:
        """No: the search runs from Python, so its games go through the env."""
        return False

    def guess(self, flat: np.ndarray, rows: int, cols: int, mines: int, probability: np.ndarray,
              log_layouts: float) -> int:  # fmt: skip
        """The solver's guess, or the candidate its play-outs won most often with (module docstring)."""
        chosen = super().guess(flat, rows, cols, mines, probability, log_layouts)
        self.counts.guesses += 1
        if log_layouts <= math.log(self.settings.endgame_layouts + 0.5):
            return chosen  # the solver's endgame search, exact, decided (or gave up where ours would not finish)
        probability = np.ascontiguousarray(probability, dtype=np.float64)
        if self.settings.pairs_first and forced_fifty_fifty(flat, rows, cols, probability) >= 0:
            self.counts.forced_pairs += 1
            return chosen  # the forced 50/50 first (module docstring)
        candidates, _ = guess_candidates(flat, rows, cols, probability, self.settings, np.uint64(0))
        cells = [int(cell) for cell in candidates]
        if chosen not in cells:
            cells.append(chosen)
        if len(cells) < 2:
            return chosen
        best = self._race(flat.reshape(rows, cols), mines, cells, chosen)
        if best != chosen:
            self.counts.changed += 1
            self.counts.changes.append((chosen, best))
        return best

    def _race(self, grid: np.ndarray, mines: int, cells: list[int], chosen: int) -> int:
        """The candidate of ``cells`` whose play-outs won most often (``chosen`` on a tie)."""
        try:
            sampler = PosteriorSampler(grid, mines)
        except TooManyLayouts:
            self.counts.too_many_layouts += 1
            return chosen
        self.counts.searched += 1
        state = np.uint64(self._rng.integers(2**63))
        settings = self.search
        head = self._learnt_head() if settings.player == "guess-value" else None
        wins = race_candidates(grid, mines, sampler, cells, settings.layouts, settings.batch, settings.race,
                               PRESETS["fast" if head is not None else settings.player], state, self._rng,
                               head)  # fmt: skip
        self.counts.playouts += sum(won.size for won in wins)
        finished = max(won.size for won in wins)
        rates = {cell: float(won.mean()) for cell, won in zip(cells, wins, strict=True) if won.size == finished}
        top = max(rates.values())
        return chosen if rates.get(chosen) == top else next(cell for cell, rate in rates.items() if rate == top)

    def _learnt_head(self) -> Head:
        """``guess-value``'s head, read from its file the first time a play-out needs it."""
        if self._head is None:
            from agents.guess_value import GuessValueAgent

            self._head = GuessValueAgent().head.layers()
        return self._head

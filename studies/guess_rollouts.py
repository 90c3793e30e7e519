"""Rollouts at the solver's guesses: would another candidate have won more often than the cell it played?

At each sampled guess position, layouts are drawn exactly from the position's posterior
(:class:`agents.solver.posterior.PosteriorSampler`), and each candidate (the cells ``strong``'s look-ahead weighs:
within its margin of the safest, at most ``max_candidates``, safest first, ties to fewest hidden neighbours, at most
four that touch no number; plus the cell played) is revealed on the same layouts and played out by a solver
setting, from the same random state (common random numbers: the comparison is paired).

The best candidate by these first ``R`` layouts is picked by a maximum over noisy rates, which flatters it;
so the cell played and that best cell are played again on ``R`` fresh layouts, and the gain reported is the
difference there, with its paired standard error. That gain, at one decision, is what a decision-time search
with these candidates and this play-out could win back at most at that decision (its own noise aside).

With a race (``race`` above 0) the first layouts come in rounds of ``batch``, and after each round a candidate
whose paired lead over the leader is below ``-race`` standard errors stops being played: the search a player could
afford, its play-outs counted (``playouts``) beside the full search's candidates x layouts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.guess_value import GuessValueAgent
from agents.solver.guess import ENDGAME_LAYOUTS, PRESETS, STRONG, SolverSettings, guess_candidates
from agents.solver.playouts import Head, paired_se, play_outs, race_candidates
from agents.solver.posterior import PosteriorSampler, TooManyLayouts
from mine_env.analysis.probability import analyse

ROLLOUT_TARGETS = ("fatal", "guesses", "searched")
"""Where rollouts are made: the lost games' fatal guesses, any true guess, or the ordinary true guesses alone (no
forced 50/50, no endgame: those ``solver-search`` races)."""
SEARCHED_KIND = "ordinary"
"""The kind of guess (:mod:`solver_anatomy`) that ``solver-search`` races: the others are the solver's."""
GUESS_VALUE = "guess-value"
"""The play-out player that is no solver setting: ``guess-value``, the shipped learnt head among the tied safest."""

def playout_player(strength: str) -> tuple[SolverSettings, Head | None]:
    """The solver setting named ``strength``, or for :data:`GUESS_VALUE` the shipped head's layers (and a setting
    that goes unused)."""
    if strength == GUESS_VALUE:
        return PRESETS["fast"], GuessValueAgent().head.layers()
    return PRESETS[strength], None


def shortlist(grid: np.ndarray, probabilities: np.ndarray, margin: float, limit: int) -> list[int]:
    """The cells ``strong``'s look-ahead weighs in ``grid`` with this margin and limit, safest first: the solver's
    own :func:`agents.solver.guess.guess_candidates` (its ties among equally crowded cells by a fixed draw)."""
    settings = SolverSettings(STRONG, float(margin), int(limit), ENDGAME_LAYOUTS, True)
    rows, cols = grid.shape
    cells, _ = guess_candidates(np.ascontiguousarray(grid.ravel()), rows, cols,
                                np.ascontiguousarray(probabilities.ravel(), dtype=np.float64), settings,
                                np.uint64(0))  # fmt: skip
    return [int(cell) for cell in cells]


@dataclass
class Rollout:
    """The rollouts at one guess position."""

    game: int
    lost: bool
    kind: str
    """The kind of guess (forced 50/50, endgame, ordinary)."""
    played: int
    candidates: list[int]
    rates: list[float]
    """Win rate of each candidate on the first layouts."""
    best: int
    """The candidate with the best rate there (the cell played on a tie)."""
    first_se: float
    """Standard error of the best rate minus the played cell's there (paired)."""
    played_again: float
    """The cell played, on the fresh layouts."""
    best_again: float
    """The best candidate, on the fresh layouts."""
    gain_se: float
    """Standard error of ``best_again - played_again`` (paired, over the fresh layouts)."""
    playouts: int = 0
    """Play-outs the choice took on the first layouts (candidates x layouts without a race)."""

    @property
    def gain(self) -> float:
        """How much more often the best candidate won than the cell played, on the fresh layouts."""
        return self.best_again - self.played_again


@dataclass
class RolloutStudy:
    """Rollouts at a sample of guess positions, and the positions skipped (too many layouts to list)."""

    target: str
    layouts: int
    strength: str
    positions: list[Rollout] = field(default_factory=list)
    skipped: int = 0

    def summary(self) -> dict[str, Any]:
        """How often another candidate did better, by how much (first layouts, then fresh), with errors."""
        n = len(self.positions)
        first = [r.rates[r.candidates.index(r.best)] - r.rates[r.candidates.index(r.played)] for r in self.positions]
        gains = np.array([r.gain for r in self.positions])
        return {
            "positions": n, "skipped": self.skipped,
            "another_better_first": sum(r.best != r.played for r in self.positions),
            "another_better_first_over_two_se": sum(gain > 2 * r.first_se for gain, r in zip(first, self.positions,
                                                                                              strict=True)),
            # a maximum over noisy rates overstates the best candidate's true gain, so its mean bounds from above
            # what any choice among these candidates (an oracle's included) gains at one guess
            "mean_gain_first": float(np.mean(first)) if n else None,
            "mean_gain_first_se": float(np.std(first, ddof=1) / math.sqrt(n)) if n > 1 else None,
            "mean_played_rate": float(np.mean([r.played_again for r in self.positions])) if n else None,
            "mean_gain": float(gains.mean()) if n else None,
            "mean_playouts": float(np.mean([r.playouts for r in self.positions])) if n else None,
            "mean_gain_se": float(gains.std(ddof=1) / math.sqrt(n)) if n > 1 else None,
            "gain_over_two_se": sum(r.gain > 2 * r.gain_se for r in self.positions),
            "loss_over_two_se": sum(r.gain < -2 * r.gain_se for r in self.positions),
        }  # fmt: skip

    def by_kind(self) -> dict[str, dict[str, Any]]:
        """Per kind of guess: positions, the played cell's mean rate and the mean gain on fresh layouts, with SEs."""
        kinds: dict[str, dict[str, Any]] = {}
        for kind in dict.fromkeys(r.kind for r in self.positions):
            gains = np.array([r.gain for r in self.positions if r.kind == kind])
            played = np.array([r.played_again for r in self.positions if r.kind == kind])
            kinds[kind] = {"positions": int(gains.size), "played_rate": float(played.mean()),
                           "mean_gain": float(gains.mean()),
                           "mean_gain_se": float(gains.std(ddof=1) / math.sqrt(gains.size)) if gains.size > 1 else None}
        return kinds

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "layouts": self.layouts, "strength": self.strength, "summary": self.summary(),
                "by_kind": self.by_kind(), "positions": [vars(r) for r in self.positions]}  # fmt: skip

    @property
    def player(self) -> str:
        """Who plays the rollouts on, by its agent name."""
        return self.strength if self.strength == GUESS_VALUE else f"solver-{self.strength}"

    def markdown(self) -> str:
        """The summary as a few lines of Markdown."""
        s = self.summary()
        if not s["positions"]:
            return f"No rollouts made ({s['skipped']} positions skipped: too many layouts to list)."
        se = "-" if s["mean_gain_se"] is None else f"{s['mean_gain_se']:.4f}"
        first_se = "-" if s["mean_gain_first_se"] is None else f"{s['mean_gain_first_se']:.4f}"
        where = "fatal guesses" if self.target == "fatal" else "true guesses"
        table = ["", "", f"| {where[:-2]} | positions | cell played won (fresh layouts) | best candidate's gain | SE |",
                 "| --- | ---: | ---: | ---: | ---: |"]  # fmt: skip
        for kind, row in self.by_kind().items():
            row_se = "-" if row["mean_gain_se"] is None else f"{row['mean_gain_se']:.4f}"
            table.append(f"| {kind} | {row['positions']} | {row['played_rate']:.4f} | {row['mean_gain']:+.4f} "
                         f"| {row_se} |")  # fmt: skip
        return (f"Rollouts at {s['positions']} {where} ({s['skipped']} skipped), {self.layouts} layouts per "
                f"candidate, played on by {self.player}: another candidate won more often than the cell "
                f"played at {s['another_better_first']} of them on the first layouts "
                f"({s['another_better_first_over_two_se']} by over two paired SE; mean gain "
                f"{s['mean_gain_first']:+.4f}, SE {first_se}, a maximum over noisy rates: at most what any choice "
                f"among them gains); on fresh layouts the cell played won "
                f"{s['mean_played_rate']:.4f} and the best candidate {s['mean_gain']:+.4f} more (SE {se}); "
                f"better by over two paired SE at {s['gain_over_two_se']}, worse at {s['loss_over_two_se']}."
                + "\n".join(table))  # fmt: skip


def rollout_at(position: Any, mines: int, layouts: int, margin: float, limit: int, strength: str,
               rng: np.random.Generator, race: float = 0.0, batch: int = 100) -> Rollout:  # fmt: skip
    """The rollouts at one guess position (a ``GuessPosition``: ``game``, ``grid``, ``cell``, ``lost``, ``kind``),
    the candidates raced in rounds of ``batch`` layouts when ``race`` is above 0."""
    grid = position.grid
    sampler = PosteriorSampler(grid, mines)
    candidates = shortlist(grid, analyse(grid, mines).probabilities, margin, limit)
    if position.cell not in candidates:
        candidates.append(position.cell)
    settings, head = playout_player(strength)
    state = np.uint64(rng.integers(2**63))
    wins = race_candidates(grid, mines, sampler, candidates, layouts, batch if race > 0 else layouts, race,
                           settings, state, rng, head)  # fmt: skip
    rates = [float(won.mean()) for won in wins]
    played_index = candidates.index(position.cell)
    alive = [i for i, won in enumerate(wins) if won.size == max(w.size for w in wins)]
    top = max(rates[i] for i in alive)
    best = position.cell if played_index in alive and rates[played_index] == top else next(
        candidates[i] for i in alive if rates[i] == top)  # fmt: skip
    common = min(wins[played_index].size, wins[candidates.index(best)].size)
    first_se = paired_se(wins[candidates.index(best)][:common], wins[played_index][:common])
    fresh = sampler.samples(rng, layouts)
    played, _ = play_outs(grid, mines, fresh, position.cell, settings, state, head)
    again, _ = play_outs(grid, mines, fresh, best, settings, state, head)
    return Rollout(position.game, position.lost, position.kind, position.cell, candidates, rates, best, first_se,
                   float(played.mean()), float(again.mean()), paired_se(again, played),
                   sum(won.size for won in wins))  # fmt: skip


def rollout_study(positions: list[Any], mines: int, target: str, count: int, layouts: int, solver_strength: str,
                  strength: str, seed: int, progress: bool = False, margin: float | None = None,
                  limit: int | None = None, race: float = 0.0, batch: int = 100) -> RolloutStudy:  # fmt: skip
    """Rollouts at ``count`` positions drawn (by ``seed``) among the fatal guesses, all true guesses or the searched
    ones (:data:`ROLLOUT_TARGETS`); the
    candidates are those of ``solver_strength``'s look-ahead, or of a wider ``margin`` and ``limit`` when given
    (cells the solver never weighs, to see whether any of them does better)."""
    pool = [p for p in positions if (p.lost and target == "fatal") or target == "guesses"
            or (target == "searched" and p.kind == SEARCHED_KIND)]
    rng = np.random.default_rng(seed)
    picked = sorted(rng.choice(len(pool), size=min(count, len(pool)), replace=False).tolist()) if pool else []
    settings = PRESETS[solver_strength]
    margin = settings.margin if margin is None else margin
    limit = settings.max_candidates if limit is None else limit
    study = RolloutStudy(target, layouts, strength)
    for index in tqdm(picked, desc="rollouts", disable=not progress):
        try:
            study.positions.append(rollout_at(pool[index], mines, layouts, margin, limit, strength, rng, race, batch))
        except TooManyLayouts:
            study.skipped += 1
    return study

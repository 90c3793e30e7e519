"""Players of battle minesweeper (:mod:`mine_env.engine.battle`) behind one interface.

A :class:`BattleAgent` plays on what the PettingZoo env ``mine_env.battle`` gives the selected agent:
``act(obs, info)`` with ``obs`` = {"observation": the player's view, int8 (rows, cols), "action_mask": int8} and
``info`` carrying at least ``"mines"`` (the total). It returns a reveal action, a flat cell index (these agents
never use the optional bomb). They read the position through the exact probability engine
(:mod:`agents.analysis.probability`): in a battle view every claimed mine is a shown mine, so the exact count of
the single-player game applies with the global mine count (:func:`mine_env.engine.battle.analysis_grid`).

- :class:`RandomBattleAgent`: a uniformly random valid reveal.
- :class:`GreedyBattleAgent`: the cell with the highest exact mine probability (ties drawn at random).
- :class:`ContestBattleAgent`: the PTT contest's rule, the highest ``E[A] - E'[A]`` (see its docstring).

:func:`play_battle` plays two of them through one game on the engine, without the env (what the tournament runs).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from agents.analysis.probability import VALUE_MINE, BoardAnalysis, analyse
from mine_env.engine.battle import BattleGame, BattleSpec, analysis_grid
from mine_env.engine.constants import MINE

TIE_TOLERANCE = 1e-9
"""Probabilities (and scores) closer than this count as equal; the agent's generator breaks the tie."""


class BattleAgent(ABC):
    """A battle-minesweeper policy (see the module docstring for what ``act`` receives).

    Args:
        seed: seed of the agent's own generator, which breaks ties (None: fresh entropy).
    """

    name: str = "battle-agent"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self) -> None:  # noqa: B027  (an optional hook: stateless agents need not override it)
        """Forget anything remembered from the previous game (called before each game)."""

    @abstractmethod
    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        """Choose the next reveal for this position."""

    def _valid_cells(self, obs: Mapping[str, np.ndarray]) -> np.ndarray:
        """Flat indices of the valid reveals (bomb actions, if any, are ignored)."""
        view = np.asarray(obs["observation"])
        valid = np.flatnonzero(np.asarray(obs["action_mask"])[: view.size])
        if valid.size == 0:
            raise ValueError("no valid reveal: the action mask allows none (is the game over, or not your turn?)")
        return valid

    def _pick_best(self, cells: np.ndarray, scores: np.ndarray) -> int:
        """One of the cells whose score is highest (within TIE_TOLERANCE), drawn by the agent's generator."""
        best = cells[scores >= scores.max() - TIE_TOLERANCE]
        return int(best[0] if best.size == 1 else self._rng.choice(best))


class RandomBattleAgent(BattleAgent):
    """A uniformly random valid reveal: the floor."""

    name = "random"

    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        return int(self._rng.choice(self._valid_cells(obs)))


def position_analysis(obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> BoardAnalysis:
    """The exact count of the player's position: claimed mines as shown mines, with the game's total mines."""
    return analyse(analysis_grid(obs["observation"]), int(info["mines"]))


class GreedyBattleAgent(BattleAgent):
    """The valid cell with the highest exact mine probability: the most likely immediate gain, nothing more."""

    name = "greedy"

    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        cells = self._valid_cells(obs)
        probabilities = position_analysis(obs, info).probabilities.ravel()
        return self._pick_best(cells, probabilities[cells])


def best_chance(analysis: BoardAnalysis) -> float:
    """The highest mine probability among the hidden cells of a position (0.0 when none is hidden)."""
    hidden = analysis.hidden
    return float(analysis.probabilities[hidden].max()) if hidden.any() else 0.0


class ContestBattleAgent(BattleAgent):
    """The PTT contest's AI: the cell ``A`` with the highest ``E[A] - E'[A]``, among the ``candidates`` likeliest.

    With ``p_A`` the exact mine probability of ``A`` and ``m(X)`` the highest exact mine probability in position
    ``X`` (what the player to move there expects from one click):

    - ``E[A] = p_A * (1 + m(A claimed))``: the mine ``A`` may be, plus the chain it opens, since the mover
      moves again (cut after one more click);
    - ``E'[A] = sum_v P(A shows v) * m(A shows v)``: what the opponent can expect from its next click given the
      number ``A`` reveals, with ``P(A shows v)`` the exact distribution of the number under the global mine
      count (:meth:`BoardAnalysis.reveal_outcomes`; these sum to ``1 - p_A``).

    A certain mine is always taken first (it gains one and moves again, and shows nothing new). The positions
    after a number are counted with that number alone: the flood fill of a zero, which opens more, is not
    modelled. Only the ``candidates`` cells with the highest ``p_A`` are scored (each costs ten exact counts).
    """

    name = "contest"

    def __init__(self, seed: int | None = None, candidates: int = 6) -> None:
        super().__init__(seed)
        if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1:
            raise ValueError(f"candidates must be a positive integer, got {candidates!r}")
        self.candidates = candidates

    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        cells = self._valid_cells(obs)
        analysis = position_analysis(obs, info)
        probabilities = analysis.probabilities.ravel()[cells]
        certain = cells[probabilities >= 1.0 - TIE_TOLERANCE]
        if certain.size:
            return int(certain[0])
        order = np.argsort(-probabilities, kind="stable")[: self.candidates]
        shortlist = cells[order]
        scores = np.array([self.score(analysis, int(cell)) for cell in shortlist])
        return self._pick_best(shortlist, scores)

    @staticmethod
    def score(analysis: BoardAnalysis, cell: int) -> float:
        """``E[A] - E'[A]`` of revealing flat ``cell`` in the analysed position (see the class docstring)."""
        coordinates = divmod(cell, analysis.grid.shape[1])
        distribution, outcomes = analysis.reveal_outcomes(coordinates)
        p_mine = distribution[VALUE_MINE]
        gain = 0.0
        if p_mine > 0.0:
            claimed = analysis.grid.copy()
            claimed[coordinates] = MINE
            gain = p_mine * (1.0 + best_chance(analyse(claimed, analysis.mines)))
        given_away = sum(
            float(distribution[index]) * best_chance(outcome)
            for index, outcome in enumerate(outcomes)
            if outcome is not None and index != VALUE_MINE
        )
        return gain - given_away


BATTLE_AGENTS: dict[str, Callable[[int | None], BattleAgent]] = {
    "random": RandomBattleAgent,
    "greedy": GreedyBattleAgent,
    "contest": ContestBattleAgent,
}
"""The battle agents by name, each made from a seed."""


def make_battle_agent(name: str, seed: int | None = None) -> BattleAgent:
    """The battle agent called ``name`` (one of :data:`BATTLE_AGENTS`), seeded."""
    if name not in BATTLE_AGENTS:
        raise ValueError(f"unknown battle agent {name!r}; expected one of {', '.join(BATTLE_AGENTS)}")
    return BATTLE_AGENTS[name](seed)


def seat_observation(game: BattleGame, seat: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """What the env would give ``seat``: ({"observation", "action_mask"}, info with "mines" and the scores)."""
    obs = {"observation": game.view(seat), "action_mask": game.action_mask(seat)}
    info = {"mines": game.spec.mines, "to_win": game.spec.to_win, "score": game.scores[seat],
            "opponent_score": game.scores[1 - seat]}  # fmt: skip
    return obs, info


def play_battle(spec: BattleSpec, key: int, players: tuple[BattleAgent, BattleAgent]) -> BattleGame:
    """Play one game of layout ``key``, ``players[0]`` in seat 0 (moving first); returns the finished game."""
    game = BattleGame(spec, key)
    for player in players:
        player.reset()
    while not game.is_over:
        obs, info = seat_observation(game, game.mover)
        game.play(players[game.mover].act(obs, info))
    return game

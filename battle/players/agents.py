"""Players of battle minesweeper (:mod:`battle.rules`) behind one interface.

A :class:`BattleAgent` plays on what the PettingZoo env ``mine_env.battle`` gives the selected agent:
``act(obs, info)`` with ``obs`` = {"observation": the player's view, int8 (rows, cols), "action_mask": int8} and
``info`` carrying at least ``"mines"`` (the total). It returns an action: a flat cell index to reveal, or ``n +
cell`` to bomb around ``cell`` where the bomb rule is on (greedy, contest and lookahead bomb by the rule of
:meth:`BattleAgent._bomb_choice`). They read the position through the exact probability engine
(:mod:`mine_env.analysis.probability`): in a battle view every claimed mine is a shown mine, so the exact count of
the single-player game applies with the global mine count (:func:`battle.rules.analysis_grid`).

- :class:`RandomBattleAgent`: a uniformly random valid reveal.
- :class:`GreedyBattleAgent`: the cell with the highest exact mine probability (ties drawn at random).
- :class:`ContestBattleAgent`: the PTT contest's rule, the highest ``E[A] - E'[A]`` (see its docstring).
- :class:`LookaheadBattleAgent`: the contest's rule one ply deeper (3-ply expectimax, see its docstring).

The values they choose by are in :mod:`battle.players.values` (Python, the reference) and, compiled, in
:mod:`battle.players.search` (the contest and the look-ahead score a move in one call there, by default).

:func:`play_battle` plays two of them through one game on the engine, without the env (what the tournament runs).
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from battle.players.position import Position
from battle.players.search import Board, contest_scores, lookahead_scores
from battle.players.values import (
    TIE_TOLERANCE,
    Expansion,
    best_chance,
    certain_mines,
    contest_best,
    contest_value,
    contest_values,
    expand,
    likeliest,
    opponent_chance,
)
from battle.rules import BattleGame, BattleSpec, analysis_grid, bomb_area
from mine_env.analysis.component_store import ComponentStore, new_component_store

BOMB_MARGIN = 2.0
"""The bomb rule: bomb only when its area's expected mines beat the best click's mine probability by this much."""


def positive_int(name: str, value: object) -> int:
    """``value`` if it is a positive integer, else a ValueError naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


@functools.cache
def shared_component_store() -> ComponentStore:
    """The store of counted components shared by every battle agent of this process, made on first use.

    A component's count depends on its local form alone (:mod:`mine_env.analysis.component_store`), so a store
    can serve every game and both players: the components of a game's position recur in the outcomes both
    players count, and small ones recur from game to game. Sharing changes no float, only the speed. Room for
    32,768 components (about 90 MB of address space, touched only as it fills; emptied when full). Not for
    agents acting at the same time in several threads of one process (the kernels write to it unlocked).
    """
    return new_component_store(components=1 << 15, key_ints=1 << 21, sums=1 << 22)


def bomb_expectations(analysis: Position, spec: BattleSpec) -> np.ndarray:
    """Expected mines the bomb around each cell would claim: the sum of the exact mine probabilities of the hidden
    cells of its 5x5 area (flat, one per cell)."""
    hidden_p = np.where(analysis.hidden, analysis.probabilities, 0.0)
    expected = np.empty(spec.n_cells)
    for cell in range(spec.n_cells):
        r0, r1, c0, c1 = bomb_area(spec, cell)
        expected[cell] = hidden_p[r0:r1, c0:c1].sum()
    return expected


class BattleAgent(ABC):
    """A battle-minesweeper policy (see the module docstring for what ``act`` receives).

    Args:
        seed: seed of the agent's own generator, which breaks ties (None: fresh entropy).
        store_components: for an agent that counts the outcomes of clicks (``counts_outcomes``), take the
            components counted before from the process's store (:func:`shared_component_store`), so that a
            click costs the dynamic programme of only the components never met; False counts every outcome in
            full (the plain path: the same floats, so the same choices, slower).
        compiled: with the store, score a move in one compiled call (:mod:`battle.players.search`); False runs
            the values of :mod:`battle.players.values` in Python (the reference: the same floats, slower).
    """

    name: str = "battle-agent"
    counts_outcomes: bool = False
    """Whether the agent counts the outcomes of hypothetical clicks (then it keeps a component store)."""

    def __init__(self, seed: int | None = None, store_components: bool = True, compiled: bool = True) -> None:
        self._rng = np.random.default_rng(seed)
        keeps_store = store_components and self.counts_outcomes
        self._store: ComponentStore | None = shared_component_store() if keeps_store else None
        self._compiled = compiled and self._store is not None

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

    def _unscored_move(
        self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]
    ) -> tuple[Position, np.ndarray, int | None]:
        """The position's analysis and valid reveals, and the move that needs no scoring, if any: a certain mine
        first (it gains one, moves again and shows nothing new), else the bomb by rule."""
        cells = self._valid_cells(obs)
        analysis = position_analysis(obs, info, self._store)
        certain = certain_mines(analysis, cells)
        if certain.size:
            return analysis, cells, int(certain[0])
        return analysis, cells, self._bomb_choice(obs, analysis)

    def _bomb_choice(self, obs: Mapping[str, np.ndarray], analysis: Position) -> int | None:
        """The bomb action by rule, or None: when the bomb is allowed (the player is behind and has it), bomb the
        area with the most expected mines if that is at least ``BOMB_MARGIN`` above the best click's chance."""
        rows, cols = analysis.grid.shape
        n = rows * cols
        mask = np.asarray(obs["action_mask"])
        if mask.size <= n or not mask[n:].any():
            return None
        spec = BattleSpec(rows, cols, analysis.mines, bomb=True)
        expected = np.where(mask[n:] == 1, bomb_expectations(analysis, spec), -np.inf)
        if expected.max() < best_chance(analysis) + BOMB_MARGIN:
            return None
        return n + self._pick_best(np.arange(n), expected)

    def _pick_best(self, cells: np.ndarray, scores: np.ndarray) -> int:
        """One of the cells whose score is highest (within TIE_TOLERANCE), drawn by the agent's generator."""
        best = cells[scores >= scores.max() - TIE_TOLERANCE]
        return int(best[0] if best.size == 1 else self._rng.choice(best))


class RandomBattleAgent(BattleAgent):
    """A uniformly random valid reveal: the floor."""

    name = "random"

    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        return int(self._rng.choice(self._valid_cells(obs)))


def search_inputs(analysis: Position) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A position as :mod:`battle.players.search` reads it: its flat grid, mine probabilities and certain mines."""
    return analysis.grid.ravel(), analysis.probabilities.ravel(), analysis.certain_mines.ravel()


def board_of(analysis: Position) -> Board:
    """The board's shape and mine total, as :mod:`battle.players.search` reads them."""
    rows, cols = analysis.grid.shape
    return Board(rows, cols, analysis.mines)


def position_analysis(
    obs: Mapping[str, np.ndarray], info: Mapping[str, Any], store: ComponentStore | None = None
) -> Position:
    """The exact count of the player's position: claimed mines as shown mines, with the game's total mines (its
    outcomes counted with ``store``, see :class:`~battle.players.position.Position`)."""
    return Position.of(analysis_grid(obs["observation"]), int(info["mines"]), store)


class GreedyBattleAgent(BattleAgent):
    """The valid cell with the highest exact mine probability: the most likely immediate gain, nothing more."""

    name = "greedy"

    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        cells = self._valid_cells(obs)
        analysis = position_analysis(obs, info)
        bomb = self._bomb_choice(obs, analysis)
        if bomb is not None:
            return bomb
        return self._pick_best(cells, analysis.probabilities.ravel()[cells])


class ContestBattleAgent(BattleAgent):
    """The PTT contest's AI: the cell ``A`` with the highest ``E[A] - E'[A]``, among the ``candidates`` likeliest.

    With ``p_A`` the exact mine probability of ``A`` and ``m(X)`` the highest exact mine probability in position
    ``X`` (what the player to move there expects from one click):

    - ``E[A] = p_A * (1 + m(A claimed))``: the mine ``A`` may be, plus the chain it opens, since the mover
      moves again (cut after one more click);
    - ``E'[A] = sum_v P(A shows v) * m'(A shows v)``: what the opponent can expect from its next click given the
      number ``A`` reveals, with ``P(A shows v)`` the exact distribution of the number under the global mine
      count (:meth:`Position.reveal_outcomes`; these sum to ``1 - p_A``). ``m'`` is ``m``, except after a
      zero at least ``FLOOD_MIN_SHARE`` likely, whose flood fill opens its neighbours: there it is the lower
      bound of :func:`flooded_chance` (ignoring the flood loses 67% of games to this rule, docs/BATTLE.md).

    A certain mine is always taken first (it gains one and moves again, and shows nothing new). Only the
    ``candidates`` cells with the highest ``p_A`` are scored (each costs about ten exact counts). This is a 2-ply
    negamax on the expected mine difference, the opponent's value cut at one click (:class:`LookaheadBattleAgent`
    looks one ply deeper).
    """

    name = "contest"
    counts_outcomes = True

    def __init__(self, seed: int | None = None, candidates: int = 6, store_components: bool = True,
                 compiled: bool = True) -> None:  # fmt: skip
        super().__init__(seed, store_components, compiled)
        self.candidates = positive_int("candidates", candidates)

    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        analysis, cells, move = self._unscored_move(obs, info)
        if move is not None:
            return move
        shortlist = likeliest(analysis, cells, self.candidates)
        if self._compiled:
            scores = contest_scores(*search_inputs(analysis), shortlist, board_of(analysis), self._store)
        else:
            scores = contest_values([expand(analysis, int(cell)) for cell in shortlist], 1, TIE_TOLERANCE)
        return self._pick_best(shortlist, scores)

    @staticmethod
    def score(analysis: Position, cell: int) -> float:
        """``E[A] - E'[A]`` of revealing flat ``cell`` in the analysed position (see the class docstring)."""
        return contest_value(expand(analysis, cell))


class LookaheadBattleAgent(BattleAgent):
    """A 3-ply look-ahead: the contest's rule with every cut-off ``m(X)`` replaced by the contest's own value.

    On the expected difference of mines (mine, minus the opponent's) over the next moves, negamax with chance
    nodes on the exact outcome distribution. With ``V2(X) = max_B E[B] - E'[B]`` (the contest's value of the
    player to move in ``X``, over its ``inner`` likeliest cells):

        Q3(A) = p_A * (1 + V2(A claimed)) - sum_v P(A shows v) * V2(A shows v)

    The mover keeps the turn after a mine (so its own ``V2`` adds), and hands it over after a number (so the
    opponent's ``V2`` subtracts); ``V2`` itself looks one more click ahead than the contest's ``m``, so a cell
    whose number lets the opponent safely chain mines, or whose mine leads to a strong follow-up, is seen as
    such. Cost is capped: the contest's score ranks the ``candidates`` likeliest cells, only the ``deepen``
    best of those get ``Q3``, and outcomes less likely than ``min_share``, and every zero (whose flood fill
    ``V2`` would not see), keep the contest's ``m'`` instead of ``V2``. A certain mine is taken first.
    """

    name = "lookahead"
    counts_outcomes = True

    def __init__(self, seed: int | None = None, candidates: int = 5, deepen: int = 2, inner: int = 2,
                 min_share: float = 0.15, store_components: bool = True, compiled: bool = True) -> None:  # fmt: skip
        super().__init__(seed, store_components, compiled)
        self.candidates = positive_int("candidates", candidates)
        self.deepen = positive_int("deepen", deepen)
        self.inner = positive_int("inner", inner)
        if not 0.0 <= min_share <= 1.0:
            raise ValueError(f"min_share must be between 0 and 1, got {min_share!r}")
        self.min_share = min_share

    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        analysis, cells, move = self._unscored_move(obs, info)
        if move is not None:
            return move
        shortlist = likeliest(analysis, cells, self.candidates)
        if self._compiled:
            ranked, scores = lookahead_scores(*search_inputs(analysis), shortlist, self.deepen, self.inner,
                                              self.min_share, board_of(analysis), self._store)  # fmt: skip
            return self._pick_best(shortlist[ranked], scores)
        expansions = [expand(analysis, int(cell)) for cell in shortlist]
        ranked = np.argsort(-contest_values(expansions, self.deepen, 0.0), kind="stable")[: self.deepen]
        scores = np.array([self.q3(expansions[i]) for i in ranked])
        return self._pick_best(shortlist[ranked], scores)

    def q3(self, expansion: Expansion) -> float:
        """``Q3(A)`` of an expanded click (see the class docstring)."""
        gain = 0.0
        if expansion.claimed is not None:
            gain = expansion.p_mine * (1.0 + contest_best(expansion.claimed, self.inner))
        given_away = sum(
            share * (contest_best(outcome, self.inner) if share >= self.min_share and value != 0
                     else opponent_chance(expansion, value, share, outcome))
            for value, share, outcome in expansion.safe
        )
        return gain - given_away


BATTLE_AGENTS: dict[str, Callable[..., BattleAgent]] = {
    "random": RandomBattleAgent,
    "greedy": GreedyBattleAgent,
    "contest": ContestBattleAgent,
    "lookahead": LookaheadBattleAgent,
}
"""The battle agents by name, each made from a seed."""


def make_battle_agent(
    name: str, seed: int | None = None, store_components: bool = True, compiled: bool = True
) -> BattleAgent:
    """The battle agent called ``name`` (one of :data:`BATTLE_AGENTS`), seeded (``store_components`` and
    ``compiled``: see :class:`BattleAgent`)."""
    if name not in BATTLE_AGENTS:
        raise ValueError(f"unknown battle agent {name!r}; expected one of {', '.join(BATTLE_AGENTS)}")
    return BATTLE_AGENTS[name](seed, store_components=store_components, compiled=compiled)


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

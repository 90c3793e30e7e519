"""Players of battle minesweeper (:mod:`mine_env.engine.battle`) behind one interface.

A :class:`BattleAgent` plays on what the PettingZoo env ``mine_env.battle`` gives the selected agent:
``act(obs, info)`` with ``obs`` = {"observation": the player's view, int8 (rows, cols), "action_mask": int8} and
``info`` carrying at least ``"mines"`` (the total). It returns an action: a flat cell index to reveal, or ``n +
cell`` to bomb around ``cell`` where the bomb rule is on (greedy, contest and lookahead bomb by the rule of
:meth:`BattleAgent._bomb_choice`). They read the position through the exact probability engine
(:mod:`agents.analysis.probability`): in a battle view every claimed mine is a shown mine, so the exact count of
the single-player game applies with the global mine count (:func:`mine_env.engine.battle.analysis_grid`).

- :class:`RandomBattleAgent`: a uniformly random valid reveal.
- :class:`GreedyBattleAgent`: the cell with the highest exact mine probability (ties drawn at random).
- :class:`ContestBattleAgent`: the PTT contest's rule, the highest ``E[A] - E'[A]`` (see its docstring).
- :class:`LookaheadBattleAgent`: the contest's rule one ply deeper (3-ply expectimax, see its docstring).

:func:`play_battle` plays two of them through one game on the engine, without the env (what the tournament runs).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from agents.analysis.component_store import ComponentStore, new_component_store
from agents.analysis.probability import VALUE_MINE
from agents.battle_position import Position
from mine_env.engine.battle import BattleGame, BattleSpec, analysis_grid, bomb_area

TIE_TOLERANCE = 1e-9
"""Probabilities (and scores) closer than this count as equal; the agent's generator breaks the tie."""
BOMB_MARGIN = 2.0
"""The bomb rule: bomb only when its area's expected mines beat the best click's mine probability by this much."""


def positive_int(name: str, value: object) -> int:
    """``value`` if it is a positive integer, else a ValueError naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


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
        store_components: for an agent that counts the outcomes of clicks (``counts_outcomes``), keep the
            components counted in the game's earlier counts (:mod:`agents.analysis.component_store`), so that a
            click costs the dynamic programme of only the components it changes; False counts every outcome in
            full (the plain path: the same floats, so the same choices, slower).
    """

    name: str = "battle-agent"
    counts_outcomes: bool = False
    """Whether the agent counts the outcomes of hypothetical clicks (then it keeps a component store)."""

    def __init__(self, seed: int | None = None, store_components: bool = True) -> None:
        self._rng = np.random.default_rng(seed)
        keeps_store = store_components and self.counts_outcomes
        self._store: ComponentStore | None = new_component_store() if keeps_store else None

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


def position_analysis(
    obs: Mapping[str, np.ndarray], info: Mapping[str, Any], store: ComponentStore | None = None
) -> Position:
    """The exact count of the player's position: claimed mines as shown mines, with the game's total mines (its
    outcomes counted with ``store``, see :class:`~agents.battle_position.Position`)."""
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


def best_chance(analysis: Position) -> float:
    """The highest mine probability among the hidden cells of a position (0.0 when none is hidden)."""
    return analysis.best_chance


class Expansion(NamedTuple):
    """What clicking one cell can lead to: its exact mine probability and the position after each outcome."""

    cell: tuple[int, int]
    p_mine: float
    claimed: Position | None
    """The position after the cell turns out a mine (the mover moves again); None when it cannot be one."""
    safe: list[tuple[int, float, Position]]
    """(v, P(the cell shows v), the position after it) for each possible number v; the shares sum to 1 - p_mine."""


def expand(analysis: Position, cell: int) -> Expansion:
    """Every outcome of clicking flat ``cell``, with its exact probability (:meth:`Position.reveal_outcomes`)."""
    coordinates = divmod(cell, analysis.grid.shape[1])
    distribution, outcomes = analysis.reveal_outcomes(coordinates, with_mine=True)
    p_mine = float(distribution[VALUE_MINE])
    claimed = outcomes[VALUE_MINE]
    safe = [(index - 1, float(distribution[index]), outcome) for index, outcome in enumerate(outcomes)
            if outcome is not None and index != VALUE_MINE]  # fmt: skip
    return Expansion(coordinates, p_mine, claimed, safe)


FLOOD_MIN_SHARE = 0.1
"""A zero at least this likely gets its flood fill modelled (:func:`flooded_chance`); a rarer one keeps ``m``."""


FLOOD_NEIGHBOURS = 1
"""How many of a zero's neighbours :func:`flooded_chance` reveals one at a time (the most telling ones)."""


def flooded_chance(after_zero: Position, cell: tuple[int, int]) -> float:
    """The opponent's best chance after ``cell`` shows 0 and its flood fill opens the neighbours: the best, over
    the most telling hidden neighbours ``N``, of ``sum_w P(N shows w) * m(N shows w)`` (and at least ``m``).

    The flood reveals every neighbour's number at once; revealing one of them is less information, and the
    expected best chance only grows with information, so this is a lower bound of the true value, and at least
    the ``m`` of the zero alone (which ignores the opened numbers). To keep it cheap only the ``FLOOD_NEIGHBOURS``
    neighbours with the fewest undecided cells (mine probability strictly between 0 and 1) around them are
    revealed: a number over few undecided cells is the likeliest to pin a mine; one over none tells nothing.
    """
    key = ("flooded_chance", cell)
    if key not in after_zero.memo:  # the look-ahead asks again for the zeros of the clicks it deepens
        after_zero.memo[key] = _flooded_chance(after_zero, cell)
    return after_zero.memo[key]


def _flooded_chance(after_zero: Position, cell: tuple[int, int]) -> float:
    """:func:`flooded_chance`, computed (that function keeps it on the position, per cell)."""
    rows, cols = after_zero.grid.shape
    r0, c0 = max(cell[0] - 2, 0), max(cell[1] - 2, 0)  # the 5x5 square the neighbours' own neighbours lie in
    hidden = after_zero.hidden[r0 : cell[0] + 3, c0 : cell[1] + 3]
    probabilities = after_zero.probabilities[r0 : cell[0] + 3, c0 : cell[1] + 3]
    undecided = (hidden & (probabilities > TIE_TOLERANCE) & (probabilities < 1.0 - TIE_TOLERANCE)).tolist()
    hidden = hidden.tolist()
    telling = []
    for r in range(max(cell[0] - 1, 0), min(cell[0] + 2, rows)):
        for c in range(max(cell[1] - 1, 0), min(cell[1] + 2, cols)):
            if hidden[r - r0][c - c0]:
                around = sum(undecided[rr - r0][cc - c0] for rr in range(max(r - 1, 0), min(r + 2, rows))
                             for cc in range(max(c - 1, 0), min(c + 2, cols)))  # fmt: skip
                if around:
                    telling.append((around, r, c))
    best = best_chance(after_zero)
    for _, r, c in sorted(telling)[:FLOOD_NEIGHBOURS]:
        distribution, outcomes = after_zero.reveal_outcomes((r, c))
        expected = sum(float(distribution[i]) * best_chance(o) for i, o in enumerate(outcomes) if o is not None)
        best = max(best, expected)
    return best


def opponent_chance(expansion: Expansion, value: int, share: float, outcome: Position) -> float:
    """``m`` of the position after the click shows ``value``, the flood fill of a likely zero included."""
    if value == 0 and share >= FLOOD_MIN_SHARE:
        return flooded_chance(outcome, expansion.cell)
    return best_chance(outcome)


def contest_value(expansion: Expansion) -> float:
    """``E[A] - E'[A]`` of an expanded click (the formula in :class:`ContestBattleAgent`)."""
    gain = expansion.p_mine * (1.0 + best_chance(expansion.claimed)) if expansion.claimed is not None else 0.0
    return gain - sum(share * opponent_chance(expansion, v, share, o) for v, share, o in expansion.safe)


def contest_bound(expansion: Expansion) -> float:
    """:func:`contest_value` with ``m`` in place of ``m'`` (no flood fill counted): never below it, since
    ``m' >= m`` term by term (and float products and sums are monotone), and equal to it when no zero is at
    least ``FLOOD_MIN_SHARE`` likely. Costs no count."""
    gain = expansion.p_mine * (1.0 + best_chance(expansion.claimed)) if expansion.claimed is not None else 0.0
    return gain - sum(share * best_chance(o) for _, share, o in expansion.safe)


def contest_values(expansions: list[Expansion], rank: int, tolerance: float) -> np.ndarray:
    """The contest values of ``expansions`` wherever they matter, each else an upper bound that cannot matter.

    Exact for every expansion that can be among the ``rank`` highest, or within ``tolerance`` of the
    ``rank``-th highest; every other gets its :func:`contest_bound`, which lies strictly below that by more than
    ``tolerance`` (so does its value). So the ``rank`` highest, their order, and which are within ``tolerance``
    of the best, are those of the exact values: only the flood fills that cannot change a choice are skipped.
    """
    values = np.array([contest_bound(e) for e in expansions])
    exact = np.array([not any(v == 0 and share >= FLOOD_MIN_SHARE for v, share, _ in e.safe) for e in expansions])
    for i in np.argsort(-values, kind="stable"):
        if exact[i]:
            continue
        known = np.sort(values[exact])[::-1]
        if known.size >= rank and values[i] < known[rank - 1] - tolerance:
            break  # this bound, and every later (lower) one, is out of reach
        values[i] = contest_value(expansions[i])
        exact[i] = True
    return values


def likeliest(analysis: Position, cells: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` cells of ``cells`` with the highest exact mine probability (stable order on ties)."""
    probabilities = analysis.probabilities.ravel()[cells]
    return cells[np.argsort(-probabilities, kind="stable")[:count]]


def certain_mines(analysis: Position, cells: np.ndarray) -> np.ndarray:
    """The cells of ``cells`` that are mines in every layout that fits."""
    return cells[analysis.probabilities.ravel()[cells] >= 1.0 - TIE_TOLERANCE]


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

    def __init__(self, seed: int | None = None, candidates: int = 6, store_components: bool = True) -> None:
        super().__init__(seed, store_components)
        self.candidates = positive_int("candidates", candidates)

    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        analysis, cells, move = self._unscored_move(obs, info)
        if move is not None:
            return move
        shortlist = likeliest(analysis, cells, self.candidates)
        scores = contest_values([expand(analysis, int(cell)) for cell in shortlist], 1, TIE_TOLERANCE)
        return self._pick_best(shortlist, scores)

    @staticmethod
    def score(analysis: Position, cell: int) -> float:
        """``E[A] - E'[A]`` of revealing flat ``cell`` in the analysed position (see the class docstring)."""
        return contest_value(expand(analysis, cell))


def contest_best(analysis: Position, candidates: int) -> float:
    """``V2(X)``: the highest ``E - E'`` over the ``candidates`` likeliest hidden cells of position ``X``.

    0.0 when nothing is hidden (the game is over there).
    """
    hidden = np.flatnonzero(analysis.hidden.ravel())
    if hidden.size == 0:
        return 0.0
    expansions = [expand(analysis, int(cell)) for cell in likeliest(analysis, hidden, candidates)]
    return float(contest_values(expansions, 1, 0.0).max())


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
                 min_share: float = 0.15, store_components: bool = True) -> None:  # fmt: skip
        super().__init__(seed, store_components)
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


def make_battle_agent(name: str, seed: int | None = None, store_components: bool = True) -> BattleAgent:
    """The battle agent called ``name`` (one of :data:`BATTLE_AGENTS`), seeded (``store_components``: see
    :class:`BattleAgent`)."""
    if name not in BATTLE_AGENTS:
        raise ValueError(f"unknown battle agent {name!r}; expected one of {', '.join(BATTLE_AGENTS)}")
    return BATTLE_AGENTS[name](seed, store_components=store_components)


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

"""The compiled search of the battle AIs (battle.players.search) against their Python values (battle.players.values):
the same floats, position by position, and the same games, move by move."""

from __future__ import annotations

import numpy as np
import pytest

from battle.players import (
    GreedyBattleAgent,
    LookaheadBattleAgent,
    make_battle_agent,
    seat_observation,
    shared_component_store,
)
from battle.players.agents import board_of, search_inputs
from battle.players.position import Position
from battle.players.search import contest_scores, lookahead_scores, outcome_distribution
from battle.players.values import TIE_TOLERANCE, contest_values, expand, likeliest
from battle.rules import BattleGame, BattleSpec, analysis_grid
from mine_env.engine.constants import HIDDEN
from support import battle_game_actions


def positions(spec: BattleSpec, key: int, moves: int) -> list[np.ndarray]:
    """The analysis grids of a greedy game's first ``moves`` positions."""
    game = BattleGame(spec, key)
    players = (GreedyBattleAgent(key), GreedyBattleAgent(key + 1))
    grids = []
    while not game.is_over and len(grids) < moves:
        grids.append(analysis_grid(game.view(game.mover)))
        game.play(players[game.mover].act(*seat_observation(game, game.mover)))
    return grids


@pytest.mark.parametrize("key", [2, 7])
def test_compiled_scores_equal_the_python_values(key: int) -> None:
    spec = BattleSpec(12, 12, 30)
    store = shared_component_store()
    python_agent = LookaheadBattleAgent(0, compiled=False)
    for grid in positions(spec, key, 30)[::3]:
        analysis = Position.of(grid, spec.mines, store)
        hidden = np.flatnonzero(grid.ravel() == HIDDEN)
        shortlist = likeliest(analysis, hidden, 5)
        expansions = [expand(analysis, int(cell)) for cell in shortlist]
        inputs, board = search_inputs(analysis), board_of(analysis)
        np.testing.assert_array_equal(contest_scores(*inputs, shortlist, board, store),
                                      contest_values(expansions, 1, TIE_TOLERANCE))  # fmt: skip
        ranked, scores = lookahead_scores(*inputs, shortlist, 2, 2, 0.15, board, store)
        expected = np.argsort(-contest_values(expansions, 2, 0.0), kind="stable")[:2]
        np.testing.assert_array_equal(ranked, expected)
        np.testing.assert_array_equal(scores, [python_agent.q3(expansions[i]) for i in expected])


@pytest.mark.parametrize(("names", "bomb"), [(("lookahead", "contest"), False), (("contest", "lookahead"), True)])
def test_the_compiled_agents_play_the_python_games(names: tuple[str, str], bomb: bool) -> None:
    spec = BattleSpec(bomb=bomb)
    for key in (5, 12):
        assert battle_game_actions(spec, key, names) == battle_game_actions(spec, key, names, compiled=False)


def test_outcome_distribution_splits_the_safe_chance_by_layouts() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        log_layouts = np.where(rng.random(10) < 0.6, rng.normal(30.0, 5.0, 10), -np.inf)
        log_layouts[1] = 25.0  # one number always fits
        p_mine = float(rng.random())
        got = outcome_distribution(log_layouts, p_mine, False)
        finite = np.isfinite(log_layouts)
        finite[0] = False
        shares = np.exp(log_layouts[finite] - log_layouts[finite].max())
        assert got[0] == p_mine
        np.testing.assert_allclose(got[finite], (1.0 - p_mine) * shares / shares.sum(), rtol=1e-14)
        assert not got[~finite][1:].any()
        assert abs(got.sum() - 1.0) < 1e-14
    certain = outcome_distribution(np.full(10, 3.0), 1.0, True)
    assert certain[0] == 1.0 and not certain[1:].any()


def test_the_agents_of_a_process_share_one_store() -> None:
    assert make_battle_agent("lookahead", 0)._store is make_battle_agent("contest", 1)._store
    assert make_battle_agent("contest", 0)._store is shared_component_store()
    assert not make_battle_agent("lookahead", 0, store_components=False)._compiled

"""The battle agents' positions: the one-call outcome counts equal the exact analysis float for float (the
numbers' shares to the last bit of exp), and the component store changes no move."""

from __future__ import annotations

import numpy as np
import pytest

from battle.players import GreedyBattleAgent, make_battle_agent, seat_observation
from battle.players.position import Position
from battle.rules import BattleGame, BattleSpec, analysis_grid
from mine_env.analysis.probability import VALUE_MINE, analyse
from mine_env.engine.constants import HIDDEN, MINE
from support import battle_game_actions


def midgame_grid(key: int) -> np.ndarray:
    """A 9x9/15 battle position some greedy moves in."""
    spec = BattleSpec(9, 9, 15)
    game = BattleGame(spec, key)
    players = (GreedyBattleAgent(key), GreedyBattleAgent(key + 1))
    for _ in range(12):
        if game.is_over:
            break
        game.play(players[game.mover].act(*seat_observation(game, game.mover)))
    return analysis_grid(game.view(0))


@pytest.mark.parametrize("key", [3, 11])
def test_reveal_outcomes_equal_the_exact_analysis(key: int) -> None:
    grid = midgame_grid(key)
    position, analysis = Position.of(grid, 15), analyse(grid, 15)
    assert position.best_chance == analysis.probabilities[analysis.hidden].max()
    for cell in map(tuple, np.argwhere(grid == HIDDEN)):
        expected, expected_outcomes = analysis.reveal_outcomes(cell)
        got, outcomes = position.reveal_outcomes(cell, with_mine=True)
        # The shares of the numbers come from the compiled exp, NumPy's may differ from it in the last bit.
        np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)
        assert got[VALUE_MINE] == expected[VALUE_MINE]
        for index in range(1, 10):
            assert (outcomes[index] is None) == (expected_outcomes[index] is None)
            if outcomes[index] is not None:
                np.testing.assert_array_equal(outcomes[index].probabilities, expected_outcomes[index].probabilities)
                np.testing.assert_array_equal(outcomes[index].certain_mines, expected_outcomes[index].certain_mines)
                assert outcomes[index].best_chance == Position.of(outcomes[index].grid, 15).best_chance
        claimed = outcomes[VALUE_MINE]
        assert (claimed is None) == (expected[VALUE_MINE] == 0.0)
        if claimed is not None:
            mined = grid.copy()
            mined[cell] = MINE
            np.testing.assert_array_equal(claimed.probabilities, analyse(mined, 15).probabilities)


def test_a_shown_cell_has_no_outcomes() -> None:
    grid = np.array([[HIDDEN, 1, HIDDEN, HIDDEN]], dtype=np.int8)
    with pytest.raises(ValueError, match="not hidden"):
        Position.of(grid, 1).reveal_outcomes((0, 1))



@pytest.mark.parametrize(("names", "bomb"), [(("lookahead", "contest"), False), (("contest", "lookahead"), True)])
def test_the_component_store_changes_no_move(names: tuple[str, str], bomb: bool) -> None:
    """The agents' default path (counts through their component store) plays the plain path's games exactly."""
    spec = BattleSpec(bomb=bomb)
    for key in (4, 9):
        assert battle_game_actions(spec, key, names) == battle_game_actions(spec, key, names, store_components=False)


def test_only_the_agents_that_count_outcomes_keep_a_store() -> None:
    assert make_battle_agent("lookahead", 0)._store is not None
    assert make_battle_agent("contest", 0, store_components=False)._store is None
    assert make_battle_agent("greedy", 0)._store is None

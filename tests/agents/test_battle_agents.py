"""The battle agents: valid moves, the formulas on positions worked by hand, whole games, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from agents.battle import (
    ContestBattleAgent,
    GreedyBattleAgent,
    RandomBattleAgent,
    make_battle_agent,
    play_battle,
    position_analysis,
)
from mine_env.engine.battle import BattleSpec
from mine_env.engine.constants import HIDDEN

# One row of four cells, one mine: the 1 says it is cell 0 or cell 2, so cell 3 is safe.
ROW = np.array([[HIDDEN, 1, HIDDEN, HIDDEN]], dtype=np.int8)
ROW_INFO = {"mines": 1}


def position(view: np.ndarray) -> dict[str, np.ndarray]:
    return {"observation": view, "action_mask": (view == HIDDEN).ravel().astype(np.int8)}


def test_greedy_takes_the_likeliest_mine() -> None:
    picks = {GreedyBattleAgent(seed).act(position(ROW), ROW_INFO) for seed in range(20)}
    assert picks == {0, 2}


def test_the_contest_score_is_e_minus_e_prime_worked_by_hand() -> None:
    analysis = position_analysis(position(ROW), ROW_INFO)
    # Cell 0: a mine half the time and then nothing is left to gain (E = 0.5); safe, it shows 0 and
    # the opponent takes the certain mine at cell 2 (E' = 0.5).
    assert ContestBattleAgent.score(analysis, 0) == pytest.approx(0.0)
    # Cell 3: never a mine (E = 0); its number tells the opponent where the mine is (E' = 1).
    assert ContestBattleAgent.score(analysis, 3) == pytest.approx(-1.0)
    assert ContestBattleAgent(0).act(position(ROW), ROW_INFO) in (0, 2)


def test_the_contest_agent_takes_a_certain_mine_first() -> None:
    view = np.array([[HIDDEN, 1, 0, 1, HIDDEN], [1, 1, 0, 1, HIDDEN], [0, 0, 0, 1, HIDDEN]], dtype=np.int8)
    # The 1s prove mines at (0, 0) and (1, 4), and (0, 4) and (2, 4) safe.
    analysis = position_analysis(position(view), {"mines": 2})
    certain = set(np.flatnonzero(analysis.certain_mines.ravel() & (view.ravel() == HIDDEN)).tolist())
    assert certain == {0, 9}
    assert ContestBattleAgent(0).act(position(view), {"mines": 2}) in certain


@pytest.mark.parametrize("name", ["random", "greedy", "contest"])
def test_every_agent_plays_whole_games_reproducibly(name: str) -> None:
    spec = BattleSpec(9, 9, 15)

    def outcome(key: int) -> tuple[int | None, list[int], int]:
        game = play_battle(spec, key, (make_battle_agent(name, key), make_battle_agent("random", key + 1)))
        return game.winner, game.scores, game.moves

    for key in range(3):
        winner, scores, _ = outcome(key)
        assert max(scores) == spec.to_win and scores[winner] == spec.to_win
        assert outcome(key) == (winner, scores, _)


def test_greedy_beats_random() -> None:
    spec = BattleSpec()
    wins = sum(
        play_battle(spec, key, (GreedyBattleAgent(key), RandomBattleAgent(key))).winner == 0 for key in range(10)
    )
    assert wins >= 9


def test_the_agents_play_through_the_pettingzoo_env() -> None:
    pytest.importorskip("pettingzoo")
    from mine_env import battle

    game_env = battle.env(rows=8, cols=8, mines=11)
    game_env.reset(seed=3)
    players = {"player_0": ContestBattleAgent(0), "player_1": GreedyBattleAgent(1)}
    for agent in game_env.agent_iter():
        obs, _, terminated, truncated, info = game_env.last()
        game_env.step(None if terminated or truncated else players[agent].act(obs, info))
    assert max(game_env.unwrapped.game.scores) == 6


def test_bad_input_is_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="unknown battle agent 'smart'"):
        make_battle_agent("smart")
    with pytest.raises(ValueError, match="candidates must be a positive integer"):
        ContestBattleAgent(0, candidates=0)
    done = {"observation": ROW, "action_mask": np.zeros(4, np.int8)}
    with pytest.raises(ValueError, match="no valid reveal"):
        GreedyBattleAgent(0).act(done, ROW_INFO)

"""The battle agents: valid moves, the formulas on positions worked by hand, whole games, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from battle.players import (
    BOMB_MARGIN,
    ContestBattleAgent,
    GreedyBattleAgent,
    LookaheadBattleAgent,
    RandomBattleAgent,
    bomb_expectations,
    make_battle_agent,
    play_battle,
    seat_observation,
)
from battle.players.agents import position_analysis
from battle.players.values import (
    TIE_TOLERANCE,
    best_chance,
    contest_bound,
    contest_value,
    contest_values,
    expand,
    flooded_chance,
    likeliest,
)
from battle.rules import BattleGame, BattleSpec
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


@pytest.mark.parametrize("name", ["random", "greedy", "contest", "lookahead"])
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
    impossible = np.array([[HIDDEN, 3, HIDDEN]], dtype=np.int8)  # a 3 with two hidden neighbours
    for name in ("greedy", "contest", "lookahead"):
        with pytest.raises(ValueError, match=r"the 3 at \(0, 1\) cannot be satisfied"):
            make_battle_agent(name, 0).act(position(impossible), {"mines": 2})
    with pytest.raises(ValueError, match="total mine count does not fit"):
        ContestBattleAgent(0).act(position(ROW), {"mines": 3})
    done = {"observation": ROW, "action_mask": np.zeros(4, np.int8)}
    with pytest.raises(ValueError, match="no valid reveal"):
        GreedyBattleAgent(0).act(done, ROW_INFO)


def test_the_lookahead_value_is_worked_by_hand() -> None:
    analysis = position_analysis(position(ROW), ROW_INFO)
    agent = LookaheadBattleAgent(0)
    # Cell 0: a mine half the time, after which nothing is left (V2 = 0); safe, it shows 0 and the opponent's
    # contest value is the certain mine at cell 2 (V2 = 1): Q3 = 0.5 * (1 + 0) - 0.5 * 1 = 0.
    assert agent.q3(expand(analysis, 0)) == pytest.approx(0.0)
    # Cell 3: never a mine; either number it shows pins the mine for the opponent (V2 = 1): Q3 = -1.
    assert agent.q3(expand(analysis, 3)) == pytest.approx(-1.0)
    assert {LookaheadBattleAgent(seed).act(position(ROW), ROW_INFO) for seed in range(10)} <= {0, 2}


def test_the_contest_value_of_an_expansion_is_the_contest_score_and_q3_stays_in_range() -> None:
    # Two mines in ? 1 ? ? ? 1 ?: Q3 is a difference of expected mines over three clicks, so within [-2, 2].
    view = np.array([[HIDDEN, 1, HIDDEN, HIDDEN, HIDDEN, 1, HIDDEN]], dtype=np.int8)
    analysis = position_analysis(position(view), {"mines": 2})
    for cell in np.flatnonzero(view.ravel() == HIDDEN):
        expansion = expand(analysis, int(cell))
        assert -2.0 <= LookaheadBattleAgent(0).q3(expansion) <= 2.0
        assert contest_value(expansion) == pytest.approx(ContestBattleAgent.score(analysis, int(cell)))


@pytest.mark.parametrize(("name", "value"), [("candidates", 0), ("deepen", True), ("inner", 1.5)])
def test_the_lookahead_refuses_bad_settings(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"{name} must be a positive integer"):
        LookaheadBattleAgent(0, **{name: value})
    with pytest.raises(ValueError, match="min_share must be between 0 and 1"):
        LookaheadBattleAgent(0, min_share=1.5)


# A 5x6 board whose 25 hidden cells (columns 0..4) are all mines: the bomb claims 25 where a click claims one.
BOMB_VIEW = np.array([[HIDDEN] * 5 + [value] for value in (2, 3, 3, 3, 2)], dtype=np.int8)


def bomb_position(view: np.ndarray, bomb_allowed: bool) -> dict[str, np.ndarray]:
    reveals = (view == HIDDEN).ravel().astype(np.int8)
    bombs = np.full(view.size, int(bomb_allowed), dtype=np.int8)
    return {"observation": view, "action_mask": np.concatenate([reveals, bombs])}


@pytest.mark.parametrize("name", ["greedy", "contest", "lookahead"])
def test_the_agents_bomb_the_area_with_the_most_expected_mines(name: str) -> None:
    n = BOMB_VIEW.size
    action = make_battle_agent(name, 0).act(bomb_position(BOMB_VIEW, True), {"mines": 25})
    if name == "greedy":  # greedy has no certain-mine rule: the bomb (25 expected) beats a click (1)
        assert action - n in {r * 6 + c for r in range(5) for c in range(3)}  # areas shifted onto columns 0..4
    else:  # a certain mine is free (it keeps the turn), so it comes before the bomb
        assert action < n
    assert make_battle_agent(name, 0).act(bomb_position(BOMB_VIEW, False), {"mines": 25}) < n


def test_no_bomb_when_it_does_not_beat_a_click_by_the_margin() -> None:
    # ? 1 ? ?, one mine: any bomb expects 1 mine, the best click 0.5, short of 0.5 + BOMB_MARGIN.
    assert GreedyBattleAgent(0).act(bomb_position(ROW, True), ROW_INFO) in (0, 2)
    expected = bomb_expectations(position_analysis(position(ROW), ROW_INFO), BattleSpec(1, 4, 1, bomb=True))
    assert expected.tolist() == pytest.approx([1.0] * 4) and BOMB_MARGIN == 2.0


def test_the_agents_use_the_bomb_in_whole_games() -> None:
    spec = BattleSpec(16, 16, 51, bomb=True)
    bombed = 0
    for key in range(4):
        game = play_battle(spec, key, (make_battle_agent("contest", key), make_battle_agent("greedy", key)))
        assert game.is_over
        bombed += sum(game.bomb_used)
    assert bombed >= 1


def test_the_flood_of_a_zero_counts_what_it_opens() -> None:
    # ? ? ? ?, one mine. If cell 0 shows 0, cell 1 is safe and the mine is at 2 or 3 (m = 0.5); but the flood
    # opens cell 1 at once, whose number (1 or 0) says which: the opponent then has a certain mine.
    empty = np.full((1, 4), HIDDEN, dtype=np.int8)
    analysis = position_analysis(position(empty), ROW_INFO)
    zero_share, after_zero = next((share, o) for v, share, o in expand(analysis, 0).safe if v == 0)
    assert zero_share == pytest.approx(0.5) and best_chance(after_zero) == pytest.approx(0.5)
    assert flooded_chance(after_zero, (0, 0)) == pytest.approx(1.0)
    # So the contest's E' of cell 0 is 0.5 * 1 (zero, flooded) + 0.25 * 1 (shows 1: the mine is at 1): 0.75.
    assert ContestBattleAgent.score(analysis, 0) == pytest.approx(0.25 - 0.75)


@pytest.mark.parametrize("key", [1, 2, 3])
def test_the_contest_values_skip_only_flood_fills_that_cannot_change_a_choice(key: int) -> None:
    """Early 16x16 positions (zeros likely): the bound is never below the value, and the values computed only where
    they can matter rank and tie exactly as the exact ones."""
    game = BattleGame(BattleSpec(), key)
    players = (GreedyBattleAgent(key), GreedyBattleAgent(key + 1))
    for _ in range(4):
        game.play(players[game.mover].act(*seat_observation(game, game.mover)))
    analysis = position_analysis(*seat_observation(game, game.mover))
    hidden = np.flatnonzero(analysis.hidden.ravel())
    expansions = [expand(analysis, int(cell)) for cell in likeliest(analysis, hidden, 8)]
    exact = np.array([contest_value(e) for e in expansions])
    assert (np.array([contest_bound(e) for e in expansions]) >= exact).all()
    for rank in (1, 2, 3):
        top = np.argsort(-exact, kind="stable")[:rank]
        pruned = contest_values(expansions, rank, 0.0)
        assert np.array_equal(np.argsort(-pruned, kind="stable")[:rank], top)
        assert np.array_equal(pruned[top], exact[top])
    pruned = contest_values(expansions, 1, TIE_TOLERANCE)
    assert np.array_equal(pruned >= pruned.max() - TIE_TOLERANCE, exact >= exact.max() - TIE_TOLERANCE)

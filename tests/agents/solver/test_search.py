"""Play-outs in compiled code against the plain version, and ``solver-search``: its race, and the solver's games kept
wherever it agrees with the solver."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.guess_value import GuessValueAgent
from agents.registry import make_agent
from agents.solver import SolverAgent
from agents.solver.guess import PRESETS
from agents.solver.outlook import forced_fifty_fifty
from agents.solver.playouts import play_outs, race_candidates, reference_play_outs
from agents.solver.posterior import PosteriorSampler
from agents.solver.search import SearchAgent, SearchSettings
from eval.runner import GamePlayer, resolve_agents
from eval.suites import Suite
from mine_env.analysis.probability import analyse
from mine_env.engine.constants import PRESETS as BOARDS
from mine_env.env import MinesweeperEnv


def guess_positions(preset: str, count: int, seed: int) -> list[tuple[np.ndarray, int, int]]:
    """(grid, mines, the solver's guess) at the first ``count`` true guesses of the solver's games on ``preset``."""
    rows, cols, mines = BOARDS[preset]
    env = MinesweeperEnv(rows=rows, cols=cols, mines=mines, first_click="opening")
    found: list[tuple[np.ndarray, int, int]] = []
    game = 0
    while len(found) < count:
        agent = SolverAgent(seed=game)
        obs, info = env.reset(seed=seed + game)
        done, first = False, True
        while not done:
            action = agent.act(obs, info)
            if not first and not analyse(obs, mines).certain_safe.any():
                found.append((obs.copy(), mines, int(action)))
            obs, _, terminated, truncated, info = env.step(action)
            done, first = terminated or truncated, False
        game += 1
    return found[:count]


@pytest.fixture(scope="module")
def positions() -> list[tuple[np.ndarray, int, int]]:
    return guess_positions("intermediate", 3, seed=40)


@pytest.mark.parametrize("player", ["fast", "guess-value"])
def test_compiled_play_outs_win_exactly_where_the_plain_ones_do(positions: list[Any], player: str) -> None:
    head = GuessValueAgent().head.layers() if player == "guess-value" else None
    rng = np.random.default_rng(5)
    for grid, mines, cell in positions:
        layouts = PosteriorSampler(grid, mines).samples(rng, 40)
        for candidate in {cell, int(np.flatnonzero(grid.ravel() < 0)[0])}:  # the guess, and some hidden cell
            fast, fast_state = play_outs(grid, mines, layouts, candidate, PRESETS["fast"], np.uint64(3), head)
            plain, plain_state = reference_play_outs(grid, mines, layouts, candidate, PRESETS["fast"], np.uint64(3),
                                                     head)  # fmt: skip
            assert np.array_equal(fast, plain) and int(fast_state) == int(plain_state)


def test_a_play_out_needs_a_revealed_cell() -> None:
    grid = np.full((3, 3), -1, np.int8)
    with pytest.raises(ValueError, match="revealed cell"):
        play_outs(grid, 1, np.zeros((1, 9), np.uint8), 0, PRESETS["fast"], np.uint64(0))


def test_the_race_drops_a_candidate_far_behind(positions: list[Any]) -> None:
    grid, mines, cell = positions[0]
    sampler = PosteriorSampler(grid, mines)
    probability = analyse(grid, mines).probabilities.ravel()
    worst = int(np.argmax(np.where(grid.ravel() < 0, probability, -1)))  # the likeliest mine: soon out
    wins = race_candidates(grid, mines, sampler, [cell, worst], 400, 50, 2.0, PRESETS["fast"], np.uint64(1),
                           np.random.default_rng(2))  # fmt: skip
    assert 50 <= wins[1].size < 400 and wins[0].size >= wins[1].size  # out early; alone, the leader stops too
    assert wins[1].mean() < wins[0][: wins[1].size].mean()
    full = race_candidates(grid, mines, sampler, [cell, worst], 200, 50, 0.0, PRESETS["fast"], np.uint64(1),
                           np.random.default_rng(2))  # fmt: skip
    assert [won.size for won in full] == [200, 200]  # no race: every candidate on every layout


def test_the_search_plays_the_best_share_won_and_the_solvers_pick_on_a_tie(monkeypatch: pytest.MonkeyPatch) -> None:
    agent = SearchAgent(seed=0)
    grid = np.full((4, 4), -1, np.int8)
    grid[0, 0] = 1

    def fake_race(*args: Any, **kwargs: Any) -> list[np.ndarray]:
        return [np.array(won, np.bool_) for won in outcomes]

    monkeypatch.setattr("agents.solver.search.race_candidates", fake_race)
    outcomes = [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1]]  # the third left the race early: not a winner
    assert agent._race(grid, 3, [5, 6, 7], chosen=5) == 6
    outcomes = [[1, 1, 0, 0], [1, 1, 0, 0]]
    assert agent._race(grid, 3, [5, 6], chosen=6) == 6
    assert agent.counts.searched == 2 and agent.counts.playouts == 4 + 4 + 3 + 4 + 4


BAD_SETTINGS = [({"layouts": 0}, "layouts"), ({"batch": 0}, "batch"), ({"race": -1.0}, "race"),
                ({"player": "strong"}, "play-out")]  # fmt: skip


@pytest.mark.parametrize(("options", "message"), BAD_SETTINGS)
def test_bad_search_settings_are_refused_in_one_line(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchSettings(**options)


def test_where_the_search_agrees_the_games_are_the_solvers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SearchAgent, "_race", lambda self, grid, mines, cells, chosen: chosen)
    rows, cols, mines = BOARDS["intermediate"]
    suite = Suite(name="t", rows=rows, cols=cols, mines=mines, first_click="opening", games=6, base_seed=21)
    solver, search = (GamePlayer(suite, resolve_agents([name], suite.spec()), oracle=False).play_games(0, range(6))
                      for name in ("solver", "solver-search"))  # fmt: skip
    assert [(r.won, r.steps, r.safe_revealed) for r in solver] == [(r.won, r.steps, r.safe_revealed) for r in search]


def test_a_forced_fifty_fifty_is_guessed_first_without_a_search(monkeypatch: pytest.MonkeyPatch) -> None:
    raced: list[np.ndarray] = []

    def no_race(self: SearchAgent, grid: np.ndarray, mines: int, cells: list[int], chosen: int) -> int:
        raced.append(grid.copy())
        return chosen

    monkeypatch.setattr(SearchAgent, "_race", no_race)
    rows, cols, mines = BOARDS["expert"]
    env = MinesweeperEnv(rows=rows, cols=cols, mines=mines, first_click="opening")
    agent = SearchAgent(seed=3)
    obs, info = env.reset(seed=503)  # the solver's game meets a forced 50/50 with ~1e10 layouts left
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        done = terminated or truncated
    assert agent.counts.forced_pairs >= 1 and raced
    for grid in raced:
        probability = np.ascontiguousarray(analyse(grid, mines).probabilities.ravel(), np.float64)
        assert forced_fifty_fifty(grid.ravel(), rows, cols, probability) < 0


@pytest.mark.parametrize("player", ["fast", "guess-value"])
def test_the_search_plays_whole_games_by_its_name(player: str) -> None:
    agent = make_agent("solver-search", seed=3)
    assert isinstance(agent, SearchAgent) and not agent.plays_compiled_games()
    agent.search = SearchSettings(layouts=200, race=2.0, batch=50, player=player)
    env = MinesweeperEnv(rows=16, cols=16, mines=40, first_click="opening")
    for game in range(4):
        obs, info = env.reset(seed=300 + game)
        agent.reset()
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            done = terminated or truncated
    counts = agent.counts
    assert counts.guesses >= counts.searched > 0 and counts.playouts > 0
    assert counts.changed == len(counts.changes)

"""The guesses' Monte-Carlo returns: positions that truly need a guess, candidates near the safest with
solver-fast's pick among them, returns that are the outcome of the game played on from each, and a head that
learns from them."""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from agents.solver import first_click_cell, initial_state
from mine_env.analysis.guess import certain_moves, choose_guess
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import RULE_CODES
from mine_env.engine.rules import PLAYING, game_status, new_game_arrays, open_game_on, reveal_cell
from mine_env.engine.spec import BoardSpec
from train.distill.guess_returns import (
    FAST_SETTINGS,
    NO_CANDIDATE,
    GuessReturns,
    _play_out,
    pick_returns,
    rollout_guesses,
)

BEGINNER = BoardSpec(9, 9, 10, "opening")


@pytest.fixture(scope="module")
def rollouts() -> GuessReturns:
    return rollout_guesses(BEGINNER, 300, seed=7)


def test_the_same_seed_gives_the_same_rollouts(rollouts: GuessReturns) -> None:
    again = rollout_guesses(BEGINNER, 300, seed=7)
    for field, other in zip(rollouts, again, strict=True):
        np.testing.assert_array_equal(field, other)
    assert len(rollouts.grids) > 20


def test_candidates_are_the_nearly_safest_hidden_cells_with_solver_fasts_pick(rollouts: GuessReturns) -> None:
    rows, cols = rollouts.grids.shape[1:]
    for grid, row, safety, returns, fast in zip(*rollouts, strict=True):
        flat = grid.ravel()
        cells, consistent, probability, _ = certain_moves(flat, rows, cols, BEGINNER.mines)
        assert consistent and cells.size == 0  # a true guess
        tried = row[row != NO_CANDIDATE].astype(np.int64)
        assert len(set(tried)) == len(tried) >= 1 and (flat[tried] == HIDDEN).all()
        np.testing.assert_allclose(safety[: len(tried)], 1.0 - probability[tried], atol=1e-6)
        assert (np.diff(safety[: len(tried)]) <= 1e-9).all()  # safest first
        best = 1.0 - probability[flat == HIDDEN].min()
        assert (safety[: len(tried)] >= 0.9 * best - 1e-9).all()
        assert set(np.unique(returns)) <= {0.0, 1.0} and not returns[len(tried):].any()
        assert 0 <= fast < len(tried)


def test_solver_fasts_pick_is_the_one_it_plays() -> None:
    """Replaying a game's main line by hand meets its first recorded guess position, and solver-fast's pick there
    is the recorded one."""
    rows, cols, n = BEGINNER.rows, BEGINNER.cols, BEGINNER.rows * BEGINNER.cols
    seed = next(seed for seed in range(100) if len(rollout_guesses(BEGINNER, 1, seed=seed).grids))
    recorded = rollout_guesses(BEGINNER, 1, seed=seed)
    rng = np.random.default_rng(seed)
    r, c = first_click_cell(rows, cols, BEGINNER.first_click)
    state = np.uint64(initial_state(int(rng.integers(2**63))))
    key = int(rng.integers(2**62, size=1)[0])
    game = new_game_arrays(n)
    open_game_on(game, rows, cols, BEGINNER.mines, RULE_CODES["opening"], key, r * cols + c, np.empty(0, np.uint8))
    seen = 0
    while game_status(game.meta) == PLAYING:
        cells, _, probability, log_layouts = certain_moves(game.obs, rows, cols, BEGINNER.mines)
        if cells.size == 0:
            np.testing.assert_array_equal(game.obs.reshape(rows, cols), recorded.grids[seen])
            pick, _ = choose_guess(game.obs, rows, cols, BEGINNER.mines, probability, log_layouts, FAST_SETTINGS,
                                   state)  # fmt: skip
            seen += 1
            break
        for cell in cells:
            if game.obs[cell] == HIDDEN and game_status(game.meta) == PLAYING:
                reveal_cell(game, rows, cols, int(cell))
    assert seen == 1
    assert recorded.candidates[0, recorded.fast[0]] == pick


def test_a_mine_candidate_loses_and_the_game_itself_is_untouched() -> None:
    rows, cols, n = BEGINNER.rows, BEGINNER.cols, BEGINNER.rows * BEGINNER.cols
    game = new_game_arrays(n)
    for key in range(200):
        open_game_on(game, rows, cols, BEGINNER.mines, RULE_CODES["opening"], key, 40, np.empty(0, np.uint8))
        if (game.obs == HIDDEN).sum() > BEGINNER.mines:
            break
    before = game.obs.copy()
    state = np.uint64(initial_state(1))
    for cell in np.flatnonzero(game.obs == HIDDEN):
        won, _ = _play_out(game, rows, cols, BEGINNER.mines, int(cell), state)
        if game.mines[cell]:
            assert not won
        np.testing.assert_array_equal(game.obs, before)
    assert game_status(game.meta) == PLAYING


def test_pick_returns_judges_a_pick_by_its_candidates_return() -> None:
    grids = np.full((2, 1, 4), HIDDEN, np.int8)
    candidates = np.array([[0, 1, NO_CANDIDATE], [2, 3, 1]], np.int16)
    returns = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)
    positions = GuessReturns(grids, candidates, np.ones((2, 3), np.float32), returns, np.array([0, 1], np.int16))
    scores = np.array([[0.0, 5.0, 0.0, 0.0], [9.0, 0.0, 0.0, 0.0]])  # picks: candidate 1 (won), cell 0 (not tried)
    report = pick_returns(scores, positions)
    assert report == pytest.approx({"pick_return": 1.0, "fast_return": 0.0, "best_return": 1.0, "outside_share": 0.5})
    mask, planes = positions.as_planes()
    np.testing.assert_array_equal(mask, [[True, True, False, False], [False, True, True, True]])
    np.testing.assert_array_equal(planes, [[0, 1, 0, 0], [0, 0, 1, 0]])


def test_bad_rollout_settings_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="games must be 0 or more"):
        rollout_guesses(BEGINNER, -1, seed=0)
    with pytest.raises(ValueError, match="margin in"):
        rollout_guesses(BEGINNER, 1, seed=0, margin=1.0)


@pytest.mark.train
def test_the_head_learns_the_winning_candidates_and_a_run_logs_their_returns(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    import torch as th

    from train.distill import guess_preference
    from train.distill.config import DistillConfig
    from train.distill.network import new_model, play_scores
    from train.sb3.evaluation import save_model

    th.set_num_threads(1)
    distilled = tmp_path / "model.zip"
    network = DistillConfig(rows=9, cols=9, mines=10, channels=8, dilations="1,2,1", seed=5)
    save_model(new_model(network, BEGINNER), distilled, "distill", network)
    settings = {"rows": 9, "cols": 9, "mines": 10, "model": str(distilled), "games": 300, "held_out_games": 100,
                "samples": 300 * 64, "batch_size": 64, "report_every": 300 * 64, "learning_rate": 3e-3,
                "bound": 2.0, "target": "returns", "runs_dir": str(tmp_path), "run_name": "run"}  # fmt: skip
    config = guess_preference.GuessPreferenceConfig(**settings)
    model = guess_preference.with_preference(str(distilled), BEGINNER, bound=2.0, seed=0)
    positions = rollout_guesses(BEGINNER, 300, seed=0)
    targets = guess_preference.return_targets(positions)
    assert 0 < len(targets.grids) < len(positions.grids)  # rows whose candidates all won or all lost are left out
    np.testing.assert_allclose(targets.weights.sum(axis=1), 1.0, rtol=1e-6)
    trainer = guess_preference.PreferenceTrainer(config, model.policy)
    before = pick_returns(play_scores(model.policy)(positions.grids), positions)["pick_return"]
    losses = [trainer.step(targets) for _ in range(trainer.steps)]
    after = pick_returns(play_scores(model.policy)(positions.grids), positions)["pick_return"]
    assert np.mean(losses[-30:]) < np.mean(losses[:30])
    assert after > before + 0.05  # on its own positions it picks the candidates that won

    run_dir = guess_preference.run(dataclasses.replace(config, samples=128, batch_size=32, report_every=64))
    with (run_dir / "progress.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [int(row["samples"]) for row in rows] == [0, 64, 128]
    assert all(0 <= float(row["pick_return"]) <= float(row["best_return"]) <= 1 for row in rows)
    assert (run_dir / "final_model.zip").exists()

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
from agents.solver.guess import choose_guess
from agents.solver.outlook import look_ahead
from mine_env.analysis.deduction import certain_moves
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import RULE_CODES
from mine_env.engine.rules import PLAYING, game_status, new_game_arrays, open_game_on, reveal_cell
from mine_env.engine.spec import BoardSpec
from train.distill.guess.returns import (
    FAST_SETTINGS,
    NO_CANDIDATE,
    GuessReturns,
    _play_out,
    _progress,
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
    for grid, row, safety, returns, fast, safe, scalars in zip(*rollouts, strict=True):
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
        assert not safe[len(tried) :].any() and not returns[~safe].any()  # a mine candidate's game is lost
        assert scalars.shape == (len(row), 0)  # solver-fast's ties carry nothing of the solver's


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
        won, _ = _play_out(game, rows, cols, BEGINNER.mines, int(cell), state, FAST_SETTINGS)
        if game.mines[cell]:
            assert not won
        np.testing.assert_array_equal(game.obs, before)
    assert game_status(game.meta) == PLAYING


def test_a_progress_return_is_a_safe_reveal_that_makes_progress() -> None:
    """One reveal ahead: a mine gives 0; a zero (its neighbours open) or a win 1; otherwise 1 exactly when the
    position after the reveal has a certainly safe cell. The game itself is untouched."""
    rows, cols, n = BEGINNER.rows, BEGINNER.cols, BEGINNER.rows * BEGINNER.cols
    seen = {False: 0, True: 0}
    for key in range(30):
        game = new_game_arrays(n)
        open_game_on(game, rows, cols, BEGINNER.mines, RULE_CODES["opening"], key, 40, np.empty(0, np.uint8))
        before = game.obs.copy()
        for cell in np.flatnonzero(game.obs == HIDDEN):
            progress = bool(_progress(game, rows, cols, BEGINNER.mines, int(cell)))
            copy = new_game_arrays(n)
            open_game_on(copy, rows, cols, BEGINNER.mines, RULE_CODES["opening"], key, 40, np.empty(0, np.uint8))
            reveal_cell(copy, rows, cols, int(cell))
            if game.mines[cell]:
                expected = False
            elif game_status(copy.meta) != PLAYING or copy.obs[cell] == 0:
                expected = True
            else:
                expected = certain_moves(copy.obs, rows, cols, BEGINNER.mines)[0].size > 0
            assert progress == expected
            seen[progress] += 1
            np.testing.assert_array_equal(game.obs, before)
    assert seen[False] > 50 and seen[True] > 50


def test_progress_returns_sample_the_solvers_exact_chance_of_progress() -> None:
    """The layout is a draw from the position's posterior, so a candidate's progress return averages to the
    chance the solver's look-ahead computes exactly (plus, where the cell is the last safe one, its win)."""
    progress = rollout_guesses(BEGINNER, 2000, seed=3, horizon="progress")
    rows, cols = BEGINNER.rows, BEGINNER.cols
    sampled, exact = [], []
    for grid, row, returns in zip(progress.grids, progress.candidates, progress.returns, strict=True):
        flat = grid.ravel()
        probability = certain_moves(flat, rows, cols, BEGINNER.mines)[2]
        last_safe = (flat == HIDDEN).sum() == BEGINNER.mines + 1
        for j, cell in enumerate(row[row != NO_CANDIDATE].astype(np.int64)):
            chance = look_ahead(flat, rows, cols, BEGINNER.mines, cell, probability[cell]).progress
            exact.append(1.0 - probability[cell] if last_safe else chance)
            sampled.append(returns[j])
    assert len(sampled) > 1000, len(sampled)
    error = np.mean(sampled) - np.mean(exact)
    assert abs(error) < 4 * np.std(sampled) / np.sqrt(len(sampled)), error
    with pytest.raises(ValueError, match="unknown horizon"):
        rollout_guesses(BEGINNER, 1, seed=0, horizon="forever")


def test_pick_returns_judges_a_pick_by_its_candidates_return() -> None:
    grids = np.full((2, 1, 4), HIDDEN, np.int8)
    candidates = np.array([[0, 1, NO_CANDIDATE], [2, 3, 1]], np.int16)
    returns = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)
    positions = GuessReturns(grids, candidates, np.ones((2, 3), np.float32), returns, np.array([0, 1], np.int16),
                             np.ones((2, 3), np.bool_), np.zeros((2, 3, 0), np.float32))
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
    import torch as th

    from train.distill.guess import preference as guess_preference
    from train.distill.network import play_scores
    from train.distill.rounds.config import DistillConfig
    from train.distill.rounds.run import new_distilled
    from train.distill.saved import save_distilled

    th.set_num_threads(1)
    distilled = tmp_path / "model"
    network = DistillConfig(rows=9, cols=9, mines=10, channels=8, dilations="1,2,1", seed=3)
    save_distilled(new_distilled(network, BEGINNER), distilled, BEGINNER, network, 0)
    settings = {"rows": 9, "cols": 9, "mines": 10, "model": str(distilled), "games": 300, "held_out_games": 100,
                "samples": 300 * 64, "batch_size": 64, "report_every": 300 * 64, "learning_rate": 3e-3,
                "bound": 2.0, "target": "returns", "runs_dir": str(tmp_path), "run_name": "run"}  # fmt: skip
    config = guess_preference.GuessPreferenceConfig(**settings)
    model = guess_preference.with_preference(str(distilled), BEGINNER, bound=2.0, seed=0)
    positions = rollout_guesses(BEGINNER, 300, seed=0)
    targets = guess_preference.return_targets(positions)
    assert 0 < len(targets.grids) < len(positions.grids)  # rows whose candidates all won or all lost are left out
    np.testing.assert_allclose(targets.weights.sum(axis=1), 1.0, rtol=1e-6)
    trainer = guess_preference.PreferenceTrainer(config, model)
    before = pick_returns(play_scores(model)(positions.grids), positions)["pick_return"]
    losses = [trainer.step(targets) for _ in range(trainer.steps)]
    after = pick_returns(play_scores(model)(positions.grids), positions)["pick_return"]
    assert np.mean(losses[-30:]) < np.mean(losses[:30])
    assert after > before + 0.05  # on its own positions it picks the candidates that won

    run_dir = guess_preference.run(dataclasses.replace(config, samples=128, batch_size=32, report_every=64))
    with (run_dir / "progress.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [int(row["samples"]) for row in rows] == [0, 64, 128]
    assert all(0 <= float(row["pick_return"]) <= float(row["best_return"]) <= 1 for row in rows)
    assert (run_dir / "final_model.pt").exists()


@pytest.mark.train
def test_the_progress_target_trains_on_one_reveal_returns(tmp_path: Path) -> None:
    """``--target progress`` gives the head the progress rollouts of its games, and held-out positions judged by
    the same returns."""
    pytest.importorskip("torch")
    from train.distill.guess import preference as guess_preference

    config = guess_preference.GuessPreferenceConfig(rows=9, cols=9, mines=10, model="unused.zip", games=200,
                                                    held_out_games=100, target="progress", seed=4)  # fmt: skip
    targets, held_out = guess_preference.training_positions(config, BEGINNER)
    expected = guess_preference.return_targets(rollout_guesses(BEGINNER, 200, seed=4, horizon="progress"))
    np.testing.assert_array_equal(targets.grids, expected.grids)
    np.testing.assert_array_equal(targets.weights, expected.weights)
    assert isinstance(held_out, GuessReturns) and len(held_out.grids) > 0

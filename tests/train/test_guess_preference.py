"""The guess-preference head: it starts as a no-op, stays within its bound, never touches the chances, learns
the solver's guesses from its games, and saves as a model the rest of the toolkit plays and loads."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch as th

from agents.networks.player import load_model_agent
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from mine_env.engine.symmetry import SYMMETRIES
from train.distill import guess_preference
from train.distill.config import DistillConfig
from train.distill.guesses import GuessPositions, guess_report, harvest_guesses
from train.distill.network import learner_scores, new_model, play_scores, start_from
from train.sb3.evaluation import save_model
from train.sb3.networks import GuessPreference
from train.sb3.warm_start import distilled_policy

pytestmark = pytest.mark.train

BEGINNER = BoardSpec(9, 9, 10, "opening")
TINY = {"rows": 9, "cols": 9, "mines": 10, "channels": 8, "dilations": "1,2,1"}
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread() -> None:
    """As a run does (--torch-threads 1): spinning OpenMP threads on a busy machine slow each step a hundredfold."""
    th.set_num_threads(1)


@pytest.fixture(scope="module")
def distilled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small distilled beginner model on disk (random weights: the head's tests need a trunk, not a good one)."""
    path = tmp_path_factory.mktemp("distilled") / "model.zip"
    config = DistillConfig(**TINY, seed=5)
    save_model(new_model(config, BEGINNER), path, "distill", config)
    return path


@pytest.fixture(scope="module")
def guesses() -> GuessPositions:
    return harvest_guesses(BEGINNER, 400, seed=21)


def config(distilled: Path, tmp_path: Path, **options: object) -> guess_preference.GuessPreferenceConfig:
    settings = {"rows": 9, "cols": 9, "mines": 10, "model": str(distilled), "games": 300, "held_out_games": 100,
                "samples": 256, "batch_size": 32, "report_every": 128, "runs_dir": str(tmp_path), "run_name": "run"}
    return guess_preference.GuessPreferenceConfig(**{**settings, **options})  # fmt: skip


def test_a_new_head_plays_as_the_model_did_and_never_changes_the_chances(distilled: Path, guesses) -> None:
    model = guess_preference.with_preference(str(distilled), BEGINNER, bound=0.4, seed=0)
    before = learner_scores(distilled_policy(distilled, BEGINNER.mines))(guesses.grids)
    np.testing.assert_allclose(play_scores(model.policy)(guesses.grids), before, atol=1e-5)
    head = model.policy.mlp_extractor.preference
    with th.no_grad():
        for parameter in head.parameters():
            parameter.normal_(0.0, 5.0)
    played = play_scores(model.policy)(guesses.grids)
    np.testing.assert_allclose(learner_scores(model.policy)(guesses.grids), before, atol=1e-5)
    bonus = played - before
    assert np.abs(bonus).max() <= 0.4 + 1e-5
    assert np.abs(bonus).max() > 0.3  # the trained-looking head does move the play, by up to its bound


def test_the_bound_is_checked() -> None:
    with pytest.raises(ValueError, match="bound must be above 0"):
        GuessPreference(8, 0.0)


def test_minibatch_targets_move_with_their_grids(distilled: Path, guesses, tmp_path: Path) -> None:
    """Each (grid, target) of a minibatch is a harvested position and its solver guess in one of the symmetries."""
    model = guess_preference.with_preference(str(distilled), BEGINNER, bound=0.4, seed=0)
    trainer = guess_preference.PreferenceTrainer(config(distilled, tmp_path), model.policy)
    harvested = {(grid.tobytes(), int(choice)) for grid, choice in zip(guesses.grids, guesses.choices, strict=True)}
    for _ in range(4):
        grids, allowed, weights = trainer.batch(guess_preference.solver_targets(guesses))
        np.testing.assert_array_equal(allowed.numpy(), grids.numpy().reshape(len(grids), -1) == HIDDEN)
        assert (weights.numpy().max(axis=1) == 1.0).all() and (weights.numpy().sum(axis=1) == 1.0).all()
        for grid, target in zip(grids.numpy(), weights.numpy().argmax(axis=1), strict=True):
            assert grid.flat[target] == HIDDEN
            marker = np.zeros(grid.shape, np.int8)
            marker.flat[target] = 1
            assert any((undo(grid).tobytes(), int(undo(marker).argmax())) in harvested for _, undo in SYMMETRIES)


def test_training_the_head_teaches_the_solver_guesses(distilled: Path, guesses, tmp_path: Path) -> None:
    """On its own positions, a few hundred steps of the head alone raise the share of the solver's guesses
    played, while the chances stay the trunk's."""
    model = guess_preference.with_preference(str(distilled), BEGINNER, bound=2.0, seed=0)
    settings = config(distilled, tmp_path, samples=300 * 64, batch_size=64, learning_rate=3e-3, bound=2.0)
    trainer = guess_preference.PreferenceTrainer(settings, model.policy)
    safety = learner_scores(model.policy)(guesses.grids)
    before = guess_report(play_scores(model.policy)(guesses.grids), guesses)
    targets = guess_preference.solver_targets(guesses)
    losses = [trainer.step(targets) for _ in range(trainer.steps)]
    after = guess_report(play_scores(model.policy)(guesses.grids), guesses)
    assert np.mean(losses[-30:]) < np.mean(losses[:30])
    assert after["solver_agree"] > before["solver_agree"] + 0.1
    np.testing.assert_allclose(learner_scores(model.policy)(guesses.grids), safety, atol=1e-5)


def test_guess_report_counts_agreement_safest_cells_and_excess_risk() -> None:
    grids = np.full((2, 1, 3), HIDDEN, np.int8)
    grids[1, 0, 2] = 1
    labels = np.array([[0.2, 0.5, 0.2], [0.3, 0.6, 0.0]], np.float32)
    positions = GuessPositions(grids, np.array([2, 1], np.int16), labels)
    scores = np.array([[0.0, 1.0, 0.5], [2.0, 1.0, 9.0]])  # moves: 1 (excess 0.3) and 0 (revealed 2 masked)
    report = guess_report(scores, positions)
    assert report == pytest.approx({"solver_agree": 0.0, "safest_share": 0.5, "excess_risk": 0.15})
    assert guess_report(positions.choices_as_scores(), positions)["solver_agree"] == 1.0
    options = np.array([[False, True, True], [True, True, False]])  # both moves among the solver's options
    with_options = guess_report(scores, positions._replace(options=options))
    assert with_options == pytest.approx({**report, "solver_options": 1.0})


def test_a_run_logs_and_saves_a_model_that_eval_plays_and_distill_loads(distilled: Path, tmp_path: Path) -> None:
    run_dir = guess_preference.run(config(distilled, tmp_path))
    with (run_dir / "progress.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [int(row["samples"]) for row in rows] == [0, 128, 256]
    assert all(0 <= float(row["solver_agree"]) <= 1 and float(row["excess_risk"]) >= 0 for row in rows)
    saved = run_dir / "final_model.zip"
    policy = distilled_policy(saved, BEGINNER.mines)
    assert policy.mlp_extractor.preference is not None and policy.mlp_extractor.preference.bound == 0.4
    agent = load_model_agent(saved, BEGINNER)
    grid = np.full((9, 9), HIDDEN, np.int8)
    scores = play_scores(policy)(grid[None])[0]
    assert agent.act(grid, {"action_mask": np.ones(81, np.int8), "mines": 10}) == int(scores.argmax())
    grown = new_model(DistillConfig(**TINY), BEGINNER).policy
    start_from(grown, str(saved), BEGINNER.mines)  # --init: the trunk loads, the head stays behind
    np.testing.assert_allclose(learner_scores(grown)(grid[None]), learner_scores(policy)(grid[None]),
                               atol=1e-5)  # fmt: skip


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"model": ""}, "--model is required"),
        ({"bound": 0.0}, "bound must be above 0"),
        ({"games": 0}, "games must be at least 1"),
        ({"target": "mines"}, "unknown target 'mines'"),
        ({"target": "returns", "margin": 1.0}, r"margin must be in \[0, 1\)"),
        ({"target": "returns", "max_candidates": 1}, "max_candidates must be at least 2"),
        ({"model": "missing.zip"}, "missing"),
    ],
)
def test_bad_settings_are_clear_errors(distilled: Path, tmp_path: Path, options: dict, message: str) -> None:
    with pytest.raises((ValueError, FileNotFoundError), match=message):
        guess_preference.run(config(distilled, tmp_path, **options))


def test_a_model_of_another_algorithm_is_refused(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "minesweeper_cli.main", "train", "guess_preference", "--model",
         str(REPO / "models" / "dqn_beginner_opening.zip"), "--runs-dir", str(tmp_path)],
        capture_output=True, text=True, cwd=REPO, check=False,
    )  # fmt: skip
    assert completed.returncode == 2
    assert "is a dqn model, not a distilled one" in completed.stderr

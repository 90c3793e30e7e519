"""The default solver's guesses as distillation targets: harvested from its games, recorded in a dataset, kept
through disk, crops and mirror images, and taught by the choice loss (``--guess-target solver``)."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch as th

from agents.solver import initial_state
from agents.solver.guess import PRESETS, choose_guess, decide, guess_with_options
from mine_env.analysis.deduction import certain_moves
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from train.distill import rounds as distill
from train.distill.config import DistillConfig
from train.distill.data import Dataset
from train.distill.guesses import NO_CHOICE, GuessPositions, harvest_guesses, solver_choices
from train.distill.labels import label_positions
from train.distill.losses import choice_loss
from train.distill.network import guess_agreement, learner_scores, new_model
from train.distill.trainer import Trainer
from train.sb3.evaluation import save_model

pytestmark = pytest.mark.train

BEGINNER = BoardSpec(9, 9, 10, "opening")
TINY = {"rows": 9, "cols": 9, "mines": 10, "channels": 8, "dilations": "1,2,1"}


@pytest.fixture(scope="module")
def positions() -> GuessPositions:
    """The guess positions of 300 beginner games of the solver, with its guesses and options."""
    return harvest_guesses(BEGINNER, 300, seed=11)


@pytest.fixture(scope="module")
def harvest(positions: GuessPositions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The guess positions of 300 beginner games of the solver, their labels and its guesses."""
    return positions.grids, label_positions(positions.grids, BEGINNER.mines, "opening"), positions.choices


def test_harvested_positions_are_true_guesses_and_the_solver_plays_its_guess_there(harvest) -> None:
    grids, labels, choices = harvest
    assert 10 < len(grids) < 100  # about 0.1 guesses a game on beginner
    flat_grids, flat_labels = grids.reshape(len(grids), -1), labels.reshape(len(grids), -1)
    hidden = flat_grids == HIDDEN
    assert (np.where(hidden, flat_labels, 1.0) > 0).all()  # no certainly safe cell anywhere
    assert hidden[np.arange(len(grids)), choices].all()
    state = np.uint64(initial_state(0))
    for flat, label, choice in zip(flat_grids, flat_labels, choices, strict=True):
        cells, state = decide(flat, 9, 9, BEGINNER.mines, PRESETS["strong"], state)
        # the solver's own move there, but for its last tie-break (a draw between equally good cells)
        assert len(cells) == 1 and (cells[0] == choice or abs(label[cells[0]] - label[choice]) < 1e-6)
    again, again_choices, _, _ = harvest_guesses(BEGINNER, 300, seed=11)
    np.testing.assert_array_equal(again, grids)  # seeded
    np.testing.assert_array_equal(again_choices, choices)


def test_the_options_are_every_cell_the_solvers_draw_may_play(positions: GuessPositions) -> None:
    """guess_with_options plays as choose_guess from the same state, and its options hold that play; from other
    states (other draws) the plays stay within the options, and some positions do leave the solver a choice."""
    flat_grids = positions.grids.reshape(len(positions.grids), -1)
    assert (positions.options <= (flat_grids == HIDDEN)).all()
    assert positions.options[np.arange(len(flat_grids)), positions.choices].all()
    drawn_apart = 0
    for flat in flat_grids:
        _, _, probability, log_layouts = certain_moves(flat, 9, 9, BEGINNER.mines)
        plays = set()
        for seed in range(32):
            state = np.uint64(initial_state(seed))
            cell, options, after = guess_with_options(flat, 9, 9, BEGINNER.mines, probability, log_layouts,
                                                      PRESETS["strong"], state)  # fmt: skip
            assert (cell, after) == choose_guess(flat, 9, 9, BEGINNER.mines, probability, log_layouts,
                                                 PRESETS["strong"], state)  # fmt: skip
            assert options[cell]
            plays.add(int(cell))
        drawn_apart += len(plays) > 1
    assert drawn_apart > 0
    assert (positions.options.sum(axis=1) > 1).any()


def test_the_solver_does_not_always_guess_the_safest_cell(harvest) -> None:
    """What makes the target worth teaching: in some positions the solver's guess is riskier than the safest
    cell (it tells more, or it is a forced 50/50), which the safest-cell labels could never teach."""
    grids, labels, choices = harvest
    flat_labels = labels.reshape(len(grids), -1)
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    safest = np.where(hidden, flat_labels, 1.0).min(axis=1)
    riskier = flat_labels[np.arange(len(grids)), choices] > safest + 1e-3
    assert 0 < riskier.sum() < len(grids) / 2


def test_solver_choices_only_in_positions_without_a_safe_cell(harvest) -> None:
    grids, _, _ = harvest
    untouched = np.full((9, 9), HIDDEN, np.int8)
    with_safe = untouched.copy()
    with_safe[0, 0] = 0  # its neighbours are certainly safe
    recorded = solver_choices(np.stack([untouched, with_safe, *grids[:5]]), BEGINNER.mines, seed=0)
    assert recorded[:2].tolist() == [NO_CHOICE, NO_CHOICE] and (recorded[2:] >= 0).all()
    impossible = untouched.copy()
    impossible[0, 0] = 8  # a corner has three neighbours
    with pytest.raises(ValueError, match="fits no layout of 10 mines"):
        solver_choices(impossible[None], BEGINNER.mines, seed=0)


def test_a_dataset_records_the_guesses_and_keeps_them_on_disk(harvest, tmp_path: Path) -> None:
    grids, labels, choices = harvest
    dataset = Dataset(BEGINNER, grids[:10], labels[:10].astype(np.float16))
    assert (dataset.choices == NO_CHOICE).all()  # none asked for yet
    assert dataset.record_solver_choices(seed=0) == 10
    assert dataset.record_solver_choices(seed=0) == 0  # each position once
    assert hidden_at(dataset.grids, dataset.choices).all()
    dataset.extend(grids[10:12], labels[10:12], choices[10:12])
    dataset.extend(grids[12:13], labels[12:13])
    np.testing.assert_array_equal(dataset.choices[10:], [*choices[10:12], NO_CHOICE])
    again = Dataset.load(dataset.save(tmp_path / "guesses.npz"))
    np.testing.assert_array_equal(again.choices, dataset.choices)
    older = tmp_path / "older.npz"  # a dataset written before the choices were kept
    with np.load(tmp_path / "guesses.npz") as data:
        np.savez_compressed(older, grids=data["grids"], labels=data["labels"], meta=data["meta"])
    assert (Dataset.load(older).choices == NO_CHOICE).all()


def hidden_at(grids: np.ndarray, cells: np.ndarray) -> np.ndarray:
    return grids.reshape(len(grids), -1)[np.arange(len(grids)), cells.astype(np.int64)] == HIDDEN


def test_choice_loss_teaches_the_target_where_there_is_one() -> None:
    labels = th.tensor([[0.1, 0.3, 0.3, 0.9], [0.1, 0.3, 0.3, 0.9]])
    candidates = th.ones(2, 4, dtype=th.bool)
    targets = th.tensor([[False, True, False, False], [False, False, False, False]])  # row 2: no target
    on_target = th.tensor([[0.0, 9.0, 0.0, 0.0], [9.0, 0.0, 0.0, 0.0]])
    on_safest = th.tensor([[9.0, 0.0, 0.0, 0.0], [9.0, 0.0, 0.0, 0.0]])
    assert choice_loss(on_target, labels, candidates, targets) < 0.01
    assert choice_loss(on_safest, labels, candidates, targets) > 4.0
    assert choice_loss(on_safest, labels, candidates) < 0.01  # without targets: the safest cell


@pytest.mark.parametrize("augment", [False, True])
def test_minibatch_targets_move_with_their_grids(harvest, augment: bool) -> None:
    grids, labels, choices = harvest
    dataset = Dataset(BEGINNER, grids, labels.astype(np.float16))
    dataset.choices[:] = choices
    config = DistillConfig(**TINY, augment=augment, batch_size=16, guess_target="solver", choice_weight=1.0)
    trainer = Trainer(config, new_model(config, BEGINNER).policy, total_steps=1)
    for _ in range(8):
        batch = trainer.batch(dataset)
        targets = batch.targets.flatten(1)
        assert (targets.sum(dim=1) == 1).all()  # every position here has its guess
        assert (batch.grids.flatten(1)[targets] == HIDDEN).all()
        chosen = batch.labels.flatten(1)[targets].numpy()
        assert np.isin(chosen.round(3), labels.reshape(len(grids), -1)[np.arange(len(grids)), choices].round(3)).all()
    plain = Trainer(DistillConfig(**TINY, batch_size=16), trainer.policy, total_steps=1)
    assert plain.batch(dataset).targets is None  # the safest cells stay the target by default


def test_guess_target_options_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown guess_target 'oracle'"):
        DistillConfig(**TINY, guess_target="oracle", choice_weight=1.0).validate()
    with pytest.raises(ValueError, match="needs --guess-target solver"):
        DistillConfig(**TINY, solver_games=10).validate()
    with pytest.raises(ValueError, match="give --choice-weight above 0"):
        DistillConfig(**TINY, guess_target="solver").validate()
    with pytest.raises(ValueError, match="solver_games must be at least 0"):
        DistillConfig(**TINY, guess_target="solver", choice_weight=1.0, solver_games=-1).validate()


def test_a_run_adds_the_solver_guesses_to_its_dataset(tmp_path: Path) -> None:
    config = DistillConfig(**TINY, rounds=2, positions=200, boards=16, samples=64, batch_size=32,
                                   eval_games=0, label_workers=1, guess_target="solver", choice_weight=0.5,
                                   solver_games=200, runs_dir=str(tmp_path), run_name="run",
                                   save_dataset=str(tmp_path / "data.npz"), progress_bar=False)  # fmt: skip
    run_dir = distill.run(config)
    dataset = Dataset.load(tmp_path / "data.npz")
    recorded = dataset.choices != NO_CHOICE
    np.testing.assert_array_equal(np.flatnonzero(recorded), dataset.guess_positions())
    with (run_dir / "logs" / "progress.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert int(rows[-1]["solver_choices_total"]) == recorded.sum() > 10
    assert 0 <= float(rows[-1]["solver_agree"]) <= 1  # on held-out guesses of the solver's own games


def test_guess_agreement_counts_the_network_guessing_as_the_solver(harvest) -> None:
    grids, _, choices = harvest
    config = DistillConfig(**TINY)
    policy = new_model(config, BEGINNER).policy
    scores = learner_scores(policy)(grids)
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    moves = np.where(hidden, scores, -np.inf).argmax(axis=1)
    assert guess_agreement(policy, grids, moves) == 1.0
    assert guess_agreement(policy, grids, np.where(moves == choices, moves, -1)) == (moves == choices).mean()
    assert np.isnan(guess_agreement(policy, grids[:0], choices[:0]))


def test_the_agreement_benchmark_prints_each_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "studies"))
    import guess_agreement

    config = DistillConfig(**TINY, seed=3)
    save_model(new_model(config, BEGINNER), tmp_path / "model.zip", "distill", config)
    assert guess_agreement.main(["--preset", "beginner", "--games", "300", "--model", str(tmp_path / "model.zip")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "true-guess positions of 300 solver games" in lines[0]
    assert lines[1].startswith("the solver rates more than one cell as good as its guess in ")
    assert lines[2].startswith(f"{tmp_path / 'model.zip'}: plays the solver's guess ")
    assert ", one of its options " in lines[2]

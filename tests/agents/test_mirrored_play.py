"""Playing a network averaged over the board's symmetries: the averaged scores, the gate that skips them where
the network is sure, the model agent, the CLI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.networks.mirrored_play import (
    averaged_batch_scores,
    averaged_scores,
    gated_batch_scorer,
    gated_scores,
    sure_logit,
    tie_symmetric_cells,
)
from mine_env.engine.constants import HIDDEN
from mine_env.engine.symmetry import board_symmetries

MODELS = Path(__file__).resolve().parents[2] / "models"


def test_a_symmetric_scorer_is_unchanged_and_a_lopsided_one_is_evened() -> None:
    rng = np.random.default_rng(0)
    grid = rng.integers(-1, 9, size=(5, 5))

    def per_cell(batch: np.ndarray) -> np.ndarray:
        return (batch * 2.0).reshape(len(batch), -1)  # a cell's score reads only the cell: every image agrees

    np.testing.assert_allclose(averaged_scores(per_cell, grid, 8), (grid * 2.0).ravel())

    def first_row_only(batch: np.ndarray) -> np.ndarray:
        scores = np.zeros(batch.shape)
        scores[:, 0, :] = 1.0  # prefers whatever lies in the first row
        return scores.reshape(len(batch), -1)

    averaged = averaged_scores(first_row_only, grid, 4).reshape(5, 5)
    np.testing.assert_allclose(averaged[0], 0.5)  # the top row in half of the images, the bottom in the other
    np.testing.assert_allclose(averaged[4], 0.5)
    np.testing.assert_allclose(averaged[1:4], 0.0)


def test_cells_a_grids_own_symmetry_makes_equal_get_bit_equal_scores() -> None:
    rng = np.random.default_rng(1)
    untouched, scattered = np.full((1, 9, 9), HIDDEN), rng.integers(-1, 9, size=(1, 9, 9))
    lopsided = (np.indices((9, 9)).sum(axis=0) % 5).ravel().astype(float)  # a network that reads the position

    def noisy(batch: np.ndarray) -> np.ndarray:  # with the float rounding of a batch: a little noise on every image
        return lopsided[None, :] + rng.normal(0.0, 1e-6, size=(len(batch), 81))

    corners = ([2, 2, 6, 6], [2, 6, 2, 6])  # the untouched board's images of (2, 2)
    tied = averaged_batch_scores(noisy, untouched, 8).reshape(9, 9)[corners]
    assert len(set(tied.tolist())) == 1  # one score, bit for bit: an argmax picks the same corner every time
    symmetries = board_symmetries(8, 9, 9)
    plain = np.mean([inverse(noisy(forward(untouched)).reshape(1, 9, 9))[0] for forward, inverse in symmetries], axis=0)
    assert len(set(plain[corners].tolist())) > 1  # averaged alone, the noise would break the tie
    own = noisy(scattered)
    assert np.array_equal(tie_symmetric_cells(own.copy(), scattered, symmetries), own)


class RecordingScorer:
    """A lopsided scorer (it favours the first row by ``bonus``) that records the batch sizes it is asked."""

    def __init__(self, bonus: float) -> None:
        self.bonus = bonus
        self.batches: list[int] = []

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        self.batches.append(len(batch))
        scores = batch.astype(float)
        scores[:, 0, :] += self.bonus
        return scores.reshape(len(batch), -1)


def test_the_gate_asks_one_image_where_sure_and_all_of_them_elsewhere() -> None:
    grid = np.zeros((5, 5))
    valid = np.ones(25, dtype=bool)
    sure = 1e-3  # a safety logit above log(999) = 6.9
    confident = RecordingScorer(bonus=8.0)
    np.testing.assert_allclose(gated_scores(confident, grid, 4, valid, sure), confident(grid[None])[0])
    assert confident.batches == [1, 1]  # the gate's one pass, then the check's own call
    unsure = RecordingScorer(bonus=5.0)
    expected = averaged_scores(RecordingScorer(bonus=5.0), grid, 4)
    np.testing.assert_allclose(gated_scores(unsure, grid, 4, valid, sure), expected)
    assert unsure.batches == [1, 3]  # the board as it is, then the three other images in one batch
    only_lower_rows = np.arange(25) >= 5  # the confident first row is not a valid move: no longer sure
    np.testing.assert_allclose(gated_scores(RecordingScorer(bonus=8.0), grid, 4, only_lower_rows, sure),
                               averaged_scores(RecordingScorer(bonus=8.0), grid, 4))  # fmt: skip
    assert 1.0 / (1.0 + np.exp(sure_logit(0.25))) == pytest.approx(0.25)


def test_the_batched_gate_scores_each_grid_as_the_gate_of_one_grid_in_two_calls() -> None:
    sure = 1e-3
    grids = np.full((3, 5, 5), HIDDEN, dtype=np.int8)
    grids[1, 0, :] = 0  # its favoured first row is open: no hidden cell it is sure of
    grids[2, 2, 2] = 3
    valid = grids.reshape(3, -1) == HIDDEN
    expected = [gated_scores(RecordingScorer(bonus=8.0), grid, 4, mask, sure)
                for grid, mask in zip(grids, valid, strict=True)]  # fmt: skip
    scorer = RecordingScorer(bonus=8.0)
    np.testing.assert_allclose(gated_batch_scorer(scorer, 4, sure)(grids), expected)
    assert scorer.batches == [3, 3]  # every grid as it is, then the unsure one's three other images
    always = RecordingScorer(bonus=8.0)
    averaged = [averaged_scores(RecordingScorer(bonus=8.0), grid, 8) for grid in grids]
    np.testing.assert_allclose(gated_batch_scorer(always, 8)(grids), averaged)
    assert always.batches == [3, 21]  # sure 0: every grid averaged
    plain = RecordingScorer(bonus=8.0)
    assert gated_batch_scorer(plain, 1, sure) is plain


@pytest.mark.train
def test_a_model_plays_over_symmetries_in_one_batch() -> None:
    pytest.importorskip("sb3_contrib")
    from agents.networks.player import load_model_agent
    from mine_env.engine.spec import BoardSpec
    from mine_env.env import MinesweeperEnv

    path = MODELS / "distill_beginner_opening.zip"
    plain = load_model_agent(path, BoardSpec(9, 9, 10))
    mirrored = load_model_agent(path, BoardSpec(9, 9, 10), symmetries=8)
    assert mirrored.name.endswith("+sym8")
    env = MinesweeperEnv(preset="beginner")
    obs, info = env.reset(seed=4)
    obs, _, _, _, info = env.step(40)
    expected = np.mean([inverse(plain.action_scores(np.ascontiguousarray(forward(obs)), info).reshape(9, 9))
                        for forward, inverse in board_symmetries(8, 9, 9)], axis=0).ravel()  # fmt: skip
    np.testing.assert_allclose(mirrored.action_scores(obs, info), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="need a square board"):
        load_model_agent(path, BoardSpec(16, 30, 99), symmetries=8)


@pytest.mark.train
def test_eval_cli_plays_a_model_over_symmetries(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    from minesweeper_cli.main import main

    path = str(MODELS / "distill_beginner_opening.zip")
    code = main(["eval", "--model", path, "--symmetries", "1", "--symmetries", "4", "--preset", "beginner",
                 "--games", "3", "--workers", "1", "--no-progress", "--no-oracle"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "| models/distill_beginner_opening+sym4 |" in out and "| models/distill_beginner_opening |" in out
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "--agent", "random", "--symmetries", "4", "--preset", "beginner", "--games", "1"])
    assert exit_info.value.code == 2
    assert "--symmetries applies to --model" in capsys.readouterr().err
    code = main(["eval", "--model", path, "--symmetries", "4", "--sure", "1e-5", "--preset", "beginner",
                 "--games", "2", "--workers", "1", "--no-progress", "--no-oracle"])  # fmt: skip
    assert code == 0 and "| models/distill_beginner_opening+sym4-sure1e-05 |" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "--model", path, "--sure", "1e-5", "--preset", "beginner", "--games", "1"])
    assert exit_info.value.code == 2
    assert "--sure gates the average over symmetries" in capsys.readouterr().err


@pytest.mark.train
@pytest.mark.parametrize("model", ["distill_beginner_opening.zip", "maskable_ppo_beginner_opening.zip"])
def test_a_gated_model_plays_alone_where_sure_and_averaged_elsewhere(model: str) -> None:
    """A distilled network and a mine-prior policy: both give safety logits that the gate reads."""
    pytest.importorskip("sb3_contrib")
    from agents.networks.player import load_model_agent
    from mine_env.engine.spec import BoardSpec
    from mine_env.env import MinesweeperEnv

    path = MODELS / model
    spec = BoardSpec(9, 9, 10)
    plain = load_model_agent(path, spec)
    mirrored = load_model_agent(path, spec, symmetries=4)
    always_sure = load_model_agent(path, spec, symmetries=4, sure=0.999)
    never_sure = load_model_agent(path, spec, symmetries=4, sure=1e-30)
    assert always_sure.name.endswith("+sym4-sure0.999")
    env = MinesweeperEnv(preset="beginner")
    obs, info = env.reset(seed=4)
    obs, _, _, _, info = env.step(40)
    np.testing.assert_allclose(always_sure.action_scores(obs, info), plain.action_scores(obs, info), rtol=1e-5)
    np.testing.assert_allclose(never_sure.action_scores(obs, info), mirrored.action_scores(obs, info),
                               rtol=1e-5, atol=1e-5)  # fmt: skip


@pytest.mark.train
@pytest.mark.parametrize(
    ("model", "symmetries", "sure", "message"),
    [
        ("distill_beginner_opening.zip", 1, 1e-5, "give symmetries 2, 4 or 8 with it"),
        ("distill_beginner_opening.zip", 4, 1.5, "a mine chance between 0 and 1"),
        ("distill_beginner_opening.zip", 4, -1e-5, "a mine chance between 0 and 1"),
        ("ppo_beginner_opening.zip", 4, 1e-5, "only the scores of a distilled model or of a mine-prior policy"),
    ],
)
def test_a_gate_that_cannot_work_is_a_clear_error(model: str, symmetries: int, sure: float, message: str) -> None:
    pytest.importorskip("sb3_contrib")
    from agents.networks.player import load_model_agent
    from mine_env.engine.spec import BoardSpec

    with pytest.raises(ValueError, match=message):
        load_model_agent(MODELS / model, BoardSpec(9, 9, 10), symmetries=symmetries, sure=sure)

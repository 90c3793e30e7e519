"""Playing a network averaged over the board's symmetries: the averaged scores, the model agent, the CLI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from eval.symmetries import averaged_scores
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


def test_safety_logits_are_averaged_as_chances() -> None:
    grid = np.zeros((3, 3))

    def one_image_doubts(batch: np.ndarray) -> np.ndarray:
        scores = np.full(batch.shape, 14.0)  # every image is sure every cell is safe...
        scores[0, 0, 0] = 0.85  # ...but the first doubts its top-left cell (a 30% mine chance)
        return scores.reshape(len(batch), -1)

    as_logits = averaged_scores(one_image_doubts, grid, 8).reshape(3, 3)
    as_chances = averaged_scores(one_image_doubts, grid, 8, safety_logits=True).reshape(3, 3)
    assert as_logits[0, 0] > 12.0  # the mean logit all but drowns the doubt
    chance = (7 / (1 + np.exp(-14.0)) + 1 / (1 + np.exp(-0.85))) / 8
    assert as_chances[0, 0] == pytest.approx(np.log(chance / (1 - chance)))
    assert as_chances[0, 0] < 3.5 and as_chances[1, 1] == pytest.approx(14.0)
    sure = averaged_scores(lambda batch: np.full((len(batch), 9), 60.0), grid, 4, safety_logits=True)
    np.testing.assert_allclose(sure, 60.0)  # no rounding to a chance of 1 (an infinite logit)


@pytest.mark.train
def test_a_model_plays_over_symmetries_in_one_batch() -> None:
    pytest.importorskip("sb3_contrib")
    from eval.models import load_model_agent
    from mine_env.engine.spec import BoardSpec
    from mine_env.env import MinesweeperEnv

    path = MODELS / "distill_beginner_opening.zip"
    plain = load_model_agent(path, BoardSpec(9, 9, 10))
    mirrored = load_model_agent(path, BoardSpec(9, 9, 10), symmetries=8)
    assert mirrored.name.endswith("+sym8")
    env = MinesweeperEnv(preset="beginner")
    obs, info = env.reset(seed=4)
    obs, _, _, _, info = env.step(40)
    images = [inverse(plain.action_scores(np.ascontiguousarray(forward(obs)), info).reshape(9, 9))
              for forward, inverse in board_symmetries(8, 9, 9)]  # fmt: skip
    chance = np.mean([1.0 / (1.0 + np.exp(-np.asarray(image, dtype=np.float64))) for image in images], axis=0)
    expected = np.log(chance / (1.0 - chance)).ravel()  # a distilled network's images are averaged as chances
    hidden = obs.ravel() == HIDDEN  # revealed cells are sure (logits near -40) and carry no information here
    np.testing.assert_allclose(mirrored.action_scores(obs, info)[hidden], expected[hidden], rtol=1e-4, atol=1e-4)
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

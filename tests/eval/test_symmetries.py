"""Playing a network averaged over the board's symmetries: the averaged scores, the model agent, the CLI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from eval.symmetries import averaged_scores
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

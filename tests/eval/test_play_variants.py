"""studies/play_variants.py: the combined agent against the model agent, the count identity, the CLI."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from agents.networks.player import load_model_agent
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv
from train.distill.config import DistillConfig
from train.distill.data import Dataset
from train.distill.labels import label_positions
from train.distill.network import new_model
from train.sb3.evaluation import save_model

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import play_variants as checks  # noqa: E402

MODEL = str(ROOT / "models" / "distill_beginner_opening.zip")
SPEC = BoardSpec(9, 9, 10)

pytestmark = pytest.mark.train


def positions(count: int) -> list[tuple[np.ndarray, dict]]:
    """Positions of beginner games after a few moves of the model itself."""
    model = load_model_agent(MODEL, SPEC)
    env = MinesweeperEnv(preset="beginner")
    found = []
    for seed in range(count):
        obs, info = env.reset(seed=seed)
        for _ in range(3):
            obs, _, terminated, _, info = env.step(model.act(obs, info))
            if terminated:
                break
        if not terminated:
            found.append((obs, info))
    return found


def test_one_model_one_image_plays_like_the_model_agent() -> None:
    model = load_model_agent(MODEL, SPEC)
    for combine in checks.COMBINES:
        agent = checks.CombinedAgent([model], 1, combine, False, SPEC.mines)
        for obs, info in positions(6):
            assert agent.act(obs, info) == model.act(obs, info)


def test_the_count_identity_spreads_the_mines_the_frontier_does_not_hold() -> None:
    agent = checks.CombinedAgent([load_model_agent(MODEL, SPEC)], 1, "logit", True, SPEC.mines)
    grid = np.full((9, 9), HIDDEN, np.int8)
    grid[0, 0], grid[0, 1], grid[1, 0], grid[1, 1] = 0, 0, 0, 1  # frontier: the 5 cells around the 2x2 block
    log_safe = np.log(np.full((9, 9), 0.8))  # every cell a 20% mine chance: the frontier holds 1 mine
    fixed = agent.with_count_identity(grid, log_safe)
    untouched = 81 - 4 - 5
    assert np.exp(fixed[8, 8]) == pytest.approx(1 - (SPEC.mines - 5 * 0.2) / untouched)
    assert np.exp(fixed[2, 1]) == pytest.approx(0.8)  # a frontier cell keeps its chance
    assert fixed[0, 0] == log_safe[0, 0]  # revealed cells are left alone


def test_count_error_and_bad_games_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grids = np.stack([obs for obs, _ in positions(8)])
    labels = label_positions(grids, SPEC.mines, SPEC.first_click).astype(np.float16)
    Dataset(SPEC, grids, labels).save(tmp_path / "tiny.npz")
    assert checks.main(["count-error", "--model", MODEL, "--dataset", str(tmp_path / "tiny.npz"),
                        "--positions", "5"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "all: |summed mine chances - oracle's| mean" in out and "endgame: no positions" in out
    assert checks.main(["play", "--model", MODEL, "--suite", "beginner-opening-1k", "--games", "2"]) == 0
    assert "(logit over 1 image(s)):" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        checks.main(["play", "--model", MODEL, "--suite", "beginner-opening-1k", "--start", "999", "--games", "2"])
    assert exit_info.value.code == 2
    assert "are not all in the suite's 1000" in capsys.readouterr().err


def test_refine_passes_run_the_weight_tied_refinement_more_times(tmp_path: Path) -> None:
    spec = BoardSpec(6, 7, 6)
    config = DistillConfig(rows=6, cols=7, mines=6, channels=6, dilations="1,2", refine=2, seed=3)
    path = tmp_path / "refined.zip"
    save_model(new_model(config, spec), path, "distill", config)
    model = load_model_agent(str(path), spec)
    grid = np.full((1, 6, 7), HIDDEN, np.int8)
    grid[0, :2, :2] = (0, 1), (1, 2)
    as_trained = model.batch_scores(grid)
    checks.set_refine_passes(model, 5, str(path))
    assert model.network.trunk.refine == 5
    assert not np.allclose(model.batch_scores(grid), as_trained)  # random weights: every pass moves the features
    with pytest.raises(ValueError, match="must be 1 or more"):
        checks.set_refine_passes(model, 0, str(path))
    with pytest.raises(ValueError, match="has no count refinement"):
        checks.set_refine_passes(load_model_agent(MODEL, SPEC), 2, MODEL)

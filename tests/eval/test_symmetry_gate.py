"""studies/symmetry_gate.py: judging picks on labelled positions, and a run on a small dataset."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from agents.probability import mine_probabilities
from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import symmetry_gate  # noqa: E402


def test_a_pick_beside_a_safe_cell_is_a_miss_and_a_guess_on_the_safest_cell_is_not() -> None:
    hidden = np.ones((2, 3), dtype=bool)
    labels = np.array([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]])  # a certainly safe cell; a true guess
    scores = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])  # picks a 0.5 cell, then the safest one
    result = symmetry_gate.judge(scores, hidden, labels)
    assert result == {"misses": 1, "miss_excess": 0.5, "guess_safest": 1.0, "guess_excess": 0.0}
    hidden[0, 1] = False  # the risky cell revealed: the best-scored hidden cell is now the safe one
    assert symmetry_gate.judge(scores, hidden, labels)["misses"] == 0


@pytest.mark.train
def test_the_benchmark_judges_a_model_alone_averaged_and_gated(tmp_path: Path, capsys) -> None:
    pytest.importorskip("sb3_contrib")
    from train.distill.data import Dataset

    spec = BoardSpec(9, 9, 10, "opening")
    env = MinesweeperEnv(rows=9, cols=9, mines=10, first_click="opening")
    grids = []
    for seed in range(12):
        env.reset(seed=seed)
        grids.append(env.step(40)[0])
    grids = np.array(grids, dtype=np.int8)
    labels = np.array([mine_probabilities(grid, 10) for grid in grids], dtype=np.float16)
    path = Dataset(spec, grids, labels).save(tmp_path / "positions.npz")
    model = str(ROOT / "models" / "distill_beginner_opening.zip")
    code = symmetry_gate.main(["--model", model, "--dataset", str(path), "--positions", "8", "--symmetries", "8",
                               "--sure", "0.999", "--sure", "1e-30"])  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert code == 0 and lines[0].startswith("8 positions of")
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")[1:] for line in lines[3:]}
    assert rows["alone"][0] == "1.00" and rows["8 images averaged"][0] == "8.00"
    assert rows["gated, sure 0.999"] == rows["alone"]  # always sure: plays alone
    assert rows["gated, sure 1e-30"][1:] == rows["8 images averaged"][1:]  # never sure: always averaged
    assert rows["gated, sure 1e-30"][0] == "8.00"

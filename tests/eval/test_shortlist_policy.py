"""studies/shortlist_policy.py: a policy fitted to the shortlist's returns, judged against the solver's pick."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from mine_env.engine.spec import BoardSpec
from train.distill.guess.returns import rollout_guesses, rollout_shortlist

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import shortlist_policy  # noqa: E402

DENSE = BoardSpec(9, 9, 16, "opening")


def save_chunks(run: Path, chunks: list) -> None:
    (run / "rollouts").mkdir(parents=True)
    for i, chunk in enumerate(chunks):
        np.savez(run / "rollouts" / f"chunk-{i:04d}.npz", **chunk._asdict())


def test_a_policy_starts_at_the_solvers_pick_and_is_judged_on_held_out_returns(tmp_path: Path) -> None:
    save_chunks(tmp_path / "run", [rollout_shortlist(DENSE, 150, seed=seed) for seed in (1, 2)])
    positions = shortlist_policy.load_run(tmp_path / "run")
    assert shortlist_policy.judged(positions, np.where(np.arange(12) == positions.fast[:, None], 1.0, 0.0)) == {
        "positions": len(positions.grids), "gain": 0.0, "gain_se": 0.0, "picks_differ": 0.0}  # fmt: skip
    report_path = tmp_path / "report.json"
    assert shortlist_policy.main(["--run", str(tmp_path / "run"), "--mines", "16", "--epochs", "2", "--json",
                                  str(report_path)]) == 0  # fmt: skip
    report = json.loads(report_path.read_text())
    assert report["positions"] == len(positions.grids) and set(report) >= {"linear", "mlp"}
    for name in ("linear", "mlp"):
        assert [row["epoch"] for row in report[name]] == [1, 2]
        assert report[name][-1]["held_out"]["positions"] == len(positions.grids) - report["train"]


def test_a_run_of_ties_or_none_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no chunks"):
        shortlist_policy.load_run(tmp_path / "empty")
    save_chunks(tmp_path / "ties", [rollout_guesses(DENSE, 60, seed=1, margin=1e-9)])
    with pytest.raises(SystemExit, match="a --player solver run is needed"):
        shortlist_policy.load_run(tmp_path / "ties")

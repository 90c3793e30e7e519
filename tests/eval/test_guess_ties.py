"""studies/guess_ties.py: its pieces against plain statements, and a short run of every part."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np

from mine_env.engine.constants import HIDDEN

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import guess_ties  # noqa: E402


def test_the_count_distribution_is_that_of_every_outcome_listed() -> None:
    chances = [0.1, 0.5, 0.25, 0.9]
    listed = np.zeros(len(chances) + 1)
    for outcome in itertools.product((0, 1), repeat=len(chances)):
        listed[sum(outcome)] += np.prod([c if hit else 1 - c for c, hit in zip(chances, outcome, strict=True)])
    assert np.allclose(guess_ties.count_distribution(chances), listed)
    assert guess_ties.count_distribution([]).tolist() == [1.0]


def test_pooling_the_cells_that_touch_no_number_weighs_their_mean_against_the_frontier() -> None:
    obs = np.full((3, 4), HIDDEN, dtype=np.int8)
    obs[0, 0] = 1  # (0, 1), (1, 0) and (1, 1) touch it; the other hidden cells touch no number
    chances = np.full(12, 0.3)
    chances[0] = np.inf  # revealed
    chances[1] = 0.2  # the frontier's safest
    chances[11] = 0.1  # one interior cell, below the interior mean
    assert guess_ties.pooled_pick(obs, chances) == 1  # 0.2 is below the interior mean (about 0.27)
    chances[1] = 0.29
    assert guess_ties.pooled_pick(obs, chances) == 11  # the interior is safer: its least chance is played


def test_a_short_run_prints_every_part_and_writes_both_reports(tmp_path: Path, capsys) -> None:
    out = tmp_path / "ties.json"
    assert guess_ties.main(["--suite", "beginner-opening-1k", "--first-cell", "2,2", "--games", "6",
                            "--model", "distill-beginner", "--json", str(out)]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    for label in ("fast: the safest cell", "ties-exact +safe-mask", "ties-net +safe-mask", "guesses:"):
        assert label in printed
    report = json.loads(out.read_text())
    assert [r["games"] for r in report["probes"]["results"]] == [6] * (1 + len(guess_ties.PROBES))
    assert len(report["solver"]["results"]) == len(guess_ties.SETTINGS)

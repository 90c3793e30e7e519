"""studies/loss_anatomy.py: the stages, and the tallies agreeing with the evaluation's avoidable losses."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from eval.runner import evaluate
from eval.suites import get_suite
from mine_env.engine.constants import HIDDEN

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import loss_anatomy  # noqa: E402


def test_stages_follow_the_share_of_safe_cells_still_hidden() -> None:
    grid = np.zeros((4, 5), np.int8)  # 20 cells, 4 mines: 16 safe
    grid.flat[:5] = HIDDEN  # 1 safe cell hidden: under a tenth
    assert loss_anatomy.stage_of(grid, 4, 16) == "late"
    grid.flat[:10] = HIDDEN  # 6 of 16
    assert loss_anatomy.stage_of(grid, 4, 16) == "middle"
    grid.flat[:] = HIDDEN
    assert loss_anatomy.stage_of(grid, 4, 16) == "early"


def test_anatomy_counts_the_avoidable_losses_the_evaluation_counts(tmp_path: Path) -> None:
    model = str(ROOT / "models" / "maskable_ppo_beginner_opening.zip")  # weak enough to err in every way counted
    suite = get_suite("beginner-opening-1k")
    anatomy = loss_anatomy.anatomy_of(model, suite, 40, symmetries=1, progress=False)
    first_games = dataclasses.replace(suite, games=40)  # game i keeps its seeds
    report = evaluate(model, first_games, workers=1, progress=False).to_dict()["results"][0]
    assert anatomy.games == 40 and anatomy.wins == report["wins"]
    assert sum(anatomy.avoidable.values()) == report["avoidable_losses"] > 0
    assert sum(anatomy.proof_round.values()) == report["avoidable_losses"]
    assert sum(anatomy.moves.values()) > 40 and all(anatomy.misses[s] <= anatomy.moves[s] for s in anatomy.moves)
    guesses = sum(anatomy.misses.values()) + anatomy.guesses  # a miss is a guess beside a safe cell
    assert guesses == pytest.approx(report["guesses_per_game"] * 40)
    excess = anatomy.miss_excess + anatomy.guess_excess
    assert excess == pytest.approx(report["mean_excess_risk"] * guesses)
    assert 0 < anatomy.guesses_not_safest <= anatomy.guesses and anatomy.guess_losses <= anatomy.guesses
    out = tmp_path / "anatomy.json"
    assert loss_anatomy.main(["--model", model, "--suite", suite.name, "--games", "3", "--json", str(out),
                              "--no-progress"]) == 0  # fmt: skip
    assert json.loads(out.read_text())["games"] == 3


def test_bad_games_count_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    model = str(ROOT / "models" / "distill_beginner_opening.zip")
    assert loss_anatomy.main(["--model", model, "--suite", "beginner-opening-1k", "--games", "0"]) == 2
    assert "--games must be between 1" in capsys.readouterr().err

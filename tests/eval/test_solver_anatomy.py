"""studies/solver_anatomy.py and studies/guess_rollouts.py: the kinds of fatal guess, the games the evaluation plays,
the candidates, and rollouts that repeat from their seed."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.solver.guess import PRESETS
from eval.runner import evaluate
from eval.suites import get_suite
from mine_env.analysis.probability import mine_probabilities
from mine_env.engine.constants import HIDDEN

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import guess_rollouts  # noqa: E402
import solver_anatomy  # noqa: E402

STRONG = PRESETS["strong"]


def test_a_forced_fifty_fifty_is_filed_as_such() -> None:
    grid = np.zeros((2, 4), np.int8)  # the mine is in column 3, top or bottom: no reveal can tell which
    grid[:, 2] = 1
    grid[:, 3] = HIDDEN
    fatal = solver_anatomy.classify(grid, 1, 3, STRONG, n_safe=7)
    assert fatal.kind == "forced 50/50"
    assert fatal.risk == fatal.safest == pytest.approx(0.5) and fatal.stage == pytest.approx(1 / 7)


def test_few_layouts_are_an_endgame_and_many_an_ordinary_guess() -> None:
    grid = np.full((3, 3), HIDDEN, np.int8)
    grid[0, 0] = 1  # one mine, on one of its three hidden neighbours: three layouts, no forced pair
    fatal = solver_anatomy.classify(grid, 1, 1, STRONG, n_safe=8)
    assert fatal.kind == "endgame" and np.exp(fatal.log_layouts) == pytest.approx(3)
    assert fatal.endgame_chance == pytest.approx(1.0)  # the cells safe in every layout tell the three apart
    board = np.full((9, 9), HIDDEN, np.int8)
    board[0, 0] = 1
    assert solver_anatomy.classify(board, 10, 1, STRONG, n_safe=71).kind == "ordinary"


def test_the_games_are_those_the_evaluation_plays() -> None:
    suite = get_suite("beginner-opening-1k")
    played = solver_anatomy.play_suite(suite, 40, "strong", progress=False)
    report = evaluate("solver", dataclasses.replace(suite, games=40), workers=1, progress=False).to_dict()
    assert sum(record.won for record in played.records) == report["results"][0]["wins"] < 40
    assert all((record.fatal is None) == record.won for record in played.records)
    assert all(record.guesses >= 1 for record in played.records if not record.won)  # every loss is a true guess
    assert sum(record.guesses for record in played.records) == len(played.positions)


def test_the_shortlist_takes_the_safest_cells_within_the_margin() -> None:
    grid = np.full((4, 4), HIDDEN, np.int8)
    grid[0, 0] = 1
    probabilities = mine_probabilities(grid, 3)
    cells = guess_rollouts.shortlist(grid, probabilities, margin=0.1, limit=12)
    assert cells and all(grid.flat[cell] == HIDDEN for cell in cells)
    chances = probabilities.ravel()[cells]
    assert np.all(np.diff(chances) >= 0) and chances[-1] <= 1 - (1 - chances[0]) * 0.9 + 1e-12
    assert sum(cell not in (1, 4, 5) for cell in cells) <= 4  # at most four cells that touch no number
    assert len(guess_rollouts.shortlist(grid, probabilities, margin=0.1, limit=2)) == 2


def test_rollouts_repeat_from_their_seed(tmp_path: Path) -> None:
    suite = get_suite("beginner-opening-1k")
    played = solver_anatomy.play_suite(suite, 40, "strong", progress=False)

    def study(seed: int) -> dict:
        return guess_rollouts.rollout_study(played.positions, suite.mines, "fatal", 2, 12, "strong", "fast",
                                            seed).to_dict()  # fmt: skip

    first = study(5)
    assert first["summary"]["positions"] + first["summary"]["skipped"] == 2
    wide = guess_rollouts.rollout_study(played.positions, suite.mines, "fatal", 2, 12, "strong", "fast", 5,
                                        margin=0.6, limit=40).to_dict()  # fmt: skip
    for narrow, wider in zip(first["positions"], wide["positions"], strict=True):
        assert narrow["played"] == wider["played"] and len(wider["candidates"]) >= len(narrow["candidates"])
    assert sum(len(r["candidates"]) for r in wide["positions"]) > sum(len(r["candidates"]) for r in first["positions"])
    assert json.dumps(first) == json.dumps(study(5))
    for rollout in first["positions"]:
        assert rollout["played"] in rollout["candidates"] and rollout["best"] in rollout["candidates"]
        assert all(0.0 <= rate <= 1.0 for rate in rollout["rates"])


def test_the_command_writes_its_records_and_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "anatomy.json"
    assert solver_anatomy.main(["--preset", "beginner", "--games", "30", "--rollout-positions", "1", "--rollouts",
                                "8", "--rollout-at", "fatal", "--rollout-at", "guesses", "--no-progress",
                                "--json", str(out)]) == 0  # fmt: skip
    report = json.loads(out.read_text())
    assert report["suite"] == "beginner-opening-10k" and len(report["records"]) == 30
    assert [study["target"] for study in report["rollouts"]] == ["fatal", "guesses"]
    assert report["won_back_per_game"][0] is None  # a per-game figure needs uniformly drawn guesses
    assert report["summary"]["losses"] == sum(not record["won"] for record in report["records"])
    assert sum(row["losses"] for row in report["summary"]["kinds"].values()) == report["summary"]["losses"]
    assert sum(row["guesses"] for row in report["summary"]["kinds"].values()) == report["summary"]["true_guesses"]
    assert "| kind | true guesses |" in capsys.readouterr().out
    assert solver_anatomy.main(["--suite", "beginner-opening-1k", "--games", "0"]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
    assert solver_anatomy.main(["--suite", "beginner-opening-1k", "--games", "5", "--rollout-margin", "1.5"]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0

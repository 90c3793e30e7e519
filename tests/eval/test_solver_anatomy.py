"""studies/solver_anatomy.py and studies/guess_rollouts.py: the kinds of fatal guess, the games the evaluation plays,
the candidates, and rollouts that repeat from their seed."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.guess_value import GuessValueAgent
from agents.guess_value_kernels import plan as guess_value_plan
from agents.solver.guess import PRESETS
from agents.solver.playouts import play_outs
from agents.solver.posterior import PosteriorSampler
from eval.runner import evaluate
from eval.suites import get_suite
from mine_env.analysis.probability import mine_probabilities
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import RULE_CODES
from mine_env.engine.rules import PLAYING, WON, game_status, new_game_arrays, open_game_on, reveal_cell

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


def test_a_race_drops_the_candidates_clearly_behind_and_a_full_search_drops_none() -> None:
    suite = get_suite("beginner-opening-1k")
    played = solver_anatomy.play_suite(suite, 60, "strong", progress=False)

    def study(race: float) -> list:
        return guess_rollouts.rollout_study(played.positions, suite.mines, "guesses", 6, 120, "strong", "fast", 3,
                                            race=race, batch=20).positions  # fmt: skip

    full, raced, endless = study(0.0), study(1.0), study(1e9)
    assert [r.playouts for r in full] == [len(r.candidates) * 120 for r in full]
    assert [r.playouts for r in endless] == [r.playouts for r in full]  # nobody leaves a race it cannot lose
    assert sum(r.playouts for r in raced) < sum(r.playouts for r in full)
    for rollout in raced:
        assert rollout.best in rollout.candidates and 120 <= rollout.playouts <= len(rollout.candidates) * 120
    assert [vars(r) for r in raced] == [vars(r) for r in study(1.0)]


def test_guess_value_plays_the_rollouts_on_as_its_compiled_games_do() -> None:
    suite = get_suite("intermediate-opening-10k")
    played = solver_anatomy.play_suite(suite, 20, "strong", progress=False)
    position = next(p for p in played.positions if p.kind == "ordinary")
    layouts = PosteriorSampler(position.grid, suite.mines).samples(np.random.default_rng(1), 30)
    settings, head = guess_rollouts.playout_player(guess_rollouts.GUESS_VALUE)
    won, _ = play_outs(position.grid, suite.mines, layouts, position.cell, settings, np.uint64(0), head)
    agent = GuessValueAgent()
    rows, cols = position.grid.shape
    again = []
    for layout in layouts:  # the same game by the agent's compiled play: open, replay the position, then the cell
        game = new_game_arrays(rows * cols)
        shown = np.flatnonzero(position.grid.ravel() >= 0)
        open_game_on(game, rows, cols, suite.mines, RULE_CODES["opening"], 0, int(shown[0]), layout)
        for cell in [*shown, position.cell]:
            if game.obs[cell] == HIDDEN:
                reveal_cell(game, rows, cols, int(cell))
        while game_status(game.meta) == PLAYING:
            for cell in guess_value_plan(game.obs, rows, cols, suite.mines, *agent.head.layers()):
                if game.obs[cell] == HIDDEN and game_status(game.meta) == PLAYING:
                    reveal_cell(game, rows, cols, int(cell))
        again.append(game_status(game.meta) == WON)
    assert won.tolist() == again and 0 < won.sum() < len(won)


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


def test_the_searched_guesses_are_the_ordinary_ones_and_scale_by_their_count(tmp_path: Path) -> None:
    out = tmp_path / "anatomy.json"
    assert solver_anatomy.main(["--preset", "intermediate", "--games", "40", "--rollout-positions", "4", "--rollouts",
                                "8", "--rollout-at", "searched", "--no-progress", "--json", str(out)]) == 0  # fmt: skip
    report = json.loads(out.read_text())
    (study,) = report["rollouts"]
    assert study["target"] == "searched" and 0 < len(study["positions"]) <= 4
    assert {position["kind"] for position in study["positions"]} == {"ordinary"}
    gains = [position["best_again"] - position["played_again"] for position in study["positions"]]
    summary = report["summary"]
    per_game = summary["kinds"]["ordinary"]["guesses"] / summary["games"]
    assert summary["kinds"]["ordinary"]["guesses"] < summary["true_guesses"]
    assert report["won_back_per_game"][0][0] == pytest.approx(np.mean(gains) * per_game)

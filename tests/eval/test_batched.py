"""Batched play of a suite (eval.batched) against the per-game runner, and the zero start."""

from __future__ import annotations

import json

import numpy as np
import pytest

from eval.agent_specs import AgentSpec
from eval.batched import main, model_scorer, play_batched
from eval.player import GamePlayer
from eval.suites import Suite, get_suite
from mine_env.engine.starts import zero_start_cell

BEGINNER_MODEL = "models/distill_beginner_opening.zip"


def runner_outcomes(suite: Suite, games: int) -> tuple[list[bool], list[int]]:
    player = GamePlayer(suite, [AgentSpec.model(BEGINNER_MODEL, suite.spec())], oracle=False)
    records = [player.play(0, game) for game in range(games)]
    return [record.won for record in records], [record.first_action for record in records]


@pytest.mark.parametrize("start", ["agent", "zero"])
def test_batched_games_are_the_runners_games(start: str) -> None:
    suite = get_suite("beginner-opening-1k")
    if start == "zero":
        suite = suite.with_zero_start()
    result = play_batched(model_scorer(BEGINNER_MODEL, "cpu", suite.mines), suite, games=60, batch=25)
    won, first = runner_outcomes(suite, 60)
    assert result.won.tolist() == won
    assert result.first_cell.tolist() == first
    assert 0.5 < result.won.mean() < 1.0  # a real network on real games: neither all lost nor all won


def test_zero_start_opens_a_zero_cell_drawn_from_the_seed() -> None:
    rng = np.random.default_rng(1)
    mines = (rng.random(81) < 0.12).astype(np.uint8)
    grid = mines.reshape(9, 9)
    padded = np.pad(grid, 1)
    counts = sum(np.roll(np.roll(padded, dr, 0), dc, 1) for dr in (-1, 0, 1) for dc in (-1, 0, 1))[1:-1, 1:-1]
    counts = (counts - grid).ravel()
    cell = zero_start_cell(mines, counts, 7)
    assert mines[cell] == 0 and counts[cell] == 0
    assert zero_start_cell(mines, counts, 7) == cell
    assert len({zero_start_cell(mines, counts, seed) for seed in range(40)}) > 3
    assert zero_start_cell(np.ones(9, np.uint8), np.full(9, 3), 7) == -1


def test_zero_start_suites() -> None:
    suite = get_suite("expert-opening-10k").with_zero_start()
    assert suite == get_suite("expert-zero-10k")
    assert (suite.first_click, suite.start, suite.base_seed) == ("none", "zero", get_suite("expert-opening-10k").base_seed)
    assert suite.to_dict()["start"] == "zero"
    with pytest.raises(ValueError, match="needs the 'none' rule"):
        Suite("x", 9, 9, 10, "opening", 5, 0, start="zero")
    with pytest.raises(ValueError, match="unknown start"):
        Suite("x", 9, 9, 10, "none", 5, 0, start="middle")
    with pytest.raises(ValueError, match="no --first-cell"):
        get_suite("beginner-opening-1k").with_first_cell((4, 4)).with_zero_start()


def test_batched_command_line(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "eval.jsonl"
    code = main(["--model", BEGINNER_MODEL, "--suite", "beginner-opening-1k", "--games", "20", "--start", "agent",
                 "--start", "zero", "--json", str(out)])
    assert code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["suite"]["name"] for line in lines] == ["beginner-opening-1k", "beginner-zero-1k"]
    assert all(len(line["won"]) == 20 for line in lines)
    assert main(["--model", "no/such.zip", "--suite", "beginner-opening-1k"]) == 2
    assert "error:" in capsys.readouterr().err

"""Learning a model's opening from its games (eval.opening), and the evaluation playing it.

Needs torch (the player loads a network): skipped without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from agents.model_card import ModelCard
from agents.opening import CandidateReturns
from eval.agent_specs import AgentSpec
from eval.opening import main as learn_main
from eval.opening import successive_halving
from eval.runner import evaluate
from eval.suites import Suite
from tests.agents.test_network_player import save_tiny_model
from tests.agents.test_opening import opening_section, with_opening


def test_the_evaluation_plays_the_opening_as_every_games_first_move(tmp_path: Path) -> None:
    card_path = save_tiny_model(tmp_path, "tiny")
    with_opening(card_path, opening_section((2, 1)))
    suite = Suite("tiny", 4, 4, 2, "opening", games=5, base_seed=3)
    spec = AgentSpec.model(card_path.with_suffix(".pt"), suite.spec(), opening=True)
    report = evaluate([spec], suite, workers=1, oracle=False, progress=False)
    assert spec.label.endswith("+opening") and {record.first_action for record in report.records} == {9}


def test_successive_halving_keeps_the_better_half_and_the_models_own_cell() -> None:
    rates = {(0, 0): 0.2, (1, 1): 0.8, (2, 2): 0.5, (3, 3): 0.6, (0, 1): 0.1}
    calls = []

    def play(round_index: int, cells: list, games: int, seed: int) -> dict:
        calls.append((round_index, sorted(cells), games, seed))
        return {cell: round(rates[cell] * games) for cell in cells}

    candidates = successive_halving(play, list(rates), games=10, rounds=3, seed=100, reference=(0, 1))
    assert candidates[0] == CandidateReturns((1, 1), 70, 56)
    assert [(len(cells), games, seed) for _, cells, games, seed in calls] == [(5, 10, 100), (3, 20, 101), (2, 40, 102)]
    assert all((0, 1) in cells for _, cells, _, _ in calls)  # the worst cell, but the model's own: never dropped
    assert {item.cell for item in candidates} == set(rates) and sum(item.games for item in candidates) == 50 + 60 + 80
    calls.clear()  # a fourth round: the last challenger and the reference alone, on twice the games
    assert successive_halving(play, list(rates), 10, 4, 100, reference=(0, 1))[0] == CandidateReturns((1, 1), 150, 120)
    assert [(cells, games, seed) for _, cells, games, seed in calls[3:]] == [([(0, 1), (1, 1)], 80, 103)]
    rates[(0, 1)] = 0.9
    assert successive_halving(play, list(rates), 10, 2, 100, reference=(0, 1))[0].cell == (0, 1)


def test_the_command_writes_an_opening_only_where_it_beats_the_models_own(tmp_path: Path, capsys) -> None:
    card_path = save_tiny_model(tmp_path, "tiny")
    argv = [str(card_path.with_suffix(".pt")), "--candidates", "0,0", "1,1", "2,2", "--games", "4", "--rounds", "3",
            "--seed", "9", "--workers", "1", "--log-dir", str(tmp_path / "logs"), "--write"]  # fmt: skip
    assert learn_main([*argv, "--alpha", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "its own (0, 1) 7 of 28 (25.0%), p = 0.029" in out and "not written: no cell beats" in out
    assert ModelCard.read(card_path).learnt_opening is None
    assert learn_main(argv) == 0  # the rounds read back from their logs, nothing played again
    learnt = ModelCard.read(card_path).learnt_opening
    assert learnt is not None and learnt.cell != (0, 1) and "written into" in capsys.readouterr().out
    assert sorted(item.games for item in learnt.candidates) == [4, 12, 28, 28]
    assert learn_main([*argv[:-1], "--candidates", "0,0", "0,0"]) == 2
    assert "repeats a cell" in capsys.readouterr().err


def test_the_cli_plays_the_opening_and_refuses_it_without_a_model(tmp_path: Path, capsys) -> None:
    from minesweeper_cli.main import main

    card_path = save_tiny_model(tmp_path, "tiny")
    with_opening(card_path, opening_section((3, 0)))
    code = main(["eval", "--model", str(card_path.with_suffix(".pt")), "--opening", "--rows", "4", "--cols", "4",
                 "--mines", "2", "--first-click", "opening", "--games", "3", "--workers", "1", "--no-progress",
                 "--no-oracle", "--csv", str(tmp_path / "games.csv")])  # fmt: skip
    assert code == 0 and "tiny+opening |" in capsys.readouterr().out
    assert {line.split(",")[-1] for line in (tmp_path / "games.csv").read_text().splitlines()[1:]} == {"12"}
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "--agent", "random", "--opening", "--preset", "beginner", "--games", "1"])
    assert exit_info.value.code == 2
    assert "--opening applies to --model" in capsys.readouterr().err

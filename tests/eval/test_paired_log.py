"""studies/paired_log.py: a game log read while it is written, paired over the games every agent finished."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from eval.runner import evaluate
from eval.suites import Suite

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import paired_log  # noqa: E402


def test_games_every_agent_finished_are_paired_and_a_torn_line_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "run.games.jsonl"
    suite = Suite(name="t", rows=9, cols=9, mines=10, first_click="opening", games=30, base_seed=4)
    evaluate(["solver", "random"], suite, oracle=False, log=log, workers=1, progress=False)
    lines = log.read_text().splitlines()
    random_games = [line for line in lines[1:] if json.loads(line)["agent"] == "random"]
    kept = lines[:1] + [line for line in lines[1:] if line not in random_games[:5]]  # random's first 5 games missing
    text = "\n".join(kept) + "\n" + '{"suite": "t", "agent": "sol'  # a line still being written
    log.write_text(text)
    assert paired_log.main([str(log)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("25 games of t finished by every agent")
    run, games = paired_log.read_log(log)
    paired = paired_log.paired_games(games, run["agents"])
    solver, random = paired_log.readings(paired)
    assert solver.wins > random.wins and random.only_first == solver.wins - random.wins + random.only_this
    assert random.p_value is not None and random.p_value < 0.01
    assert log.read_text() == text  # read, not cut


def test_a_missing_or_foreign_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert paired_log.main([str(tmp_path / "none.jsonl")]) == 2
    (tmp_path / "other.jsonl").write_text('{"not": "a log"}\n')
    assert paired_log.main([str(tmp_path / "other.jsonl")]) == 2
    assert capsys.readouterr().err.count("error:") == 2


def test_batched_logs_of_one_suite_are_paired_across_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from eval.batched import main as batched

    logs = []
    for model in ("models/distill_beginner_opening.pt", "models/dqn_beginner_opening.pt"):
        logs.append(str(tmp_path / f"{Path(model).stem}.games.jsonl"))
        assert batched(["--model", model, "--preset", "beginner", "--games", "30", "--seed", "8", "--log", logs[-1],
                        "--no-progress"]) == 0  # fmt: skip
    capsys.readouterr()
    assert paired_log.main(logs) == 0
    out = capsys.readouterr().out
    assert out.startswith("30 games of 9x9-10-opening-30-seed8 finished by every agent")
    assert "| models/dqn_beginner_opening.pt |" in out
    batched(["--model", "models/dqn_beginner_opening.pt", "--preset", "beginner", "--games", "5", "--seed", "9",
             "--log", str(tmp_path / "other.games.jsonl"), "--no-progress"])  # fmt: skip
    assert paired_log.main([logs[0], str(tmp_path / "other.games.jsonl")]) == 2
    assert "pair logs of one suite" in capsys.readouterr().err
    assert paired_log.main([logs[0], logs[0]]) == 2
    assert "is in more than one log: pair logs of different agents" in capsys.readouterr().err

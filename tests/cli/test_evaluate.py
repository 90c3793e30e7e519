"""``minesweeper eval``: the contract's JSON, CSV and plot files, the suite list and clear errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from eval.metrics import RECORD_FIELDS
from support import run_cli


def test_cli_writes_the_contract_json_csv_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = {kind: tmp_path / f"out.{kind}" for kind in ("json", "csv", "png")}
    argv = ["eval", "--agent", "solver", "--agent", "rules", "--agent", "random", "--rows", "5", "--cols", "5",
            "--mines", "3", "--first-click", "opening", "--games", "6", "--seed", "0", "--workers", "1",
            "--no-progress", "--json", str(paths["json"]), "--csv", str(paths["csv"]),
            "--plot", str(paths["png"])]  # fmt: skip
    status, out, _ = run_cli(argv, capsys)
    assert status == 0
    assert "| solver | 6 |" in out and "solver vs rules" in out
    report = json.loads(paths["json"].read_text())
    assert set(report) == {"suite", "results", "paired"}
    assert report["suite"]["rows"] == 5 and report["suite"]["games"] == 6 and report["suite"]["base_seed"] == 0
    assert [result["agent"] for result in report["results"]] == ["solver", "rules", "random"]
    for result in report["results"]:
        assert {"agent", "games", "wins", "win_rate", "ci95"} <= set(result)
        low, high = result["ci95"]
        assert result["games"] == 6 and low <= result["win_rate"] == result["wins"] / 6 <= high
    pairs = [pair["agents"] for pair in report["paired"]]
    assert pairs == [["solver", "rules"], ["solver", "random"], ["rules", "random"]]
    with open(paths["csv"], newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 18 and list(rows[0]) == ["suite", *RECORD_FIELDS]
    first = {(row["agent"], row["game"]): row["first_action"] for row in rows}
    same = sum(first["solver", str(game)] == first["rules", str(game)] for game in range(6))
    assert report["paired"][0]["same_boards"] == same and "same boards |" in out
    assert paths["png"].read_bytes().startswith(b"\x89PNG")


def test_cli_plays_every_agents_first_cell_for_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "out.json"
    argv = ["eval", "--agent", "solver", "--agent", "random", "--rows", "5", "--cols", "5", "--mines", "3",
            "--games", "4", "--first-cell", "0,4", "--workers", "1", "--no-progress", "--json", str(path)]  # fmt: skip
    status, out, _ = run_cli(argv, capsys)
    report = json.loads(path.read_text())
    assert status == 0 and report["suite"]["name"].endswith("-first-0-4") and report["suite"]["first_cell"] == [0, 4]
    assert report["paired"][0]["same_boards"] == 4 and "opening on (0, 4) for every agent" in out


def test_cli_lists_suites(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(["eval", "--list-suites"], capsys)
    assert status == 0 and "| beginner-opening-10k | v1 | 9x9 | 10 | opening | 10000 |" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--agent", "minimax"], "invalid choice: 'minimax'"),
        (["--agent", "random", "--suite", "nowhere-1k"], "unknown suite 'nowhere-1k'"),
        (["--agent", "random", "--games", "0"], "--games must be at least 1"),
        (["--agent", "random", "--suite", "beginner-safe-1k", "--games", "5"], "drop --games"),
        (["--agent", "random", "--mines", "99"], "99 mines do not fit"),
        (["--model", "no/such/model.zip"], "model file no/such/model.zip does not exist"),
        ([], "at least one --agent"),
        (["--agent", "random", "--first-cell", "9,0"], "first cell (9, 0) lies off the 9x9 board"),
        (["--agent", "random", "--first-cell", "4"], "--first-cell takes ROW,COL"),
    ],
)
def test_cli_bad_input_gives_a_clear_error(extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["eval", "--workers", "1", "--no-progress", *extra], capsys)
    assert status == 2 and message in err and "Traceback" not in err


def test_cli_plays_no_guess_boards(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", "--agent", "solver", "--preset", "beginner", "--boards", "no-guess", "--games", "8",
            "--workers", "1", "--no-progress"]  # fmt: skip
    status, out, _ = run_cli(argv, capsys)
    assert status == 0 and "9x9-10-opening-no-guess-8-seed0" in out and "| solver | 8 | 100.0% |" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--suite", "beginner-no-guess-1k", "--boards", "no-guess"], "drop --boards"),
        (["--boards", "no_guess"], "invalid choice: 'no_guess'"),
        (["--boards", "no-guess", "--first-click", "safe"], "use first_click='opening'"),
        (["--boards", "no-guess", "--preset", "expert", "--mines", "150", "--games", "1000000"], "too dense"),
    ],
)
def test_cli_refuses_bad_no_guess_options(extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["eval", "--agent", "solver", "--workers", "1", "--no-progress", *extra], capsys)
    assert status == 2 and message in err and "Traceback" not in err


RUN = ["eval", "--agent", "solver", "--agent", "random", "--rows", "5", "--cols", "5", "--mines", "3", "--games", "6",
       "--workers", "1", "--no-progress"]  # fmt: skip


def test_a_named_log_is_kept_and_a_working_log_beside_the_report_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, report = tmp_path / "games.jsonl", tmp_path / "out.json"
    status, first, _ = run_cli([*RUN, "--log", str(log)], capsys)
    assert status == 0 and log.read_text().count("\n") == 1 + 12
    status, _, _ = run_cli([*RUN, "--json", str(report)], capsys)
    assert status == 0 and report.is_file() and not (tmp_path / "out.games.jsonl").exists()
    before = log.read_text()
    status, again, _ = run_cli([*RUN, "--resume", str(log)], capsys)
    assert status == 0 and log.read_text() == before and again == first  # every game read back, none played


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--games", "7"], "is the log of another run (suite: "),
        (["--no-oracle"], "is the log of another run (oracle: true in the log, false now)"),
        (["--agent", "rules"], "is the log of another run (agents: "),
    ],
)
def test_a_resume_with_other_options_is_refused_in_one_line(
    change: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "games.jsonl"
    assert run_cli([*RUN, "--games", "2", "--log", str(log)], capsys)[0] == 0
    status, _, err = run_cli([*RUN, "--games", "2", *change, "--resume", str(log)], capsys)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--resume", "nowhere.jsonl"], "--resume nowhere.jsonl: no such game log"),
        (["--log", "a.jsonl", "--resume", "b.jsonl"], "--resume LOG continues that log: drop --log"),
        (["--log", "no/such/folder/a.jsonl"], "--log no/such/folder/a.jsonl: the folder no/such/folder does not exist"),
    ],
)
def test_bad_log_options_are_one_line(extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli([*RUN, *extra], capsys)
    assert status == 2 and message in err and "Traceback" not in err


def test_a_run_over_a_log_of_games_is_refused_rather_than_losing_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "games.jsonl"
    assert run_cli([*RUN, "--games", "2", "--log", str(log)], capsys)[0] == 0
    status, _, err = run_cli([*RUN, "--games", "2", "--log", str(log)], capsys)
    assert status == 2 and f"already holds a run: continue it with --resume {log}" in err

"""studies/leaderboard.py: docs/RESULTS.md is what its records give, short, and every row names a record and a run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import leaderboard  # noqa: E402

INDEX = json.loads(leaderboard.INDEX.read_text())


def test_the_committed_leaderboard_is_what_its_records_give() -> None:
    assert leaderboard.main(["--check"]) == 0, "docs/RESULTS.md is stale: run `python studies/leaderboard.py`"


def test_the_page_is_short_and_its_tables_small() -> None:
    page = leaderboard.RESULTS.read_text()
    assert page.count("\n") <= 400
    assert all(len(table["rows"]) <= 12 for table in INDEX["tables"])


def test_every_row_cites_a_run_and_every_model_its_card() -> None:
    for table in INDEX["tables"]:
        for row in table["rows"]:
            assert row["run"] in INDEX["runs"], row
    for name, model in INDEX["models"].items():
        assert (ROOT / model["card"]).exists(), name
    for page in (INDEX["lab"], INDEX["lab_rows"]):
        assert (ROOT / "docs" / page).is_file(), page


def test_a_figure_is_read_from_its_record() -> None:
    row = {"record": "beginner-opening-10k-random-rules.json", "agent": "rules"}
    figure = leaderboard.read_figure(row)
    record = json.loads((leaderboard.RECORDS / row["record"]).read_text())
    rules = next(result for result in record["results"] if result["agent"] == "rules")
    assert (figure.games, figure.wins) == (rules["games"], rules["wins"])
    assert [figure.low, figure.high] == rules["ci95"]


def test_a_battle_figure_is_taken_from_the_agents_side() -> None:
    row = {"record": "battle/16x16-51-2000.json", "agent": "random"}
    figure = leaderboard.read_figure(row, against="greedy")
    assert figure.wins == 0 and figure.games == 4000 and figure.rating is not None and figure.rating < 0
    assert figure.low == pytest.approx(0.0) and 0.0 < figure.high < 0.01


def test_a_stale_page_fails_the_check_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "RESULTS.md"
    stale.write_text(leaderboard.RESULTS.read_text().replace("| `rules` |", "| `rules (edited)` |", 1))
    assert leaderboard.main(["--check", "--out", str(stale)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_a_row_its_record_lacks_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = json.loads(json.dumps(INDEX))
    index["tables"][0]["rows"][0]["agent"] = "no-such-agent"
    path = tmp_path / "leaderboard.json"
    path.write_text(json.dumps(index))
    assert leaderboard.main(["--index", str(path), "--out", str(tmp_path / "out.md")]) == 2
    err = capsys.readouterr().err
    assert "no-such-agent" in err and err.count("\n") == 1
    assert not (tmp_path / "out.md").exists()

"""studies/plot_leaderboard.py: the board tables of docs/RESULTS.md read back as rows, and the plot drawn."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import plot_leaderboard  # noqa: E402

PAGE = """
## Beginner (9x9, 10 mines): beginner-opening-10k

| agent | win rate | 95% CI | games | command | date | machine |
| --- | ---: | ---: | ---: | --- | --- | --- |
| solver | 97.0% | 96.6% - 97.3% | 10,000 | [B1](#b1) | 2026-11-24 | sandbox |
| `models/x` | 0.5% | 0.4% - 0.7% | 10,000 | [B2](#b2) | 2026-11-24 | sandbox |
| not measured yet | - | - | | | | |

## No-guess boards

| agent | win rate | 95% CI |
| --- | ---: | ---: |
| solver | 100.0% | 100.0% - 100.0% |
"""


def test_the_board_tables_are_read_and_other_tables_left_out() -> None:
    tables = plot_leaderboard.read_tables(PAGE)
    assert list(tables) == ["Beginner"]
    assert tables["Beginner"] == [
        plot_leaderboard.Row("solver", 97.0, 96.6, 97.3),
        plot_leaderboard.Row("models/x", 0.5, 0.4, 0.7),
    ]


def test_the_leaderboard_of_the_repository_has_every_board() -> None:
    tables = plot_leaderboard.read_tables((ROOT / "docs" / "RESULTS.md").read_text())
    assert set(tables) == {"Beginner", "Intermediate", "Expert"}
    for rows in tables.values():
        assert any(row.agent == "solver" for row in rows)
        assert all(row.low <= row.win_rate <= row.high for row in rows)


@pytest.mark.slow
def test_the_plot_is_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "leaderboard.png"
    assert plot_leaderboard.main(["--out", str(out)]) == 0
    assert out.stat().st_size > 10_000


def test_a_missing_page_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert plot_leaderboard.main(["--results", str(tmp_path / "nope.md")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1

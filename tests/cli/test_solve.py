"""``minesweeper solve``: a position's mine chances and the recommended move, clear errors for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from minesweeper_cli.main import main

POSITION = """\
mines: 2
# (1,3) = 1 and (1,1) - (1,0) force (0,2) safe, so (0,3) is a mine, then (0,1) safe and (0,0) a mine
. . . .
1 1 1 1
0 0 0 0
"""


def test_solve_prints_probabilities_and_a_certain_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "position.txt"
    board.write_text(POSITION)
    assert main(["solve", str(board)]) == 0
    out = capsys.readouterr().out
    assert "   0 100%   0%   0% 100%" in out
    assert "recommended move: reveal (0, 1), certain" in out or "recommended move: reveal (0, 2), certain" in out


def test_solve_reports_an_inconsistent_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "bad.txt"
    board.write_text("mines: 1\n. 3\n0 0\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["solve", str(board)])
    assert exit_info.value.code == 2
    assert f"error: {board}: no layout of 1 mine fits this position: the 3 at (0, 1)" in capsys.readouterr().err


def test_an_impossible_mine_total_names_the_file_and_the_exact_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = tmp_path / "eight.txt"
    board.write_text("mines: 8\n. . 1 0\n. . 1 0\n1 1 1 0\n0 0 0 0\n")
    with pytest.raises(SystemExit):
        main(["solve", str(board)])
    err = capsys.readouterr().err
    assert f"{board}: no layout of 8 mines fits" in err
    assert "the numbers need exactly 1 mine on the 3 hidden cells they touch" in err and "between" not in err


def test_the_shipped_example_position_is_solved(capsys: pytest.CaptureFixture[str]) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "beginner-position.txt"
    assert main(["solve", str(example)]) == 0
    out = capsys.readouterr().out
    assert "certainly safe: 0  certain mines: 4  hidden: 20  mines: 10" in out
    assert "recommended move: reveal (" in out and "a guess, mine chance" in out


def test_solve_names_a_malformed_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "malformed.txt"
    board.write_text("mines: 1\n. ?\n")
    with pytest.raises(SystemExit):
        main(["solve", str(board)])
    err = capsys.readouterr().err
    assert "malformed.txt" in err and "unknown cell character" in err


def test_solve_a_missing_file_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["solve", "no-such-board.txt"])
    assert "no-such-board.txt" in capsys.readouterr().err

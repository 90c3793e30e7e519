"""``minesweeper bot``: every bad set-up ends in one clear line (exit status 2), never a traceback."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from screen_bot import launcher
from screen_bot.programs import PROGRAMS, XDEMINEUR
from support import run_cli


def assert_refused(argv: list[str], capsys: pytest.CaptureFixture[str], *expected: str) -> None:
    status, out, err = run_cli(["bot", *argv], capsys)
    assert status == 2
    assert "Traceback" not in err and out == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith("minesweeper bot: error: ")
    for words in expected:
        assert words in last


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--program", "winmine"], "invalid choice: 'winmine'"),
        (["--program", "xdemineur", "--preset", "beginner"],
         "xdemineur has no preset 'beginner'; expected one of: intermediate, expert"),
        (["--program", "sgt-mines", "--games", "0"], "--games must be at least 1, got 0"),
        (["--program", "sgt-mines", "--seed", "-3"], "--seed must be a non-negative integer"),
        (["--program", "sgt-mines", "--json", "/no/such/folder/out.json"], "the folder /no/such/folder does not exist"),
        (["--program", "xdemineur", "--display", "nonsense"], "is not an X display name"),
    ],
)  # fmt: skip
def test_bad_options_are_refused_before_anything_starts(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused(argv, capsys, expected)


def test_a_missing_program_names_the_apt_get_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(PROGRAMS, "xdemineur", dataclasses.replace(XDEMINEUR, executable="/no/such/xdemineur"))
    assert_refused(["--program", "xdemineur"], capsys, "xdemineur is not installed", "apt-get install xdemineur")


def test_a_missing_xvfb_names_the_apt_get_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if not Path(XDEMINEUR.executable).exists():
        pytest.skip("xdemineur is not installed (the program is checked before the display)")
    monkeypatch.setattr("screen_bot.display.shutil.which", lambda name: None)
    assert_refused(["--program", "xdemineur"], capsys, "Xvfb is not installed: apt-get install xvfb")


def test_a_display_that_cannot_be_opened_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("Xlib", reason="the screen extra (python-xlib) is not installed")
    if not Path(XDEMINEUR.executable).exists():
        pytest.skip("xdemineur is not installed (the program is checked before the display)")
    assert_refused(["--program", "xdemineur", "--display", ":987"], capsys,
                   "cannot open the X display ':987'", "leave --display out")  # fmt: skip


def test_a_window_that_never_appears_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("mss", reason="the screen extra (mss) is not installed")
    pytest.importorskip("Xlib", reason="the screen extra (python-xlib) is not installed")
    if shutil.which("Xvfb") is None or not Path(XDEMINEUR.executable).exists():
        pytest.skip("Xvfb or xdemineur is not installed")
    monkeypatch.setitem(PROGRAMS, "xdemineur", dataclasses.replace(XDEMINEUR, title="no such window"))
    monkeypatch.setattr(launcher, "WINDOW_TIMEOUT_S", 1.0)
    assert_refused(["--program", "xdemineur", "--screenshots", str(tmp_path)], capsys,
                   "the window 'no such window' of xdemineur was not found on display")  # fmt: skip


def test_a_short_run_prints_the_boards_it_reads_and_writes_the_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("mss", reason="the screen extra (mss) is not installed")
    pytest.importorskip("Xlib", reason="the screen extra (python-xlib) is not installed")
    if shutil.which("Xvfb") is None or not Path(PROGRAMS["sgt-mines"].executable).exists():
        pytest.skip("Xvfb or sgt-mines is not installed")
    report = tmp_path / "bot.json"
    status, out, err = run_cli(["bot", "--program", "sgt-mines", "--preset", "beginner", "--games", "1", "--seed", "4",
                                "--watch", "--json", str(report)], capsys)  # fmt: skip
    assert status == 0, err
    assert "........." in out  # the first board read: nine covered cells in a row
    assert "game 1 [4-0]: won" in out and "sgt-mines beginner 9x9/10: won 1/1 = 100.0%" in out
    data = json.loads(report.read_text())
    entry = data["results"][0]
    assert (entry["games"], entry["wins"], entry["misread_cells"], entry["unread_games"]) == (1, 1, 0, 0)
    assert data["suite"]["program"] == "sgt-mines" and data["games"][0]["id"] == "4-0"

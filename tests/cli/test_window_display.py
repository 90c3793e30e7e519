"""The screen under the window: no display is refused at once, with one line, before pygame starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from minesweeper_cli.apps.window_display import check_display, open_display
from minesweeper_cli.main import main

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("environ", "platform"),
    [
        ({"DISPLAY": ":0"}, "linux"),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux"),
        ({"SDL_VIDEODRIVER": "dummy"}, "linux"),
        ({"SDL_VIDEODRIVER": "kmsdrm"}, "linux"),
        ({}, "darwin"),
        ({}, "win32"),
    ],
)
def test_a_display_or_a_chosen_video_driver_lets_the_window_open(environ, platform):
    check_display(environ, platform)


@pytest.mark.parametrize(
    "environ", [{}, {"DISPLAY": ""}, {"SDL_VIDEODRIVER": "x11"}, {"SDL_VIDEODRIVER": "wayland,x11"}]
)
def test_no_display_is_refused_before_pygame_starts(environ):
    with pytest.raises(ValueError, match=r"no display to open the window on \(DISPLAY and WAYLAND_DISPLAY are unset\)"):
        check_display(environ, "linux")


class HeadlessDisplay:
    """A stand-in for pygame.display whose SDL fell back to a driver that draws off screen."""

    def __init__(self, driver: str) -> None:
        self.driver, self.started = driver, False

    def init(self) -> None:
        self.started = True

    def get_driver(self) -> str:
        return self.driver

    def quit(self) -> None:
        self.started = False


def test_sdl_falling_back_to_an_off_screen_driver_is_refused_unless_asked_for():
    fake = type("FakePygame", (), {"display": HeadlessDisplay("offscreen"), "error": RuntimeError})()
    with pytest.raises(ValueError, match="SDL fell back to its 'offscreen' video driver"):
        open_display(fake, {})
    assert not fake.display.started
    open_display(fake, {"SDL_VIDEODRIVER": "offscreen"})
    assert fake.display.started


def test_play_gui_without_a_display_exits_at_once_with_one_line(monkeypatch, capsys):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    with pytest.raises(SystemExit) as exit_info:
        main(["play", "--gui"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        "minesweeper play: error: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset): play "
        "in the terminal without --gui, or run it in a desktop session (over ssh: ssh -X)\n"
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the display variables are those of X11 and Wayland")
def test_the_command_without_a_display_ends_with_code_2_and_one_line():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-m", "minesweeper_cli.main", "play", "--gui"], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "no display to open the window on" in result.stderr



"""The bot against the real programs, each in a private Xvfb: the window, the grid, the reading, whole games.

Skipped, with the reason, where Xvfb, a program or the ``screen`` extra is missing (``make install-dev``
installs them on Debian).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mss", reason="the screen extra (mss) is not installed")
pytest.importorskip("Xlib", reason="the screen extra (python-xlib) is not installed")

from mine_env.engine.board import Board
from mine_env.engine.constants import HIDDEN
from screen_bot.capture import Camera
from screen_bot.cells import EXPLODED
from screen_bot.crosscheck import layout_complete, misread_cells
from screen_bot.display import connect, virtual_display
from screen_bot.pointer import Pointer
from screen_bot.programs import SGT_MINES, XDEMINEUR
from screen_bot.reader import BoardReader
from screen_bot.runner import BotConfig, play_games
from screen_bot.window import find_window, window_box

if shutil.which("Xvfb") is None:
    pytest.skip("Xvfb is not installed (apt-get install xvfb)", allow_module_level=True)

needs_sgt = pytest.mark.skipif(not Path(SGT_MINES.executable).exists(), reason="sgt-mines is not installed")
needs_xdemineur = pytest.mark.skipif(not Path(XDEMINEUR.executable).exists(), reason="xdemineur is not installed")

# A 9x9 layout whose numbers run from 1 to 8 (the start opens 1, 2 and 3; the cells in CLICKS show the rest).
#   * * * . * * * . .
#   * . * . * . * . .
#   * * * . * * . . .
#   * . . . * * * . .
#   * . * . * . * . .
#   * * * . . . . . .
#   * * . . . . . . .
#   * . . . . . . . .
#   . . . . . . . . .
MINES = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2),
         (0, 4), (0, 5), (0, 6), (1, 4), (1, 6), (2, 4), (2, 5),
         (3, 0), (3, 4), (3, 5), (3, 6), (4, 0), (4, 2), (4, 4), (4, 6),
         (5, 0), (5, 1), (5, 2), (6, 0), (6, 1), (7, 0)]  # fmt: skip
START = (8, 8)
CLICKS = [(1, 1), (1, 5), (4, 1), (4, 5), (2, 6), (7, 1)]  # 8, 7, 6, 5, 4, and one the start opened


def layout() -> np.ndarray:
    grid = np.zeros((9, 9), dtype=bool)
    grid[tuple(np.array(MINES).T)] = True
    return grid


def sgt_game_id(mines: np.ndarray, start: tuple[int, int]) -> str:
    """sgt-mines' descriptive game id of a layout: size, the start cell (x,y) it opens, the mines in hex."""
    rows, cols = mines.shape
    bits = "".join("1" if m else "0" for m in mines.ravel())
    bits += "0" * (-len(bits) % 4)
    digits = "".join(f"{int(bits[i : i + 4], 2):x}" for i in range(0, len(bits), 4))
    return f"{cols}x{rows}:{start[1]},{start[0]},u{digits}"


@pytest.fixture(scope="module")
def display_name() -> Iterator[str]:
    with virtual_display() as name:
        yield name


@pytest.fixture
def sgt_window(display_name: str) -> Iterator[tuple[object, Pointer, Camera, object]]:
    """sgt-mines showing the layout above, its start opened, with the display, pointer, camera and window."""
    env = {**os.environ, "DISPLAY": display_name}
    process = subprocess.Popen([SGT_MINES.executable, sgt_game_id(layout(), START)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    display = connect(display_name)
    camera = Camera(display_name)
    try:
        window = find_window(display, SGT_MINES.title, timeout_s=10)
        yield display, Pointer(display), camera, window
    finally:
        process.terminate()
        process.wait(timeout=5)
        camera.close()
        display.close()


def test_the_virtual_display_starts_and_is_gone_afterwards() -> None:
    with virtual_display() as name:
        connect(name).close()
        number = name.lstrip(":")
        assert Path(f"/tmp/.X11-unix/X{number}").exists()
    deadline = time.monotonic() + 5
    while Path(f"/tmp/.X11-unix/X{number}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/tmp/.X11-unix/X{number}").exists()


@needs_sgt
def test_sgt_mines_board_is_read_cell_for_cell_fresh_after_clicks_and_after_a_loss(sgt_window) -> None:
    display, pointer, camera, window = sgt_window
    reader = BoardReader(camera, pointer, SGT_MINES, window_box(display, window), 9, 9)
    assert reader.grid.pitch == 20
    truth = Board.from_layout(layout())
    truth.reveal(*START)
    fresh = reader.settled().codes
    np.testing.assert_array_equal(fresh, truth.grid)  # the opened start, every other cell covered
    clicked = []
    for cell in CLICKS:
        pointer.click(*reader.click_point(*cell))
        if truth.grid[cell] == HIDDEN:  # not opened already by an earlier click's flood
            truth.reveal(*cell)
            clicked.append(cell)
    played = reader.settled(fresh, clicked).codes
    np.testing.assert_array_equal(played, truth.grid)
    assert set(range(1, 9)) <= set(played.ravel().tolist())  # every number's colour was read
    pointer.click(*reader.click_point(0, 1))  # a mine
    lost = reader.settled(played, [(0, 1)]).codes
    assert lost[0, 1] == EXPLODED
    for key in SGT_MINES.reveal_all_keys:  # the Solve command shows every mine
        pointer.key(key)
        time.sleep(0.05)
    final = reader.settled(lost, until=lambda codes: layout_complete(codes, False, len(MINES))).codes
    assert layout_complete(final, won=False, mines=len(MINES))
    assert misread_cells(played, final, won=False) == []


@needs_sgt
def test_one_sgt_mines_game_is_played_to_a_win(display_name: str, tmp_path: Path) -> None:
    config = BotConfig(SGT_MINES, "beginner", 1, seed=7, display=display_name, screenshots=tmp_path)
    (result,) = play_games(config)
    assert result.outcome == "won"  # its boards need no guess
    assert result.misread == [] and result.clicks >= 1 and result.game_id == "7-0"


@needs_xdemineur
def test_one_xdemineur_game_is_played_to_its_end_and_cross_checked(display_name: str, tmp_path: Path) -> None:
    config = BotConfig(XDEMINEUR, "intermediate", 1, seed=3, display=display_name, screenshots=tmp_path)
    (result,) = play_games(config)
    assert result.outcome in ("won", "lost")
    assert result.misread == []
    assert not any(tmp_path.iterdir())  # no unreadable picture saved


@needs_xdemineur
def test_xdemineur_repeats_its_opening_for_the_same_seed(display_name: str) -> None:
    from screen_bot.launcher import RunningProgram

    display = connect(display_name)
    camera = Camera(display_name)
    openings = []
    try:
        for seed in (11, 11, 12):
            running = RunningProgram(XDEMINEUR, display, display_name, "intermediate", seed)
            try:
                reader = BoardReader(camera, Pointer(display), XDEMINEUR, running.box(), 16, 16)
                openings.append(reader.settled().codes)
            finally:
                running.stop()
    finally:
        camera.close()
        display.close()
    assert running.seeded
    assert (openings[0] >= 0).any()  # xdemineur opened a region by itself
    np.testing.assert_array_equal(openings[0], openings[1])
    assert not np.array_equal(openings[0], openings[2])

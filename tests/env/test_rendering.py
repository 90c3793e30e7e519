"""Every render mode of the env on the hand board: text with coordinates, RGB images, a (headless) window.

The hand board of conftest.py:

      0 1 2 3 4          counts:  0 1 2 3 4
   0  * . . . .                0  * 2 1 1 0
   1  . . * . .                1  1 2 * 1 0
   2  . . . . .                2  0 1 1 2 1
   3  . . . . *                3  0 0 0 1 *
"""

from __future__ import annotations

import numpy as np
import pytest

from mine_env.rendering import NUMBER_COLOURS, render_rgb
from support import cell, flag, grid_from_rows, make_hand_env


def tile(frame: np.ndarray, row: int, col: int, cell_px: int) -> np.ndarray:
    return frame[row * cell_px : (row + 1) * cell_px, col * cell_px : (col + 1) * cell_px]


def has_colour(image: np.ndarray, colour: tuple[int, int, int]) -> bool:
    return bool((image == np.array(colour, dtype=np.uint8)).all(axis=-1).any())


def test_ansi_shows_coordinates_counts_and_flags() -> None:
    env = make_hand_env(flags=True, render_mode="ansi")
    env.step(cell(3, 0))
    env.step(flag(0, 0))
    lines = env.render().splitlines()
    assert lines[0].split() == ["0", "1", "2", "3", "4"]
    assert [line.split()[0] for line in lines[1:]] == ["0", "1", "2", "3"]
    assert lines[1].split()[1:] == ["F", ".", ".", ".", "."]
    assert lines[2].split()[1:] == ["1", "2", ".", ".", "."]
    assert lines[4] == "3 " + "  " * 3 + "1 ."  # zeros are blank


def test_ansi_shows_every_mine_once_the_game_is_lost() -> None:
    env = make_hand_env(render_mode="ansi")
    env.step(cell(3, 4))
    lines = env.render().splitlines()
    assert lines[4].split()[-1] == "X"  # the mine that was hit
    assert lines[1].split()[1] == "*" and lines[2].split()[3] == "*"  # the others
    playing = make_hand_env(render_mode="ansi")
    assert "*" not in playing.render()  # never before the end


def test_rgb_array_is_a_uint8_image_of_the_right_size_that_follows_the_game() -> None:
    env = make_hand_env(render_mode="rgb_array", cell_px=16)
    before = env.render()
    assert before.dtype == np.uint8 and before.shape == (4 * 16, 5 * 16, 3)
    env.step(cell(3, 0))
    assert not np.array_equal(before, env.render())


def test_each_number_is_drawn_in_its_own_colour() -> None:
    env = make_hand_env(render_mode="rgb_array", cell_px=24)
    env.step(cell(3, 0))  # opens a 1 at (1,0), a 2 at (1,1), a 0 at (2,0)
    frame = env.render()
    one, two, zero = tile(frame, 1, 0, 24), tile(frame, 1, 1, 24), tile(frame, 2, 0, 24)
    assert NUMBER_COLOURS[1] != NUMBER_COLOURS[2]
    assert has_colour(one, NUMBER_COLOURS[1]) and not has_colour(one, NUMBER_COLOURS[2])
    assert has_colour(two, NUMBER_COLOURS[2]) and not has_colour(two, NUMBER_COLOURS[1])
    assert not any(has_colour(zero, colour) for colour in NUMBER_COLOURS.values())
    hidden = tile(frame, 0, 4, 24)
    assert not np.array_equal(hidden, zero)


def test_render_rgb_refuses_cells_too_small_for_digits() -> None:
    with pytest.raises(ValueError, match="cell_px must be at least 8"):
        render_rgb(grid_from_rows(". .", ". ."), cell_px=4)


def test_human_mode_draws_into_a_headless_window(monkeypatch: pytest.MonkeyPatch) -> None:
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    env = make_hand_env(render_mode="human", cell_px=12)
    env.step(cell(3, 0))
    assert pygame.display.get_surface().get_size() == (5 * 12, 4 * 12)
    assert env.render() is None
    env.close()
    assert not pygame.display.get_init()


def test_human_mode_opens_no_sound_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """The window needs no sound: starting pygame's audio printed ALSA and XDG_RUNTIME_DIR errors under check_env."""
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")  # a sound device that always opens, had it been asked for
    env = make_hand_env(render_mode="human", cell_px=12)
    env.step(cell(3, 0))
    try:
        assert pygame.display.get_init() and not pygame.mixer.get_init()
    finally:
        env.close()

"""The pygame window, driven headless (SDL's dummy video driver) with posted mouse and key events."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import numpy as np
import pytest

from mine_env.engine.board import Board, layout_key
from mine_env.engine.constants import FLAG, HIDDEN
from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv
from mine_env.rendering import (
    MINE_HINT_COLOUR,
    REVEALED_COLOUR,
    RISKY_HINT_COLOUR,
    SAFE_HINT_COLOUR,
    hint_colour,
    render_rgb,
)
from minesweeper_cli.gui import LOST_COLOUR, WON_COLOUR, GameWindow, run_window
from minesweeper_cli.session import GameSession

pygame = pytest.importorskip("pygame")

BEGINNER = BoardSpec(9, 9, 10, "opening")
SEED = 3
START = (4, 4)
CELL_PX = 24


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def window():
    clock = FakeClock()
    window = GameWindow(GameSession(BEGINNER, seed=SEED, clock=clock), cell_px=CELL_PX, delay=0.5, clock=clock)
    window.fake_clock = clock
    yield window
    window.close()


def click(window: GameWindow, pos: tuple[int, int], button: int = 1) -> None:
    """Post a press and a release at ``pos``, then run one frame of the loop."""
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        pygame.event.post(pygame.event.Event(kind, pos=pos, button=button))
    frame(window)


def frame(window: GameWindow) -> None:
    """One pass of the window's loop: events, auto play, drawing."""
    for event in pygame.event.get():
        window.handle(event)
    window.update()
    window.draw()


def board_pixels(window: GameWindow) -> np.ndarray:
    """The board part of the window as an RGB array (rows, cols, 3)."""
    return pygame.surfarray.array3d(window.screen.subsurface(window.board_rect)).transpose(1, 0, 2)


def cell_pixels(window: GameWindow, row: int, col: int) -> np.ndarray:
    px = window.cell_px
    return board_pixels(window)[row * px : (row + 1) * px, col * px : (col + 1) * px]


def seeded_layout() -> np.ndarray:
    board = Board(BEGINNER, layout_key(SEED))
    board.reveal(*START)
    return board.layout


def test_clicks_reveal_and_flag_and_the_board_is_drawn_as_render_rgb(window, tmp_path):
    click(window, window.cell_centre(*START))
    session = window.session
    assert session.grid[START] == 0 and session.status == "playing"
    hidden = tuple(int(v) for v in np.argwhere(session.grid == HIDDEN)[0])
    click(window, window.cell_centre(*hidden), button=3)
    assert session.grid[hidden] == FLAG and session.mines_left == 9
    np.testing.assert_array_equal(board_pixels(window), render_rgb(session.grid, None, CELL_PX))
    shot = tmp_path / "board.png"
    pygame.image.save(window.screen, str(shot))
    image = pygame.surfarray.array3d(pygame.image.load(str(shot))).transpose(1, 0, 2)
    top, left = window.board_rect.top, window.board_rect.left
    centre = image[top + START[0] * CELL_PX + 3, left + START[1] * CELL_PX + 3]
    assert tuple(centre) == REVEALED_COLOUR
    flag_cell = image[top + hidden[0] * CELL_PX : top + (hidden[0] + 1) * CELL_PX,
                      left + hidden[1] * CELL_PX : left + (hidden[1] + 1) * CELL_PX]  # fmt: skip
    assert ((flag_cell == (255, 0, 0)).all(axis=2)).sum() > 5  # the red of the flag


def test_a_seeded_game_clicked_to_a_win_and_to_a_loss(window):
    layout = seeded_layout()
    click(window, window.cell_centre(*START))
    session = window.session
    for row, col in np.argwhere(~layout):
        if session.grid[row, col] == HIDDEN:
            click(window, window.cell_centre(int(row), int(col)))
    assert session.status == "won"
    status = pygame.surfarray.array3d(window.screen).transpose(1, 0, 2)[window.status_top : window.status_top + 18]
    assert (status == WON_COLOUR).all(axis=2).any()
    click(window, window.button("new").rect.center)
    assert session.status == "ready" and session.games == 2
    click(window, window.cell_centre(*START))
    mine = tuple(int(v) for v in np.argwhere(session.board.layout & (session.grid == HIDDEN))[0])
    click(window, window.cell_centre(*mine))
    assert session.status == "lost" and session.lost_cell == mine
    status = pygame.surfarray.array3d(window.screen).transpose(1, 0, 2)[window.status_top : window.status_top + 18]
    assert (status == LOST_COLOUR).all(axis=2).any()


def test_the_ai_move_button_plays_one_solver_move(window):
    click(window, window.button("ai").rect.center)
    session = window.session
    assert [(move.by, move.kind) for move in session.moves] == [("solver", "reveal")]
    assert session.moves[0].certain and "solver reveals" in session.message


def test_the_ai_move_button_and_auto_play_use_the_agent(window):
    class FirstHidden:
        name = "first-hidden"

        def reset(self) -> None:
            pass

        def act(self, obs, info):
            return int(np.flatnonzero(info["action_mask"])[0])

    window.session = GameSession(BEGINNER, seed=SEED, agent=FirstHidden(), clock=window.fake_clock)
    click(window, window.button("ai").rect.center)
    assert window.session.moves[0].by == "first-hidden" and window.session.status == "playing"
    click(window, window.button("auto").rect.center)
    assert window.auto
    played = len(window.session.moves)
    frame(window)  # the delay has not passed: no move yet
    assert len(window.session.moves) == played
    for _ in range(200):
        window.fake_clock.now += 0.5
        frame(window)
        if window.session.is_over:
            break
    assert window.session.is_over and len(window.session.moves) > played


def test_hints_tint_the_frontier_by_mine_chance(window):
    click(window, window.cell_centre(*START))
    click(window, window.button("hints").rect.center)
    assert window.show_hints
    hints = window.session.frontier_hints()
    if hints is None:
        pytest.fail(f"no hints: {window.session.message}")
    chances = hints[0]
    for target, colour in ((0.0, SAFE_HINT_COLOUR), (1.0, MINE_HINT_COLOUR)):
        cells = np.argwhere(chances == target)
        if len(cells):
            middle = cell_pixels(window, *cells[0])[CELL_PX // 2, 4].astype(int)
            assert np.abs(middle - colour).sum() < np.abs(middle - (189, 189, 189)).sum()
    plain = render_rgb(window.session.grid, None, CELL_PX)
    frontier = np.isnan(chances) == False  # noqa: E712
    assert (board_pixels(window) != plain).any(axis=2).any()
    off = ~frontier & (window.session.grid == HIDDEN)
    if off.any():
        row, col = np.argwhere(off)[0]
        np.testing.assert_array_equal(cell_pixels(window, row, col), plain[row * CELL_PX : (row + 1) * CELL_PX,
                                                                          col * CELL_PX : (col + 1) * CELL_PX])


def test_a_preset_button_resizes_the_board_and_the_window(window):
    click(window, window.button("preset:expert").rect.center)
    assert window.session.grid.shape == (16, 30)
    assert window.screen.get_size()[0] >= 30 * CELL_PX and window.board_rect.height == 16 * CELL_PX
    click(window, window.cell_centre(15, 29))
    assert window.session.status == "playing"


def test_bad_input_changes_nothing(window):
    before = window.session.grid.copy()
    width, height = window.screen.get_size()
    for pos in [(width - 2, 2), (-5, -5), (width + 50, height + 50), (2, window.board_rect.top - 2)]:
        click(window, pos)
        click(window, pos, button=3)
    click(window, window.cell_centre(0, 0), button=7)
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F5, mod=0, unicode=""))
    frame(window)
    assert (window.session.grid == before).all() and window.running
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    frame(window)
    assert not window.running


def test_random_clicks_and_keys_never_crash_the_window(window):
    rng = np.random.default_rng(0)
    width, height = window.screen.get_size()
    for _ in range(150):
        if rng.random() < 0.85:
            pos = (int(rng.integers(-10, width + 10)), int(rng.integers(-10, height + 10)))
            click(window, pos, button=int(rng.integers(1, 6)))
        else:
            key = int(rng.choice([pygame.K_n, pygame.K_a, pygame.K_t, pygame.K_h, pygame.K_z, pygame.K_F1]))
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode=""))
            frame(window)
        window.fake_clock.now += 0.3
        width, height = window.screen.get_size()  # a preset button may have resized the window
    assert window.running


def test_the_window_loop_ends_when_the_window_is_closed():
    pygame.display.init()
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    run_window(GameSession(BEGINNER, seed=SEED), cell_px=CELL_PX)
    assert not pygame.display.get_init()


def test_hint_colours_run_from_safe_green_through_yellow_to_mine_red():
    assert hint_colour(0.0) == SAFE_HINT_COLOUR and hint_colour(0.5) == RISKY_HINT_COLOUR
    assert hint_colour(1.0) == MINE_HINT_COLOUR and hint_colour(7.0) == MINE_HINT_COLOUR
    reds = [hint_colour(p)[0] for p in np.linspace(0, 0.5, 6)]
    assert reds == sorted(reds)
    with pytest.raises(ValueError, match="hints must have the grid's shape"):
        render_rgb(np.full((3, 3), -1, np.int8), hints=np.zeros((2, 3)))


def test_the_env_human_render_draws_what_render_rgb_draws():
    env = MinesweeperEnv(rows=6, cols=7, mines=5, render_mode="human")
    try:
        env.reset(seed=0)
        env.step(0)
        shown = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
        np.testing.assert_array_equal(shown, render_rgb(env.board.grid, None, env.cell_px))
    finally:
        env.close()

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
from minesweeper_cli.apps import gui
from minesweeper_cli.apps.gui import LOST_COLOUR, WON_COLOUR, GameWindow, run_window
from minesweeper_cli.apps.hints import SAMPLE_CHANCE, percent
from minesweeper_cli.apps.session import GameSession
from minesweeper_cli.apps.window_layout import LEGEND_HEIGHT, MARGIN, SCREEN_RESERVE, TEXT_HEIGHT, TITLE_BAR_PX
from minesweeper_cli.main import main

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
    window.tick()
    window.draw()


def board_pixels(window: GameWindow) -> np.ndarray:
    """The board part of the window as an RGB array (rows, cols, 3)."""
    return pygame.surfarray.array3d(window.screen.subsurface(window.board_rect)).transpose(1, 0, 2)


def cell_pixels(window: GameWindow, row: int, col: int) -> np.ndarray:
    px = window.cell_px
    return board_pixels(window)[row * px : (row + 1) * px, col * px : (col + 1) * px]


def message_line(window: GameWindow) -> np.ndarray:
    """The pixels of the second text line above the board: the message, or who won at the end."""
    top = window.status_top + TEXT_HEIGHT
    return pygame.surfarray.array3d(window.screen).transpose(1, 0, 2)[top : top + TEXT_HEIGHT - 2]


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
    assert (message_line(window) == WON_COLOUR).all(axis=2).any()
    counters, outcome = (text for text, _ in window.status_lines())
    assert counters.startswith("Mines left: 0    Time: ") and outcome.startswith("You won in ")
    click(window, window.button("new").rect.center)
    assert session.status == "ready" and session.games == 2
    click(window, window.cell_centre(*START))
    mine = tuple(int(v) for v in np.argwhere(session.board.layout & (session.grid == HIDDEN))[0])
    click(window, window.cell_centre(*mine))
    assert session.status == "lost" and session.lost_cell == mine
    assert (message_line(window) == LOST_COLOUR).all(axis=2).any()
    assert window.status_lines()[1] == (f"You lost: a mine at {mine}", LOST_COLOUR)


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
    frame(window)
    assert not window.auto  # auto play stops with the game
    owner = "The first-hidden agent" if window.session.moves[-1].by == "first-hidden" else "You"
    assert window.status_lines()[1][0].startswith(f"{owner} {window.session.status}")


def test_a_new_game_or_a_preset_starts_with_auto_play_off(window):
    window.session = GameSession(BEGINNER, seed=SEED, mode="auto", clock=window.fake_clock)
    window.auto = True
    window.fake_clock.now += 1
    frame(window)
    assert window.session.moves and window.auto
    click(window, window.button("new").rect.center)
    assert not window.auto and window.session.mode == "manual" and "auto play off" in window.session.message
    for _ in range(5):
        window.fake_clock.now += 1
        frame(window)
    assert window.session.moves == []
    click(window, window.button("auto").rect.center)
    assert window.auto
    click(window, window.button("preset:intermediate").rect.center)
    assert not window.auto and window.session.grid.shape == (16, 16)
    window.fake_clock.now += 1
    frame(window)
    assert window.session.moves == [] and window.button("auto").label == "Auto: off"


def test_auto_play_cannot_start_on_a_finished_game(window):
    click(window, window.cell_centre(*START))
    while not window.session.is_over:
        window.session.agent_move()
    click(window, window.button("auto").rect.center)
    assert not window.auto and window.session.message == "the game is over: start a new one"


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


def test_hint_percentages_carry_a_percent_sign_and_the_legend_explains_the_colours(window, monkeypatch):
    window.session = GameSession(BEGINNER, seed=7)  # its first position has safe, uncertain and mine cells
    assert window.legend() == [(None, gui.CONTROLS)]  # hints off: the controls
    click(window, window.button("hints").rect.center)
    assert "after the first click" in window.legend()[0][1]
    click(window, window.cell_centre(*START))
    elsewhere = window.session.frontier_hints()[1]
    legend = window.legend()
    assert legend[:3] == [(0.0, "safe"), (SAMPLE_CHANCE, "chance of a mine"), (1.0, "mine")]
    assert (elsewhere is None) == (len(legend) == 3)
    if elsewhere is not None:
        assert legend[3] == (None, f"other hidden cells: {percent(elsewhere)}")
    assert window.hint_font is not None and window.hint_font.size("99%")[0] <= CELL_PX - 4
    legend_row = pygame.surfarray.array3d(window.screen).transpose(1, 0, 2)[window.layout.legend_top :]
    sample = legend_row[LEGEND_HEIGHT // 2, MARGIN + LEGEND_HEIGHT // 2].astype(int)  # the middle of the safe sample
    assert np.abs(sample - SAFE_HINT_COLOUR).sum() < np.abs(sample - (189, 189, 189)).sum()
    written: list[str] = []
    monkeypatch.setattr(window.painter, "write_in_cell", lambda text, centre, font: written.append(text))
    frame(window)
    chances = window.session.frontier_hints()[0]
    uncertain = chances[(chances > 0.0) & (chances < 1.0)]
    assert len(uncertain) == 5
    on_board = [percent(float(chance)) for chance in uncertain]
    assert written == [*on_board, percent(SAMPLE_CHANCE)]  # the cells, then the legend's sample
    assert all(text.endswith("%") for text in written)
    while not window.session.is_over:
        window.session.agent_move()
    assert window.legend() == [(None, "Hints: none, the game is over")]


def test_a_preset_button_resizes_the_board_and_the_window(window):
    click(window, window.button("preset:expert").rect.center)
    assert window.session.grid.shape == (16, 30)
    assert window.screen.get_size()[0] >= 30 * CELL_PX and window.board_rect.height == 16 * CELL_PX
    click(window, window.cell_centre(15, 29))
    assert window.session.status == "playing"


# ---------------------------------------------------------------------- the window fits the screen
def test_a_larger_preset_shrinks_the_cells_to_fit_a_small_screen_and_clicks_still_land():
    desktop = (800, 600)
    window = GameWindow(GameSession(BEGINNER, seed=SEED), cell_px=32, desktop=desktop)
    try:
        assert window.cell_px == 32
        for preset, shape in (("expert", (16, 30)), ("intermediate", (16, 16)), ("beginner", (9, 9))):
            click(window, window.button(f"preset:{preset}").rect.center)
            assert window.session.grid.shape == shape
            width, height = window.screen.get_size()
            assert width <= desktop[0] - SCREEN_RESERVE[0] and height <= desktop[1] - SCREEN_RESERVE[1]
            assert window.board_rect.bottom + MARGIN + LEGEND_HEIGHT < height
            click(window, window.cell_centre(shape[0] - 1, shape[1] - 1), button=3)
            assert window.session.grid[shape[0] - 1, shape[1] - 1] == FLAG
        assert window.cell_px == 32  # back on a small board, the cells are full size again
    finally:
        window.close()


def test_a_preset_that_cannot_fit_leaves_the_game_as_it_was():
    window = GameWindow(GameSession(BEGINNER, seed=SEED), cell_px=32, desktop=(640, 400))
    try:
        click(window, window.button("preset:expert").rect.center)
        assert window.session.grid.shape == (9, 9) and "does not fit the 640x400 screen" in window.session.message
    finally:
        window.close()


def test_a_growing_window_is_moved_back_onto_the_screen():
    window = GameWindow(GameSession(BEGINNER, seed=SEED), cell_px=32, desktop=(1024, 768))
    try:
        if window.placement.position is None:
            pytest.skip("this pygame cannot tell where its window is")
        window.placement.move_to((600, 400))  # a small window near the right and bottom edges
        assert window.placement.position == (600, 400)
        click(window, window.button("preset:expert").rect.center)
        x, y = window.placement.position
        width, height = window.screen.get_size()
        assert x >= 0 and x + width <= 1024 and y + height <= 768 - (SCREEN_RESERVE[1] - TITLE_BAR_PX)
    finally:
        window.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cell-px", "8"], "--cell-px must be at least 16, got 8"),
        (["--rows", "200", "--cols", "200", "--mines", "10"], "a 200x200 board does not fit the 1024x768 screen"),
    ],
)
def test_bad_window_options_end_with_a_message(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["play", "--gui", *args])  # the dummy video driver's screen is 1024x768
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


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


def test_the_no_guess_button_deals_no_guess_boards_on_every_preset(window):
    from mine_env.analysis.no_guess import no_guess_layout

    click(window, window.button("noguess").rect.center)
    assert window.session.boards == "no_guess" and window._face(window.button("noguess")) == ("No guess: on", True)
    assert "no guess needed" in window.session.message
    click(window, window.cell_centre(*START))
    board = window.session.board
    assert (board.layout == no_guess_layout(9, 9, 10, START[0] * 9 + START[1], board.key)).all()
    click(window, window.button("preset:intermediate").rect.center)
    assert window.session.boards == "no_guess" and window.session.board.layout_source is not None
    click(window, window.button("noguess").rect.center)
    assert window.session.boards == "random" and window.session.board.layout_source is None


def test_the_no_guess_button_explains_a_board_that_cannot_have_them():
    window = GameWindow(GameSession(BoardSpec(9, 9, 10, "safe"), seed=SEED), cell_px=CELL_PX)
    try:
        click(window, window.button("noguess").rect.center)
        assert window.session.boards == "random" and "use first_click='opening'" in window.session.message
    finally:
        window.close()

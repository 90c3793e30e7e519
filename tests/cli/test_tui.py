"""The terminal game: its reactions stepped directly, and the real ``minesweeper play`` driven through tmux.

The tmux tests start the command in a detached tmux server of their own (fixed size), type keys and mouse
clicks into it with ``send-keys`` and read the screen with ``capture-pane``. The seeded layouts are known
in advance from :func:`mine_env.engine.board.layout_key`, so a test can play a whole game to a win.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mine_env.engine.board import Board, layout_key
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from mine_env.rendering import render_ansi
from minesweeper_cli.apps.hints import Hint
from minesweeper_cli.apps.session import GameSession
from minesweeper_cli.apps.tui import TerminalGame, hint_text
from minesweeper_cli.main import main
from support import TmuxGame, command_env, needs_tmux

REPO = Path(__file__).resolve().parents[2]
BEGINNER = BoardSpec(9, 9, 10, "opening")
SEED = 3
START = (4, 4)
"""The first cell revealed in the scripted games."""


def seeded_board(seed: int = SEED, first: tuple[int, int] = START) -> Board:
    """The board a game seeded with ``seed`` shows after ``first`` is revealed."""
    board = Board(BEGINNER, layout_key(seed))
    board.reveal(*first)
    return board


def path_keys(start: tuple[int, int], end: tuple[int, int]) -> str:
    """The hjkl keys that move the cursor from ``start`` to ``end``."""
    dr, dc = end[0] - start[0], end[1] - start[1]
    return ("j" * dr if dr > 0 else "k" * -dr) + ("l" * dc if dc > 0 else "h" * -dc)


# ---------------------------------------------------------------------- the game stepped without a terminal
def test_keys_move_the_cursor_within_the_board_and_reveal_flag_and_quit():
    game = TerminalGame(GameSession(BEGINNER, seed=SEED))
    for key in "kkhh":  # already in the corner: the cursor stays on the board
        game.handle_key(ord(key))
    assert game.cursor == (0, 0)
    for key in "jjjjllll":
        game.handle_key(ord(key))
    assert game.cursor == START
    game.handle_key(ord(" "))
    assert game.session.grid[START] == 0
    game.handle_key(ord("q"))
    assert game.quit


def test_unknown_keys_and_clicks_outside_the_board_only_earn_a_message():
    game = TerminalGame(GameSession(BEGINNER, seed=SEED))
    for key in (ord("z"), 0, 999, 27 + 1000):
        game.handle_key(key)
        assert "unknown key" in game.session.message
    game.handle_click(0, 0, 1)
    assert game.session.message == "that click was outside the board"
    assert (game.session.grid == HIDDEN).all() and not game.quit


def test_random_keys_and_clicks_never_crash_the_game():
    rng = np.random.default_rng(0)
    game = TerminalGame(GameSession(BoardSpec(6, 7, 6, "safe"), seed=1, agent="random"), delay=0.0)
    keys = [ord(ch) for ch in "hjkl fcpatn+-=zZ?\t"] + [-1, 0, 410, 2**20]
    for _ in range(400):
        if rng.random() < 0.8:
            game.handle_key(int(rng.choice(keys)))
        else:
            game.handle_click(int(rng.integers(-2, 20)), int(rng.integers(-2, 30)), int(rng.integers(0, 5)))
        game.tick()
        assert 0 <= game.cursor[0] < 6 and 0 <= game.cursor[1] < 7
        assert len(game.lines()) > 10
    assert not game.quit


def test_a_click_on_a_cell_moves_the_cursor_there_and_acts():
    game = TerminalGame(GameSession(BEGINNER, seed=SEED))
    board_geometry = game.geometry()
    game.handle_click(board_geometry.top + 2, board_geometry.cell_x(3), 3)
    assert game.session.mines_left == 9 and game.cursor == (2, 3)


def test_the_screen_shows_coordinates_counters_and_the_win_banner():
    session = GameSession(BEGINNER, seed=SEED)
    game = TerminalGame(session)
    session.click(*START)
    board = seeded_board()
    for row, col in np.argwhere(~board.layout):
        if session.grid[row, col] == HIDDEN:
            session.click(int(row), int(col))
    lines = game.lines()
    text = [line for line, _ in lines]
    assert text[2].startswith("*** You won in under 1 s ***") and lines[2][1] == "won"
    board_lines = render_ansi(session.grid, session.shown_layout).splitlines()
    assert text[3 : 3 + 10] == board_lines
    assert "Mines left: 0" in text[1]  # the won board's mines count as found


def test_the_banner_says_who_played():
    session = GameSession(BEGINNER, seed=SEED, mode="auto")
    game = TerminalGame(session, delay=0.0, auto=True)
    while not session.is_over:
        game.tick()
    banner, style = game.lines()[2]
    assert banner.startswith(f"*** The solver {session.status}") and style == session.status
    assert "you made" not in banner
    mixed = GameSession(BEGINNER, seed=SEED)
    game = TerminalGame(mixed, delay=0.0)
    game.cursor = START
    game.handle_key(ord(" "))
    game.handle_key(ord("t"))
    while not mixed.is_over:
        game.tick()
    banner = game.lines()[2][0]
    assert banner.startswith(f"*** The solver {mixed.status}")
    assert f"you made 1 of {len(mixed.moves)} moves ***" in banner


def test_a_new_game_starts_with_auto_play_off():
    session = GameSession(BEGINNER, seed=SEED, mode="auto")
    game = TerminalGame(session, delay=0.0, auto=True)
    game.tick()
    game.handle_key(ord("n"))  # in the middle of the agent's game
    assert not game.auto and session.mode == "manual" and session.games == 2
    assert "auto play off (t turns it on)" in session.message
    for _ in range(5):
        game.tick()
    assert session.moves == [] and "auto" not in game.lines()[1][0]
    assert "mode: manual" in game.lines()[0][0]


def test_auto_play_stops_when_the_game_ends_and_cannot_start_on_a_finished_game():
    session = GameSession(BEGINNER, seed=SEED)
    game = TerminalGame(session, delay=0.0)
    game.handle_key(ord("t"))
    assert game.auto
    while not session.is_over:
        game.tick()
    game.tick()
    assert not game.auto and "auto" not in game.lines()[1][0]
    game.handle_key(ord("t"))
    assert not game.auto and session.message == "the game is over: n starts a new one"
    game.handle_key(ord("n"))
    assert session.games == 2 and session.message == "game 2: 9x9, 10 mines"


def legend_line(game: TerminalGame) -> str:
    return next(text for text, style in game.lines() if style == "legend")


def test_hints_replace_hidden_frontier_cells_with_their_chances():
    session = GameSession(BEGINNER, seed=4)
    game = TerminalGame(session)
    assert legend_line(game) == ""  # no legend while hints are off
    game.handle_key(ord("p"))
    assert "appear once the game is under way" in legend_line(game)
    session.click(*START)
    chances, _ = session.frontier_hints()
    texts = game._cell_texts(3)
    for row, col in np.argwhere(~np.isnan(chances)):
        assert texts[row][col].strip() == hint_text(chances[row, col])
    assert hint_text(0.0) == "s" and hint_text(1.0) == "M" and hint_text(0.333) == "33%" and hint_text(0.999) == "99%"
    assert hint_text(0.001) == "1%" and hint_text(0.333, width=1) == "?"


def test_the_hint_legend_shows_each_sample_in_its_cells_colour():
    session = GameSession(BEGINNER, seed=4)
    game = TerminalGame(session)
    session.click(*START)
    game.handle_key(ord("p"))
    assert legend_line(game) == "hints: s safe   M mine   33% chance of a mine"
    kinds = dict(game.legend_segments())
    assert kinds["s"] is Hint.SAFE and kinds["M"] is Hint.MINE and kinds["33%"] is Hint.UNCERTAIN
    chances, elsewhere = session.frontier_hints()
    row, col = (int(v) for v in np.argwhere(~np.isnan(chances))[0])
    game.cursor = (row, col)
    details = game.lines()[game.lines().index((legend_line(game), "legend")) + 1][0]
    assert f"at the cursor ({row}, {col}): {chances[row, col]:.1%}" in details
    assert elsewhere is None or f"every other hidden cell: {elsewhere:.0%}" in details
    game.screen_width = 30  # too narrow for 3-character cells: a ? stands for a chance
    assert legend_line(game) == "hints: s safe   M mine   ? chance of a mine, given at the cursor"
    while not session.is_over:
        session.agent_move()
    assert legend_line(game) == "hints: none, the game is over"


# ---------------------------------------------------------------------- the real command in tmux
@pytest.fixture(scope="module")
def compiled_solver() -> None:
    """Compile the solver's numba kernels in this process, where no time limit applies.

    The commands the tests start then load them from numba's cache instead of compiling them (tens of
    seconds on a fresh checkout) against the tests' time limits.
    """
    session = GameSession(BEGINNER, seed=SEED, mode="auto")
    while not session.is_over:
        assert session.agent_move() is not None, session.message


@pytest.fixture
def tmux_game(compiled_solver):
    games: list[TmuxGame] = []

    def start(*args: str) -> TmuxGame:
        games.append(TmuxGame(["play", *args]))
        return games[-1]

    yield start
    for game in games:
        game.close()


def board_lines(screen: str, rows: int = 9) -> list[str]:
    """The board as drawn on the screen: the column header and the rows, trailing spaces removed."""
    lines = screen.splitlines()
    top = next(i for i, line in enumerate(lines) if line.strip().startswith("0 1 2"))
    return [line.rstrip() for line in lines[top : top + rows + 1]]


@needs_tmux
def test_tmux_a_seeded_game_played_from_the_first_move_to_a_win(tmux_game):
    game = tmux_game("--seed", str(SEED))
    game.wait_for("Mines left: 10")
    board = Board(BEGINNER, layout_key(SEED))
    keys, cursor = [], (0, 0)
    for row, col in [START, *(tuple(int(v) for v in cell) for cell in np.argwhere(~seeded_board().layout))]:
        if board.grid[row, col] == HIDDEN:
            keys += [path_keys(cursor, (row, col)), "Space"]
            cursor = (row, col)
            board.reveal(row, col)
    assert board.status == "won"
    game.keys(*keys)
    drawn = [line.rstrip() for line in render_ansi(board.grid, board.layout).splitlines()]
    game.wait_until(lambda screen: "*** You won in" in screen and "Mines left: 0" in screen
                    and board_lines(screen) == drawn, "the won message, the count and the whole board")  # fmt: skip
    game.keys("q")
    game.wait_for("EXITED 0")


@needs_tmux
def test_tmux_a_loss_flags_by_mouse_bad_input_and_a_new_game(tmux_game):
    game = tmux_game("--seed", str(SEED))
    game.wait_for("mode: manual")
    game.keys("z")
    game.wait_for("unknown key 'z'")
    game.click(1, 60, 1)  # outside the board
    game.wait_for("outside the board")
    game.keys(path_keys((0, 0), START), "Space")
    game.wait_for("you reveal (4, 4)")
    board = seeded_board()  # what the screen shows now
    mine = tuple(int(v) for v in np.argwhere(board.layout & (board.grid == HIDDEN))[0])
    game.click(4 + mine[0], 2 + 2 * mine[1], 3)  # right click: a flag
    row, col = 1 + mine[0], 2 + 2 * mine[1]  # the flag's place among the screen's board lines
    game.wait_until(lambda screen: "Mines left: 9" in screen and board_lines(screen)[row][col] == "F",
                    "the flag on the board and in the count")  # fmt: skip
    game.keys("f")  # the cursor followed the click: f takes the flag off again
    game.wait_for("Mines left: 10")
    game.keys("Space")
    lost = f"*** You lost: a mine at {mine} ***"
    game.wait_until(lambda screen: lost in screen and board_lines(screen)[row][col] == "X",
                    "the lost message and the mine on the board")  # fmt: skip
    game.keys("n")
    game.wait_until(lambda screen: "Game 2" in screen
                    and all(set(line[2:].replace(" ", "")) == {"."} for line in board_lines(screen)[1:]),
                    "game 2 on a hidden board")  # fmt: skip
    game.keys("q")
    game.wait_for("EXITED 0")


@needs_tmux
def test_tmux_assist_shows_hints_and_auto_play_finishes_the_game(tmux_game):
    game = tmux_game("--seed", "8", "--mode", "assist", "--delay", "0.02")  # assist leaves guesses here
    game.wait_for("mode: assist")
    game.keys(path_keys((0, 0), START), "Space")
    game.wait_for("you reveal (4, 4)")
    game.keys("p")
    game.wait_for("hints: s safe   M mine   33% chance of a mine")
    game.keys("t")
    # a mixed game's message says who made the other moves
    screen = game.wait_until(lambda screen: "*** " in screen and ("you made" in screen or "assist made" in screen),
                             "the end message with the share of the moves")  # fmt: skip
    assert "*** The solver won" in screen or "*** The solver lost" in screen or "*** You " in screen


@needs_tmux
def test_tmux_auto_play_ends_with_the_solvers_result_and_a_new_game_is_the_players(tmux_game):
    game = tmux_game("--seed", str(SEED), "--agent", "solver", "--delay", "0.02")
    screen = game.wait_for("*** The solver ")
    assert "you made" not in screen
    game.keys("n")
    screen = game.wait_until(lambda screen: "Game 2" in screen and "mode: manual" in screen
                             and "auto play off" in screen, "game 2 in manual mode")  # fmt: skip
    assert "auto: on" not in screen
    time.sleep(1.0)  # auto play would have moved by now
    screen = game.screen()
    assert all(set(line[2:].replace(" ", "")) == {"."} for line in board_lines(screen)[1:])
    game.keys("q")
    game.wait_for("EXITED 0")


# ---------------------------------------------------------------------- the command without a terminal
def run_play(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "minesweeper_cli.main", "play", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=60, env=command_env())  # fmt: skip


def test_an_agent_plays_in_plain_text_when_stdout_is_a_pipe(compiled_solver):
    result = run_play("--agent", "solver", "--seed", "1", "--preset", "beginner")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("solver plays 9x9, 10 mines, first click opening")
    assert "solver reveals" in result.stdout and ": certain" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith(("solver won in", "solver lost in"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rows", "3", "--cols", "3", "--mines", "20"], "20 mines do not fit a 3x3 board"),
        (["--mode", "manual"], "the manual mode needs an interactive terminal"),
        (["--agent", "random", "--delay", "-1"], "--delay must be at least 0"),
    ],
)
def test_bad_command_lines_end_with_a_message(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["play", *args])  # pytest's captured stdout is not a terminal, as in a pipe
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_without_curses_the_full_screen_game_is_refused_with_a_message_and_plain_text_still_plays(
    monkeypatch, capsys
):
    monkeypatch.setitem(sys.modules, "curses", None)  # as on Windows without windows-curses
    for name in ("minesweeper_cli.apps.tui", "minesweeper_cli.apps.curses_screen"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    with pytest.raises(SystemExit) as exit_info:
        main(["play", "--seed", "1"])
    assert exit_info.value.code == 2
    assert "the terminal game needs curses" in capsys.readouterr().err
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert main(["play", "--agent", "random", "--seed", "1", "--preset", "beginner"]) == 0
    assert capsys.readouterr().out.startswith("random plays 9x9, 10 mines")

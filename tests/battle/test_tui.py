"""The full-screen ``battle play``: its reactions stepped without a terminal, and the real command in tmux."""

from __future__ import annotations

import numpy as np
import pytest

from battle.rules import BattleSpec
from mine_env.engine.constants import HIDDEN
from minesweeper_cli.apps.battle_tui import BattleSession, BattleTerminalGame, battle_session
from support import TmuxGame, needs_tmux

SMALL = BattleSpec(8, 8, 11)


class FakeClock:
    """Seconds that pass only when a test says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def screen(game: BattleTerminalGame) -> str:
    return "\n".join(text for text, _ in game.lines())


def safe_hidden_cell(session: BattleSession) -> tuple[int, int]:
    """A hidden cell without a mine (the test reads the layout, the player never does)."""
    cells = np.argwhere((session.grid == HIDDEN) & ~session.game.layout)
    return int(cells[0][0]), int(cells[0][1])


def move_cursor_to(game: BattleTerminalGame, cell: tuple[int, int]) -> None:
    row, col = game.cursor
    keys = ("j" * (cell[0] - row) if cell[0] > row else "k" * (row - cell[0]))
    keys += "l" * (cell[1] - col) if cell[1] > col else "h" * (col - cell[1])
    for key in keys:
        game.handle_key(ord(key))
    assert game.cursor == cell


def test_a_person_reveals_with_the_keys_of_play_and_the_ai_replies_after_the_delay() -> None:
    clock = FakeClock()
    game = BattleTerminalGame(battle_session(SMALL, 3, "greedy", 0, None), delay=0.5, clock=clock)
    text = screen(game)
    assert "player_0 (A, you) vs player_1 (B, greedy)" in text and "Score  A 0 - 0 B" in text
    assert "player_0 (A, you) to move" in text
    cell = safe_hidden_cell(game.session)
    move_cursor_to(game, cell)
    game.handle_key(ord(" "))
    assert game.session.grid[cell] >= 0 and game.session.game.mover == 1
    assert f"player_0 (A, you) reveals {cell}: safe" in screen(game)
    game.tick()  # the AI's first move comes at once, the next one `delay` later
    moved = game.session.game.moves
    assert moved == 2 and "player_1 (B, greedy) reveals" in screen(game)
    game.tick()
    assert game.session.game.moves == moved or game.session.game.mover == 0
    game.handle_key(ord("q"))
    assert game.quit


def test_moves_out_of_turn_open_cells_flags_and_bombs_only_earn_a_message() -> None:
    clock = FakeClock()
    game = BattleTerminalGame(battle_session(SMALL, 3, "greedy", 1, None), clock=clock)
    game.handle_key(ord(" "))
    assert game.session.message == "it is player_0 (A, greedy)'s turn: wait for its move"
    while game.session.game.mover == 0 and not game.session.is_over:
        clock.now += 1.0
        game.tick()
    opened = tuple(int(v) for v in np.argwhere(game.session.grid >= 0)[0])
    game.handle_click(game.geometry().top + opened[0], game.geometry().cell_x(opened[1]), 1)
    assert game.cursor == opened and "is already open: choose a hidden cell" in game.session.message
    game.handle_key(ord("f"))
    assert game.session.message == "battle has no flags: space reveals, b bombs"
    game.handle_key(ord("c"))
    assert "battle has no chords" in game.session.message
    game.handle_key(ord("b"))
    assert game.session.message == "the bomb rule is off: start the game with --bomb to use it"
    game.handle_key(ord("z"))
    assert "unknown key" in game.session.message


def test_the_bomb_is_offered_to_the_person_behind_and_the_right_button_bombs() -> None:
    spec = BattleSpec(8, 8, 11, bomb=True)
    for seed in range(40):  # a board where the AI (moving first) takes a mine: the person is then behind
        clock = FakeClock()
        game = BattleTerminalGame(battle_session(spec, seed, "greedy", 1, None), clock=clock)
        while game.session.game.mover == 0 and not game.session.is_over:
            clock.now += 1.0
            game.tick()
        if game.session.game.scores[0] > 0 and not game.session.is_over:
            break
    else:
        pytest.fail("no board of seeds 0..39 puts the person behind after the AI's first turn")
    assert "player_1 (B, you) to move   b: bomb allowed" in screen(game)
    hidden = tuple(int(v) for v in np.argwhere(game.session.grid == HIDDEN)[0])
    before = game.session.game.scores[1]
    game.handle_click(game.geometry().top + hidden[0], game.geometry().cell_x(hidden[1]), 3)
    assert game.session.game.bomb_used[1] and "bombs around" in screen(game)
    assert game.session.game.scores[1] >= before


def test_watching_two_ais_runs_under_auto_play_which_t_pauses() -> None:
    clock = FakeClock()
    game = BattleTerminalGame(battle_session(SMALL, 5, "greedy", 0, ["contest", "random"]), delay=0.1,
                              auto=True, clock=clock)  # fmt: skip
    game.tick()
    assert game.session.game.moves == 1
    game.handle_key(ord("t"))
    clock.now += 1.0
    game.tick()
    assert game.session.game.moves == 1 and "auto play off" in game.session.message
    game.handle_key(ord("a"))
    assert game.session.game.moves == 2
    game.handle_key(ord("t"))
    while not game.session.is_over:
        clock.now += 1.0
        game.tick()
    game.tick()  # auto play stops with the game
    text = screen(game)
    assert "*** player_" in text and " wins, " in text and not game.auto
    game.handle_key(ord("p"))
    assert "mine chances: none, the game is over" in screen(game)
    game.handle_key(ord("n"))
    assert game.session.games == 2 and game.session.game.moves == 0 and "Game 2" in screen(game)


def test_p_gives_the_exact_mine_chance_at_the_cursor() -> None:
    game = BattleTerminalGame(battle_session(BattleSpec(), 0, "greedy", 0, None))
    game.handle_key(ord("p"))
    assert "mine chance at the cursor (8, 8): 19.9%" in screen(game)  # 51 / 256 on the untouched board


@needs_tmux
def test_tmux_battle_play_full_screen_a_move_the_ai_reply_and_quit() -> None:
    game = TmuxGame(["battle", "play", "--opponent", "greedy", "--seed", "7", "--delay", "0.05"], height=34)
    try:
        game.wait_for("player_0 (A, you) to move", timeout=60)
        game.keys("Space")
        game.wait_for("player_0 (A, you) reveals (8, 8)")
        game.keys("q")
        game.wait_for("EXITED 0")
    finally:
        game.close()

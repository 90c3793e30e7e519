"""The play apps while the solver compiles in the background: nothing waits on screen, nothing is lost."""

from __future__ import annotations

import threading

import numpy as np

from mine_env.engine import compilation
from mine_env.engine.compilation import notice_sink
from mine_env.engine.spec import BoardSpec
from minesweeper_cli.apps.moves import PLAYER
from minesweeper_cli.apps.session import GameSession
from minesweeper_cli.apps.solver_warm_up import WAITING, SolverWarmUp
from minesweeper_cli.apps.tui import TerminalGame

BEGINNER = BoardSpec(9, 9, 10, "opening")


class HeldCompile:
    """A stand-in for the compile thread that runs until the test releases it, with a clock of its own."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.now = 50.0

    def start_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self.release.wait, daemon=True)
        thread.start()
        return thread

    def clock(self) -> float:
        return self.now

    def finish(self, warm_up: SolverWarmUp) -> None:
        self.release.set()
        warm_up._thread.join(5)


def held_warm_up() -> tuple[SolverWarmUp, HeldCompile]:
    held = HeldCompile()
    return SolverWarmUp(clock=held.clock, start_thread=held.start_thread), held


def test_the_status_line_shows_the_compile_notice_and_its_time_until_the_compile_ends():
    warm_up, held = held_warm_up()
    warm_up.start()
    try:
        assert not warm_up.is_ready() and warm_up.status_line() == ""  # loading from the cache says nothing
        sink = notice_sink({}, None, compilation._handler)  # where a compile's notice goes now
        assert sink is not None
        sink("minesweeper-rl: compiling the solver's kernels once (a few seconds; later runs load them from the cache)")
        held.now += 12
        assert warm_up.status_line() == (
            "compiling the solver's kernels once (a few seconds; later runs load them from the cache) ... 12 s so far"
        )
        held.finish(warm_up)
        assert warm_up.is_ready() and warm_up.status_line() == ""
    finally:
        warm_up.stop()
    assert compilation._handler is None


def test_no_warm_up_means_ready():
    assert SolverWarmUp().is_ready()


def test_solver_moves_and_hints_are_put_off_while_compiling_and_come_after():
    warm_up, held = held_warm_up()
    warm_up.start()
    try:
        game = TerminalGame(GameSession(BEGINNER, seed=2), delay=0.0, warm_up=warm_up)
        game.session.click(4, 4)
        game.show_hints = True
        assert game.session.probabilities() is None
        assert WAITING in "".join(text for text, _ in game.legend_segments())
        assert game.agent_move() is None and WAITING in game.session.message
        assert game.session.status == "playing"
        held.finish(warm_up)
        assert game.agent_move() is not None
        assert game.session.probabilities() is not None
    finally:
        warm_up.stop()


def test_assist_owed_while_compiling_is_played_by_the_next_tick_as_if_it_had_not_waited():
    waited_for, held = held_warm_up()
    waited_for.start()
    try:
        waiting = TerminalGame(GameSession(BEGINNER, seed=5, mode="assist"), delay=0.0, warm_up=waited_for)
        moves = waiting.session.click(4, 4)
        assert [move.by for move in moves] == [PLAYER] and waiting.session.assist_owed
        assert "assist waits" in waiting.session.message
        waiting.tick()
        assert waiting.session.assist_owed  # still compiling: nothing played
        held.finish(waited_for)
        waiting.tick()
        assert not waiting.session.assist_owed
    finally:
        waited_for.stop()
    at_once = GameSession(BEGINNER, seed=5, mode="assist")
    at_once.click(4, 4)
    np.testing.assert_array_equal(waiting.session.grid, at_once.grid)
    assert len(waiting.session.moves) == len(at_once.moves) > 1
    assert waiting.session.message == at_once.message


def test_a_new_game_forgets_what_assist_owed():
    warm_up, held = held_warm_up()
    warm_up.start()
    try:
        game = TerminalGame(GameSession(BEGINNER, seed=5, mode="assist"), delay=0.0, warm_up=warm_up)
        game.session.click(4, 4)
        game.new_game()
        assert not game.session.assist_owed
    finally:
        held.finish(warm_up)
        warm_up.stop()


def test_the_terminal_screen_shows_the_compile_line_only_while_compiling():
    warm_up, held = held_warm_up()
    warm_up.start()
    try:
        game = TerminalGame(GameSession(BEGINNER, seed=2), warm_up=warm_up)
        warm_up._note("minesweeper-rl: compiling the game engine's kernels once (a few seconds; ...)")
        assert any("compiling the game engine's kernels once" in text for text, _ in game.lines())
        held.finish(warm_up)
        assert not any("compiling" in text for text, _ in game.lines())
    finally:
        warm_up.stop()

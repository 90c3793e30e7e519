"""The controls both play apps share: auto play at a pace, hints, a new game, the mouse buttons."""

from __future__ import annotations

from mine_env.engine.constants import FLAG
from mine_env.engine.spec import BoardSpec
from minesweeper_cli.apps.controls import MovePacer, PlayControls
from minesweeper_cli.apps.session import GameSession

BEGINNER = BoardSpec(9, 9, 10, "opening")


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_pacer_lets_a_move_through_once_per_delay():
    clock = FakeClock()
    pacer = MovePacer(clock)
    assert pacer.ready(0.5)  # the first move goes at once
    assert not pacer.ready(0.5)
    clock.now = 0.4
    assert not pacer.ready(0.5)
    clock.now = 0.5
    assert pacer.ready(0.5)


def test_auto_play_keeps_its_pace_stops_with_the_game_and_a_new_game_is_the_players():
    clock = FakeClock()
    controls = PlayControls(GameSession(BEGINNER, seed=3, mode="auto"), delay=1.0, auto=True, clock=clock)
    controls.tick()
    controls.tick()  # no time has passed: one move only
    assert len(controls.session.moves) == 1
    while not controls.session.is_over:
        clock.now += 1.0
        controls.tick()
    controls.tick()
    assert not controls.auto
    controls.toggle_auto()
    assert not controls.auto and controls.session.message == "the game is over: start a new one"
    controls.new_game()
    assert controls.session.mode == "manual" and controls.session.message.endswith("; auto play off")


def test_mouse_buttons_reveal_chord_and_flag_and_others_do_nothing():
    controls = PlayControls(GameSession(BEGINNER, seed=3), delay=0.0)
    controls.press((0, 0), 3)
    assert controls.session.grid[0, 0] == FLAG
    for button in (0, 4, 5):
        controls.press((1, 1), button)
    assert controls.session.moves[-1].kind == "flag" and len(controls.session.moves) == 1
    controls.press((4, 4), 1)
    assert controls.session.grid[4, 4] == 0
    controls.toggle_hints()
    assert controls.show_hints and controls.session.message == "hints on"

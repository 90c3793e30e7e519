"""The program profiles: command lines per preset, and clear errors for unknown programs and boards."""

from __future__ import annotations

import pytest

from screen_bot.programs import SGT_MINES, XDEMINEUR, board_of, program_named


def test_xdemineur_is_started_with_its_board_size_and_mine_count() -> None:
    assert XDEMINEUR.arguments("expert", 5) == ["-geometry", "30x16+0+0", "-m", "99"]
    assert XDEMINEUR.first_click_rule() == "none"  # it opens the start itself
    assert XDEMINEUR.win_needs_flags


def test_sgt_mines_takes_a_seeded_game_id_with_or_without_its_no_guess_generator() -> None:
    assert SGT_MINES.arguments("expert", "2026-3") == ["30x16n99#2026-3"]
    assert SGT_MINES.arguments("beginner-guess", 7) == ["9x9n10a#7"]
    assert SGT_MINES.first_click_rule() == "opening"


def test_unknown_programs_and_presets_are_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown program 'winmine'; expected one of: xdemineur, sgt-mines"):
        program_named("winmine")
    with pytest.raises(ValueError, match="xdemineur has no preset 'beginner'; expected one of: intermediate, expert"):
        board_of(XDEMINEUR, "beginner")

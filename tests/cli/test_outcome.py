"""How the play apps word a game: each move, whose game it was, how it ended, the agent's certain moves."""

from __future__ import annotations

import pytest

from minesweeper_cli.apps.moves import ASSIST, PLAYER, Move
from minesweeper_cli.apps.outcome import agent_summary, game_outcome, move_message, who_played


def moves_by(*players: str) -> list[Move]:
    """A game's moves (reveals), one per name, in order."""
    return [Move("reveal", 0, i, by, None if by == PLAYER else 0.0) for i, by in enumerate(players)]


@pytest.mark.parametrize(
    ("players", "owner", "share"),
    [
        ([PLAYER] * 5, "You", ""),
        (["solver"] * 5, "The solver", ""),
        ([PLAYER, PLAYER, "solver", "solver"], "The solver", "you made 2 of 4 moves"),  # handed over to auto play
        (["solver", PLAYER, PLAYER, PLAYER], "You", "the solver made 1 of 4 moves"),  # one AI move, then the player
        ([PLAYER, "solver", PLAYER, "solver", PLAYER], "You", "the solver made 2 of 5 moves"),
        ([PLAYER, ASSIST, ASSIST, PLAYER, ASSIST], "You", "assist made 3 of 5 moves"),  # assist plays for the player
        ([PLAYER, ASSIST, "solver", "solver"], "The solver", "you made 1 and assist 1 of 4 moves"),
        ([PLAYER, "solver", ASSIST, PLAYER], "You", "the solver made 1 and assist 1 of 4 moves"),
    ],
)
def test_who_played_gives_the_game_to_the_last_mover_and_counts_the_others(players, owner, share):
    assert who_played(moves_by(*players), "solver") == (owner, share)


def test_who_played_names_other_agents_as_agents():
    assert who_played(moves_by("random", "random"), "random") == ("The random agent", "")
    assert who_played(moves_by("rules", PLAYER), "rules") == ("You", "the rules agent made 1 of 2 moves")


def test_the_outcome_says_who_won_or_lost_and_how():
    moves = moves_by(PLAYER, "solver", "solver")
    assert game_outcome(moves, "solver", "won", 4.4, None) == "The solver won in 4 s; you made 1 of 3 moves"
    assert game_outcome(moves[:1], "solver", "lost", 1.0, (2, 3)) == "You lost: a mine at (2, 3)"


def test_a_game_won_at_once_is_won_in_under_a_second_not_in_0_s():
    assert game_outcome(moves_by(PLAYER), "solver", "won", 0.2, None) == "You won in under 1 s"
    assert move_message(Move("reveal", 0, 1, PLAYER, None, 3), "won", 0.0) == "you reveal (0, 1) -- won in under 1 s"


def test_move_descriptions():
    assert Move("reveal", 3, 4, "solver", 0.0, 1).describe() == "solver reveals (3, 4): certain"
    assert Move("reveal", 3, 4, "solver", 0.25, 0).describe() == "solver reveals (3, 4): guess, 25% risk"
    assert Move("flag", 1, 2, "you").describe() == "you flag (1, 2)"


def test_the_move_message_adds_the_end_of_the_game():
    move = Move("reveal", 0, 1, PLAYER, None, 3)
    assert move_message(move, "playing", 5.0) == "you reveal (0, 1)"
    assert move_message(move, "won", 5.0) == "you reveal (0, 1) -- won in 5 s"
    assert move_message(move, "lost", 5.0) == "you reveal (0, 1) -- hit a mine"


def test_the_agent_summary_counts_its_certain_moves_and_guesses_only():
    moves = [*moves_by(PLAYER, "solver", "solver"), Move("reveal", 1, 0, "solver", 0.5)]
    assert agent_summary(moves, "solver") == "2 certain, 1 guess"
    assert agent_summary(moves[:1], "solver") == ""
    assert agent_summary([*moves, Move("reveal", 1, 1, "solver", 0.1)], "solver") == "2 certain, 2 guesses"

"""No-guess suites: named and ad hoc, the same layout keys as the opening suites, and the same games whether the
solver plays them through the env (judged by the oracle) or in compiled code."""

from __future__ import annotations

import pytest

from eval.player import GamePlayer
from eval.runner import evaluate, resolve_agents
from eval.suites import SUITES, Suite, adhoc_suite, get_suite
from mine_env.engine.spec import BoardSpec


def test_named_no_guess_suites_share_the_opening_suites_seeds() -> None:
    for preset in ("beginner", "intermediate", "expert"):
        suite, plain = get_suite(f"{preset}-no-guess-10k"), SUITES[f"{preset}-opening-10k"]
        assert (suite.boards, suite.first_click, suite.version) == ("no_guess", "opening", "v1")
        assert (suite.rows, suite.cols, suite.mines, suite.games) == (plain.rows, plain.cols, plain.mines, plain.games)
        assert suite.layout_key(7) == plain.layout_key(7)
        assert suite.to_dict()["boards"] == "no_guess" and plain.to_dict()["boards"] == "random"


def test_adhoc_no_guess_suites_say_so_in_their_name() -> None:
    suite = adhoc_suite(BoardSpec(9, 9, 10, "opening"), 5, 3, boards="no_guess")
    assert suite.name == "9x9-10-opening-no-guess-5-seed3" and suite.boards == "no_guess"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"first_click": "safe", "boards": "no_guess"}, r"got first_click='safe'"),
        ({"first_click": "opening", "boards": "no-guess"}, r"unknown boards 'no-guess'"),
        ({"first_click": "opening", "boards": "no_guess", "mines": 30}, r"30 mines are too dense"),
    ],
)
def test_bad_no_guess_suites_are_refused(kwargs, message) -> None:
    options = {"name": "x", "rows": 9, "cols": 9, "mines": 10, "games": 3, "base_seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        Suite(**options)


def test_the_solver_wins_through_the_env_without_a_guess_and_the_compiled_games_agree() -> None:
    suite = adhoc_suite(BoardSpec(9, 9, 10, "opening"), 12, 5, boards="no_guess")
    judged = evaluate(["solver"], suite, workers=1, oracle=True, progress=False)
    player = GamePlayer(suite, resolve_agents(["solver"], suite.spec()), oracle=False)
    compiled = player.play_games(0, range(suite.games))
    assert all(record.won and record.guesses == 0 for record in judged.records)
    assert [record.won for record in compiled] == [record.won for record in judged.records]
    assert [record.safe_revealed for record in compiled] == [record.safe_revealed for record in judged.records]

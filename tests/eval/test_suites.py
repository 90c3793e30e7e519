"""Evaluation suites: per-game seeds and layout keys, the named suites, refused definitions."""

from __future__ import annotations

import pytest

from eval.suites import SUITES, Suite, derive_game_seeds, get_suite, list_suites
from mine_env.env import MinesweeperEnv

SMALL = Suite("small", 6, 6, 5, "opening", games=12, base_seed=3)


def test_game_seeds_depend_only_on_base_seed_and_index() -> None:
    seeds = [SMALL.game_seeds(i) for i in range(SMALL.games)]
    assert seeds == [derive_game_seeds(3, i) for i in range(SMALL.games)]
    assert len({seed.env for seed in seeds}) == SMALL.games
    assert all(seed.env != seed.agent for seed in seeds)
    # A smaller suite of the same family is a prefix of the larger one.
    assert get_suite("beginner-opening-1k").game_seeds(999) == get_suite("beginner-opening-10k").game_seeds(999)


def test_a_games_layout_key_is_the_one_the_env_deals_after_its_seed() -> None:
    env = MinesweeperEnv(rows=SMALL.rows, cols=SMALL.cols, mines=SMALL.mines, first_click=SMALL.first_click)
    for game in range(SMALL.games):
        env.reset(seed=SMALL.game_seeds(game).env)
        env.step(0)
        assert SMALL.layout_key(game) == env.board.key
    with pytest.raises(ValueError, match="outside this suite's games"):
        SMALL.layout_key(SMALL.games)


def test_named_suites_are_listed_versioned_and_found_by_name() -> None:
    names = [suite.name for suite in list_suites()]
    assert "beginner-opening-10k" in names and "expert-safe-1k" in names
    suite = get_suite("intermediate-safe-10k@v1")
    assert (suite.rows, suite.cols, suite.mines, suite.first_click, suite.games) == (16, 16, 40, "safe", 10_000)
    assert suite.version == "v1" and suite is SUITES["intermediate-safe-10k"]


@pytest.mark.parametrize(
    ("name", "match"), [("beginner-opening-2k", "unknown suite"), ("expert-safe-1k@v9", "no version")]
)
def test_unknown_suite_is_refused(name: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        get_suite(name)


def test_a_suite_with_a_first_cell_plays_the_same_layout_for_every_agent() -> None:
    fixed = SMALL.with_first_cell((1, 4))
    assert fixed.name == "small-first-1-4" and fixed.first_cell == (1, 4) and fixed.first_action() == 10
    assert fixed.games == SMALL.games and fixed.game_seeds(3) == SMALL.game_seeds(3)
    assert SMALL.layout_follows_first_click() and not fixed.layout_follows_first_click()
    assert SMALL.first_action() is None and fixed.to_dict()["first_cell"] == (1, 4)


@pytest.mark.parametrize(("cell", "match"), [((6, 0), "lies off the 6x6 board"), ((1,), "pair of integers"),
                                             (("a", 2), "pair of integers"), ((0, -1), "lies off")])  # fmt: skip
def test_a_first_cell_off_the_board_or_malformed_is_refused(cell: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        SMALL.with_first_cell(cell)
    with pytest.raises(ValueError, match=match):
        Suite("bad", 6, 6, 5, "opening", 3, 0, first_cell=cell)


@pytest.mark.parametrize(("games", "seed", "match"), [(0, 0, "at least 1 game"), (5, -1, "non-negative")])
def test_bad_suite_is_refused(games: int, seed: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Suite("bad", 9, 9, 10, "opening", games, seed)

"""No-guess boards through the env, the native vector env and the engine's layout source: the same board for
the same seed and first cell everywhere, and the engine's games unchanged without a source."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mine_env  # noqa: F401  (registers the ids)
from mine_env.analysis.no_guess import no_guess_layout
from mine_env.engine.board import Board, layout_key
from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv
from mine_env.vector import MinesweeperVectorEnv


def first_board(seed: int, first_cell: int, **kwargs) -> np.ndarray:
    """The layout the single env deals after ``reset(seed)`` and a first reveal of ``first_cell``."""
    env = MinesweeperEnv(boards="no_guess", **kwargs)
    env.reset(seed=seed)
    env.step(first_cell)
    return env.unwrapped.board.layout


def test_the_env_deals_the_generator_layout_of_its_seed_and_first_cell() -> None:
    layout = first_board(5, 93, preset="expert")
    assert (layout == no_guess_layout(16, 30, 99, 93, layout_key(5))).all()


def test_the_vector_env_deals_the_single_env_boards() -> None:
    venv = MinesweeperVectorEnv(3, preset="intermediate", boards="no_guess")
    venv.reset(seed=40)
    first_cells = np.array([34, 0, 255])
    grids, *_ = venv.step(first_cells)
    for i, cell in enumerate(first_cells):
        env = MinesweeperEnv(preset="intermediate", boards="no_guess")
        env.reset(seed=40 + i)
        obs, *_ = env.step(int(cell))
        assert (obs == grids[i]).all()
        assert (venv.engine._boards.mines[i] == env.unwrapped.board.layout.ravel()).all()


def test_make_vec_passes_the_kwarg() -> None:
    venv = gym.make_vec("Minesweeper-v0", num_envs=2, vectorization_mode="vector_entry_point", boards="no_guess")
    assert venv.unwrapped.boards == "no_guess"
    assert venv.unwrapped.engine.layout_source is not None


def test_later_games_of_the_vector_env_are_dealt_too() -> None:
    """Autoreset boards get a no-guess layout at their next first reveal, in the same call as the others."""
    venv = MinesweeperVectorEnv(4, preset="beginner", boards="no_guess")
    venv.reset(seed=1)
    rng = np.random.default_rng(0)
    dealt = 0
    for _ in range(200):
        masks = venv.action_masks()
        status_before = venv.engine._boards.meta[:, 0].copy()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        keys = venv.engine._boards.meta[:, 2].copy()
        venv.step(actions)
        for i in np.flatnonzero(status_before == 0):
            expected = no_guess_layout(9, 9, 10, int(actions[i]), int(keys[i])).ravel()
            assert (venv.engine._boards.mines[i] == expected).all() or venv.engine._boards.meta[i, 0] == 0
            dealt += 1
    assert dealt > 4


def test_a_flag_before_the_first_reveal_deals_nothing() -> None:
    env = MinesweeperEnv(preset="beginner", boards="no_guess", flags=True)
    env.reset(seed=2)
    env.step(81 + 40)  # a flag on the centre
    assert env.unwrapped.board.status == "ready"
    _, _, _, _, info = env.step(40)  # a reveal of the flagged cell is not valid
    assert info["invalid_action"] and env.unwrapped.board.status == "ready"
    env.step(0)
    assert (env.unwrapped.board.layout == no_guess_layout(9, 9, 10, 0, layout_key(2))).all()


def test_without_a_source_the_board_is_the_ordinary_one() -> None:
    spec = BoardSpec(9, 9, 10, "opening")
    plain, sourced = Board(spec, 77), Board(spec, 77, layout_source=lambda keys, cells: np.zeros((1, 81), np.uint8))
    plain.step(40)
    sourced.step(40)
    assert plain.layout.sum() == 10 and sourced.layout.sum() == 0


def test_the_env_passes_gymnasiums_checker() -> None:
    check_env(MinesweeperEnv(preset="beginner", boards="no_guess"), skip_render_check=True)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"boards": "no-guess"}, r"unknown boards 'no-guess'; expected one of random, no_guess"),
        ({"boards": None}, r"unknown boards None"),
        ({"boards": "no_guess", "first_click": "safe"}, r"got first_click='safe': use first_click='opening'"),
        ({"boards": "no_guess", "rows": 9, "cols": 9, "mines": 19}, r"19 mines are too dense .* at most 18"),
    ],
)
@pytest.mark.parametrize("make", [MinesweeperEnv, lambda **kw: MinesweeperVectorEnv(2, **kw)], ids=["env", "vector"])
def test_bad_boards_options_are_refused(make, kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        make(**kwargs)


def test_a_pickled_env_keeps_dealing_no_guess_boards() -> None:
    import pickle

    env = MinesweeperEnv(preset="beginner", boards="no_guess")
    copy = pickle.loads(pickle.dumps(env))
    for each in (env, copy):
        each.reset(seed=9)
        each.step(0)
    assert (copy.unwrapped.board.layout == env.unwrapped.board.layout).all()
    assert (env.unwrapped.board.layout == no_guess_layout(9, 9, 10, 0, layout_key(9))).all()

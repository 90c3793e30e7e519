"""The batched engine plays, board for board, the games of single boards keyed alike; its masks are theirs.

(Its Gymnasium face, the vector env, is held to the single env in tests/env/test_vector.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from mine_env.engine import rules as k
from mine_env.engine.batch import BatchEngine
from mine_env.engine.board import Board
from mine_env.engine.rewards import RewardConfig
from mine_env.engine.rng import draw_layout_key
from mine_env.engine.spec import BoardSpec

NUM_BOARDS = 3


@pytest.mark.parametrize(("first_click", "flags"), [("opening", False), ("safe", True), ("none", True)])
def test_each_board_plays_the_games_of_a_board_keyed_from_its_generator(first_click: str, flags: bool) -> None:
    spec, seed, max_steps = BoardSpec(5, 6, 6, first_click), 40, 9
    rewards = RewardConfig(win=2.0, loss=-3.0, progress=0.25, invalid=-0.5)
    engine = BatchEngine(spec, NUM_BOARDS, flags=flags, rewards=rewards, max_steps=max_steps)
    engine.reset(seed)
    generators = [np.random.default_rng(seed + i) for i in range(NUM_BOARDS)]
    boards = [Board(spec, draw_layout_key(rng)) for rng in generators]
    elapsed = [0] * NUM_BOARDS
    rng = np.random.default_rng(0)
    for _ in range(200):
        masks = engine.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (NUM_BOARDS, engine.n_actions)
        for i, board in enumerate(boards):
            np.testing.assert_array_equal(masks[i], board.action_mask(flags).astype(bool))
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        actions[rng.random(NUM_BOARDS) < 0.1] = 0  # now and then an action that may be invalid
        out = engine.step(actions)
        grids = engine.grids()
        for i, board in enumerate(boards):
            revealed = board.step(int(actions[i]), flags)
            elapsed[i] += 1
            over = board.is_over
            assert out.rewards[i] == k.step_reward(board.status_code, revealed, rewards.values)
            assert (out.terminated[i], out.success[i]) == (over, board.status == "won")
            assert out.truncated[i] == (not over and elapsed[i] >= max_steps)
            if over or out.truncated[i]:
                np.testing.assert_array_equal(out.final_obs[i], board.grid.ravel())
                board.new_game(draw_layout_key(generators[i]))
                elapsed[i] = 0
            np.testing.assert_array_equal(grids[i], board.grid)


def test_the_settings_read_back() -> None:
    engine = BatchEngine(BoardSpec(4, 4, 2, "safe"), 2, flags=True)
    assert (engine.flags, engine.max_steps, engine.n_actions, engine.rewards) == (True, 64, 32, RewardConfig())
    with pytest.raises(ValueError, match="num_boards must be at least 1, got 0"):
        BatchEngine(BoardSpec(4, 4, 2, "safe"), 0)

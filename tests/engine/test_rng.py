"""The engine's random numbers: the layout keys drawn per game (the draws against the plain reference are in
test_reference.py)."""

from __future__ import annotations

import numpy as np

from mine_env.engine.rng import KEY_LIMIT, draw_layout_key, draw_layout_keys, layout_key


def test_a_block_of_layout_keys_equals_the_keys_drawn_one_by_one() -> None:
    block = draw_layout_keys(np.random.default_rng(5), 300)
    one_by_one = np.random.default_rng(5)
    assert block.dtype == np.int64
    assert block.tolist() == [draw_layout_key(one_by_one) for _ in range(300)]
    assert all(0 <= key < KEY_LIMIT for key in block.tolist())


def test_the_layout_key_of_a_seed_is_the_first_key_of_its_generator() -> None:
    assert layout_key(5) == draw_layout_key(np.random.default_rng(5))
    assert layout_key(5) != layout_key(6)

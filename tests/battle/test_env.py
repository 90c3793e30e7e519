"""The battle env against PettingZoo's own checks, plus what the contract says of it."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from battle.rules import OPPONENT_MINE, OWN_MINE
from mine_env import battle


def play_random(game_env, seed: int) -> list[tuple[str, float]]:  # type: ignore[no-untyped-def]
    """Play one game with seeded random legal moves; returns (agent, reward) per visit."""
    rng = np.random.default_rng(seed)
    game_env.reset(seed=seed)
    trace = []
    for agent in game_env.agent_iter():
        observation, reward, terminated, truncated, _ = game_env.last()
        trace.append((agent, reward))
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        game_env.step(action)
    return trace


@pytest.mark.parametrize("kwargs", [{}, {"rows": 6, "cols": 7, "mines": 9, "bomb": True, "mine_reward": 0.1}])
def test_the_env_passes_pettingzoos_api_test(kwargs: dict) -> None:
    api_test(battle.env(**kwargs), num_cycles=300)
    api_test(battle.raw_env(**kwargs), num_cycles=300)


def test_the_env_passes_pettingzoos_seed_and_render_tests() -> None:
    seed_test(battle.env, num_cycles=300)
    render_test(lambda render_mode=None: battle.env(rows=5, cols=5, mines=5, render_mode=render_mode))


def test_the_parallel_env_passes_pettingzoos_parallel_api_test() -> None:
    parallel_api_test(battle.parallel_env(rows=6, cols=6, mines=7), num_cycles=300)


def test_the_default_game_is_16x16_with_51_mines_and_is_reproducible_by_seed() -> None:
    game_env = battle.env()
    trace = play_random(game_env, seed=5)
    assert game_env.unwrapped.game.layout.sum() == 51
    assert trace == play_random(battle.env(), seed=5)
    final = {agent: reward for agent, reward in trace[-2:]}
    assert sorted(final.values()) == [-1.0, 1.0]
    scores = game_env.unwrapped.game.scores
    assert max(scores) == 26


def test_a_mine_keeps_the_turn_and_scores_are_in_the_info() -> None:
    game_env = battle.env(rows=5, cols=5, mines=5)
    game_env.reset(seed=1)
    layout = game_env.unwrapped.game.layout.ravel()
    mine = int(np.flatnonzero(layout)[0])
    game_env.step(mine)
    assert game_env.agent_selection == "player_0"
    assert game_env.infos["player_0"]["score"] == 1 and game_env.infos["player_1"]["opponent_score"] == 1
    assert game_env.observe("player_0")["observation"].flat[mine] == OWN_MINE
    assert game_env.observe("player_1")["observation"].flat[mine] == OPPONENT_MINE
    safe = int(np.flatnonzero(~layout)[0])
    game_env.step(safe)
    assert game_env.agent_selection == "player_1"
    assert game_env.observe("player_1")["action_mask"].dtype == np.int8


def test_mine_shaping_is_zero_sum() -> None:
    game_env = battle.env(rows=5, cols=5, mines=5, mine_reward=0.25)
    game_env.reset(seed=1)
    game_env.step(int(np.flatnonzero(game_env.unwrapped.game.layout.ravel())[0]))
    assert game_env.rewards == {"player_0": 0.25, "player_1": -0.25}


def test_an_illegal_move_ends_the_wrapped_game_and_the_raw_env_says_why() -> None:
    game_env = battle.env(rows=5, cols=5, mines=5)
    game_env.reset(seed=1)
    safe = int(np.flatnonzero(~game_env.unwrapped.game.layout.ravel())[0])
    game_env.step(safe)
    game_env.step(safe)  # PettingZoo logs "Illegal move made" and ends the game
    assert game_env.rewards["player_1"] == -1 and all(game_env.terminations.values())
    raw = battle.raw_env(rows=5, cols=5, mines=5)
    raw.reset(seed=1)
    raw.step(safe)
    with pytest.raises(ValueError, match="already open"):
        raw.step(safe)
    with pytest.raises(ValueError, match=r"outside 0\.\.24"):
        raw.step(50)


def test_a_bomb_that_is_not_allowed_ends_the_wrapped_game_and_the_raw_env_says_why() -> None:
    """Nobody is behind at the start, so a bomb is not allowed: PettingZoo's illegal-move convention, or why."""
    game_env = battle.env(rows=6, cols=6, mines=7, bomb=True)
    game_env.reset(seed=2)
    assert not game_env.last()[0]["action_mask"][36:].any()
    game_env.step(36 + 14)
    assert game_env.rewards["player_0"] == -1 and all(game_env.terminations.values())
    raw = battle.raw_env(rows=6, cols=6, mines=7, bomb=True)
    raw.reset(seed=2)
    with pytest.raises(ValueError, match="not behind"):
        raw.step(36 + 14)
    with pytest.raises(ValueError, match="action 50 is a bomb, but the bomb rule is off"):
        off = battle.raw_env(rows=6, cols=6, mines=7)
        off.reset(seed=2)
        off.step(36 + 14)


def test_bad_options_are_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match=r"needs 1\.\.25 mines"):
        battle.env(rows=5, cols=5, mines=30)
    with pytest.raises(ValueError, match="unknown render_mode"):
        battle.env(render_mode="video")
    with pytest.raises(ValueError, match="mine_reward must be a number"):
        battle.env(mine_reward="1")


def test_the_renderings_show_both_players_claims() -> None:
    game_env = battle.env(rows=5, cols=5, mines=5, render_mode="ansi")
    game_env.reset(seed=1)
    game_env.step(int(np.flatnonzero(game_env.unwrapped.game.layout.ravel())[0]))
    text = game_env.render()
    assert "A" in text and "player_0 (A) 1 - 0 player_1 (B)" in text and "player_0 to move" in text
    image = battle.env(rows=5, cols=5, mines=5, render_mode="rgb_array")
    image.reset(seed=1)
    frame = image.render()
    assert frame.dtype == np.uint8 and frame.shape == (5 * 24, 5 * 24, 3)


def test_importing_mine_env_does_not_import_pettingzoo() -> None:
    code = "import sys, mine_env; assert 'pettingzoo' not in sys.modules and 'mine_env.battle' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_public_path_is_the_battle_packages_env_without_a_warning() -> None:
    """mine_env.battle (shared/CONTRACT.md) re-exports battle.env: the same objects, and no DeprecationWarning."""
    code = """if True:
        import warnings
        import battle.env as home
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from mine_env import battle
        assert not [w for w in caught if issubclass(w.category, DeprecationWarning)], caught
        assert all(getattr(battle, name) is getattr(home, name) for name in home.__all__)
    """
    subprocess.run([sys.executable, "-c", code], check=True)

"""The text env in TextArena's interface: its own make/reset/get_observation/step/close loop plays a seeded game
with a model's replies (the reference server's solver and random play), the oracle's tally in the game info.
Skipped, with the reason, without textarena."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mine_llm.chat import Endpoint
from mine_llm.policies import ChatPolicy
from mine_llm.reference_server import ReferenceServer, running_server

ta = pytest.importorskip("textarena", reason="textarena is not installed: pip install textarena")
from mine_llm.textarena_env import ENV_IDS, register_envs  # noqa: E402


@pytest.fixture(scope="module")
def model() -> Iterator[ReferenceServer]:
    with running_server() as server:
        yield server


def play(env_id: str, seed: int, policy: ChatPolicy, **kwargs: object) -> tuple[float, dict]:
    env = ta.make(env_id, **kwargs)
    env.reset(num_players=1, seed=seed)
    done = False
    while not done:
        player, observation = env.get_observation()
        assert player == 0 and "Status: playing" in observation.splitlines()[-1]
        done, _ = env.step(policy.reply(observation.split("[GAME] ")[-1]).reply)
    rewards, game_info = env.close()
    return rewards[0], game_info[0]


@pytest.mark.slow
def test_textarena_plays_a_seeded_game_graded_by_the_oracle(model: ReferenceServer) -> None:
    register_envs()
    register_envs()  # twice is harmless
    assert set(ENV_IDS) <= set(ta.envs.registration.ENV_REGISTRY)
    solver = ChatPolicy(Endpoint(model.url, "solver"))
    reward, info = play("Minesweeper-Oracle-v0", 2**64 - 1, solver, rows=5, cols=5, mines=3)
    assert reward == 1.0 and info["won"] and info["logic_score"] == 1.0 and info["wrong_flags"] == 0
    assert "game won" in info["reason"]
    reward, info = play("Minesweeper-Oracle-v0", 3, ChatPolicy(Endpoint(model.url, "random")), rows=5, cols=5, mines=3)
    assert reward == -1.0 and not info["won"] and info["avoidable_risk"] > 0


def test_bracketed_moves_and_bad_replies_change_nothing_but_say_why() -> None:
    register_envs()
    env = ta.make("Minesweeper-Oracle-v0", rows=5, cols=5, mines=3)
    env.reset(num_players=1, seed=0)
    env.get_observation()
    done, _ = env.step("[2 2]")  # TextArena's own move format, read as a reveal
    assert not done and "reveal 2 2 opened" in env.get_observation()[1]
    done, _ = env.step("dig somewhere")
    assert not done and "invalid, nothing changed: no move found" in env.get_observation()[1]
    with pytest.raises(ValueError, match="one-player game"):
        env.reset(num_players=2)

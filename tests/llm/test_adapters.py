"""The OpenEnv adapter end to end through its real client path: OpenEnv's own client plays the text env served by
the adapter with a model's replies (the reference server, whose model is a baseline); tests/llm/test_verifiers_env.py
does the same for verifiers. Skipped, with the reason, without the ``llm`` extra."""

from __future__ import annotations

import contextlib
import importlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mine_llm.chat import Endpoint
from mine_llm.policies import ChatPolicy
from mine_llm.reference_server import ReferenceServer, running_server
from mine_llm.text_env import MinesweeperTextEnv


def needs(module: str) -> Any:
    """The module, or a skip naming the extra that brings it."""
    return pytest.importorskip(module, reason=f"{module} is not installed: pip install -e '.[llm]'")


@pytest.fixture(scope="module")
def model() -> Iterator[ReferenceServer]:
    with running_server() as server:
        yield server


@contextlib.contextmanager
def openenv_server(**env_kwargs: Any) -> Iterator[tuple[Any, str]]:
    """The adapter module and the URL of its OpenEnv server of ``env_kwargs``, on a free loopback port."""
    needs("openenv.core")
    uvicorn = needs("uvicorn")
    adapter = importlib.import_module("mine_llm.openenv_env")
    app = adapter.create_minesweeper_app(**env_kwargs)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield adapter, f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.mark.slow
def test_openenv_plays_the_documented_board_over_the_whole_seed_range(model: ReferenceServer) -> None:
    policy = ChatPolicy(Endpoint(model.url, "solver"))
    with openenv_server(preset="beginner", reward="dense") as (adapter, url):
        for seed in (0, 2**63, 2**64 - 1):
            local = MinesweeperTextEnv(preset="beginner", reward="dense")  # the same game, here
            local.reset(seed=seed)
            with adapter.MinesweeperEnvClient(base_url=url).sync() as env:
                result = env.reset(seed=seed)
                assert "Minesweeper 9x9, 10 mines" in result.observation.board
                while not result.done:
                    reply = policy.reply(result.observation.board).reply
                    result = env.step(adapter.MinesweeperAction(reply=reply))
                    board, reward, *_ = local.step(reply)
                    assert result.observation.board == board and result.reward == pytest.approx(reward)
                assert result.observation.game["graded_moves"] >= 1


def test_openenv_server_and_client_play_a_model_s_replies(model: ReferenceServer) -> None:
    policy = ChatPolicy(Endpoint(model.url, "solver"))
    with openenv_server(rows=5, cols=5, mines=3, reward="dense") as (adapter, url):
        for seed in (0, 1):
            with adapter.MinesweeperEnvClient(base_url=url).sync() as env:
                result = env.reset(seed=seed)
                bad = env.step(adapter.MinesweeperAction(reply="dig here"))
                assert "no move found in 'dig here'" in bad.observation.error and bad.reward == pytest.approx(-0.1)
                total = 0.0
                while not result.done:
                    result = env.step(adapter.MinesweeperAction(reply=policy.reply(result.observation.board).reply))
                    total += result.reward
                assert result.observation.won and result.observation.game["logic_score"] == 1.0
                assert total == pytest.approx(1.0 + 0.1 * result.observation.game["graded_moves"])
                assert env.state().step_count == result.observation.game["replies"]
    with pytest.raises(ValueError, match="unknown reward scheme"):
        adapter.create_minesweeper_app(reward="shaped")

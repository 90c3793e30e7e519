"""The verifiers and OpenEnv adapters, each end to end through its real client path: the framework's own client
asks a model on an OpenAI-compatible endpoint (the reference server, whose model is a baseline) and plays the
text env through the adapter. Skipped, with the reason, without the ``llm`` extra."""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mine_llm.chat import Endpoint
from mine_llm.policies import ChatPolicy
from mine_llm.reference_server import ReferenceServer, running_server


def needs(module: str, attribute: str | None = None) -> Any:
    """The module, or a skip naming the extra that brings it."""
    found = pytest.importorskip(module, reason=f"{module} is not installed: pip install -e '.[llm]'")
    if attribute is not None and not hasattr(found, attribute):
        version = getattr(found, "__version__", "?")
        pytest.skip(f"{module} {version} has no {attribute}: the llm extra pins verifiers 0.3")
    return found


@pytest.fixture(scope="module")
def model() -> Iterator[ReferenceServer]:
    with running_server() as server:
        yield server


def test_verifiers_plays_seeded_games_scored_by_the_oracle(
    model: ReferenceServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs("verifiers", "MultiTurnEnv")
    from verifiers.types import ClientConfig

    from mine_llm.verifiers_env import load_environment

    monkeypatch.setenv("MINESWEEPER_TEST_KEY", "unused")
    env = load_environment(rows=5, cols=5, mines=3, games=3, seed=1, weights={"env_return": 0.25})
    config = ClientConfig(api_base_url=model.url, api_key_var="MINESWEEPER_TEST_KEY", max_retries=0)
    outputs = {}
    for name in ("solver", "random"):
        outputs[name] = env.evaluate_sync(client=config, model=name, num_examples=3)["outputs"]
    for output in outputs["solver"]:
        assert output["error"] is None and output["win"] == 1.0 and output["logic_score"] == 1.0
        assert output["reward"] == pytest.approx(1.0 + 0.5 + 0.25)
        last = output["completion"][-1]
        assert "Status: won" in (last["content"] if isinstance(last, dict) else last.content)
    for output in outputs["random"]:
        assert output["win"] == 0.0 and output["env_return"] == -1.0 and output["avoidable_risk_per_move"] > 0
        assert output["reward"] == pytest.approx(0.5 * output["logic_score"] - 0.25)
    assert [o["info"]["seed"] for o in outputs["solver"]] == [o["info"]["seed"] for o in outputs["random"]]
    with pytest.raises(ValueError, match="unknown rubric function"):
        load_environment(games=1, weights={"speed": 1.0})


def test_openenv_server_and_client_play_a_model_s_replies(model: ReferenceServer) -> None:
    needs("openenv.core")
    uvicorn = needs("uvicorn")
    adapter = importlib.import_module("mine_llm.openenv_env")
    app = adapter.create_minesweeper_app(rows=5, cols=5, mines=3, reward="dense")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    policy = ChatPolicy(Endpoint(model.url, "solver"))
    try:
        for seed in (0, 1):
            with adapter.MinesweeperEnvClient(base_url=f"http://127.0.0.1:{port}").sync() as env:
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
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    with pytest.raises(ValueError, match="unknown reward scheme"):
        adapter.create_minesweeper_app(reward="shaped")

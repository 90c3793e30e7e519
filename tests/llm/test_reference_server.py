"""The reference server as the frameworks' clients use it: streamed completions (server-sent events, as
verifiers' harness asks for them) and a board read from the last tool result (a game played by tool calls)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator

import pytest

from mine_llm.reference_server import ReferenceServer, answer, running_server
from mine_llm.text_env import MinesweeperTextEnv


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with running_server() as running:
        yield running


def post(server: ReferenceServer, body: dict) -> tuple[str, bytes]:
    request = urllib.request.Request(f"{server.url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.headers["Content-Type"], response.read()


def test_a_streamed_request_gets_the_completion_as_server_sent_events(server: ReferenceServer) -> None:
    board, _ = MinesweeperTextEnv(rows=5, cols=5, mines=3).reset(seed=0)
    body = {"model": "solver", "messages": [{"role": "user", "content": board}]}
    kind, raw = post(server, {**body, "stream": True})
    events = raw.decode().split("\n\n")
    assert kind == "text/event-stream" and events[-2:] == ["data: [DONE]", ""]
    chunks = [json.loads(event.removeprefix("data: ")) for event in events[:-2]]
    streamed = "".join(chunk["choices"][0]["delta"].get("content", "") for chunk in chunks)
    assert streamed == answer(body)["choices"][0]["message"]["content"]
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop" and chunks[-1]["usage"]["completion_tokens"] > 0
    _, raw = post(server, {**body, "stream": True, "tools": [{"type": "function"}]})
    call = json.loads(raw.decode().split("\n\n")[0].removeprefix("data: "))["choices"][0]["delta"]["tool_calls"][0]
    assert call["index"] == 0 and call["function"]["name"] == "make_move"


def test_the_board_of_a_tool_played_game_is_the_last_tool_result() -> None:
    env = MinesweeperTextEnv(rows=5, cols=5, mines=3)
    first, _ = env.reset(seed=1)
    later, *_ = env.step("reveal 2 2")
    messages = [{"role": "user", "content": first}, {"role": "assistant", "content": None, "tool_calls": []},
                {"role": "tool", "tool_call_id": "call_0", "content": later}]  # fmt: skip
    def move(conversation: list[dict]) -> str:
        return answer({"model": "solver", "messages": conversation})["choices"][0]["message"]["content"]

    assert move(messages[:1]).endswith("reveal 2 2")  # the solver's opening on the first board
    assert not move(messages).endswith("reveal 2 2")  # on the board of the tool result, 2 2 is open
    with pytest.raises(ValueError, match="last user message \\(or tool result\\) must be text"):
        answer({"model": "solver", "messages": [{"role": "tool", "content": None}]})

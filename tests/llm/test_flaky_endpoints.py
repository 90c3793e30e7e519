"""A flaky or broken model endpoint does not end a run: each kind of bad answer from a hostile loopback server is
sorted (an invalid reply, a game ended as an endpoint failure, or a stop), and a run ends with its report."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from eval.suites import Suite
from mine_llm.chat import ChatReply, Endpoint, EndpointError, ReplyFailed, complete
from mine_llm.evaluate import RunStopped, evaluate_text, play_text_game
from mine_llm.policies import AgentTextPolicy, ChatPolicy
from mine_llm.reference_server import answer
from mine_llm.text_env import MinesweeperTextEnv
from support import run_cli

SUITE = Suite("tiny", 6, 6, 5, "opening", games=6, base_seed=11)
BOARD = ["--rows", "6", "--cols", "6", "--mines", "5", "--games", "4", "--seed", "2", "--no-progress"]
TIMEOUT_S = 0.5
"""The tests' time-out of one answer: short, to keep them fast, and still ample for the solver's move."""
SLOW_S = 1.2
"""How long a slow answer keeps the client waiting: well past the time-out."""
Chooser = Callable[[str], str]
"""``choose(observation) -> fault``: how the hostile server answers a request for that board."""


class HostileServer(ThreadingHTTPServer):
    """An OpenAI-compatible server on 127.0.0.1 that answers each request with the fault its chooser names:
    ``ok`` (the solver's move), an HTTP status (``"500"``, ``"429"``, ...), or one of :data:`BODIES`' faults."""

    daemon_threads = True

    def __init__(self, choose: Chooser) -> None:
        super().__init__(("127.0.0.1", 0), _HostileHandler)
        self.choose = choose
        self.lock = threading.Lock()
        self.faults: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def handle_error(self, request: Any, client_address: Any) -> None:  # a client that gave up: nothing to say
        return


def _completion(content: Any, **message: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content, **message}}]}


def _solver_move(body: dict[str, Any]) -> str:
    return answer({**body, "tools": None, "model": "solver"})["choices"][0]["message"]["content"]


BAD_CALL = {"type": "function", "function": {"name": "make_move", "arguments": "{not json"}}
BODIES: dict[str, Callable[[dict[str, Any]], bytes]] = {
    "ok": lambda body: json.dumps(answer({**body, "model": "solver"})).encode(),
    "broken": lambda body: b'{"choices": [{"message": {"content": "reveal',
    "garbage": lambda body: b"\xff\xfe\x00 not even text",
    "empty": lambda body: json.dumps({"choices": []}).encode(),
    "null": lambda body: json.dumps(_completion(None)).encode(),
    "badtool": lambda body: json.dumps(_completion(None, tool_calls=[BAD_CALL])).encode(),
    "oddtool": lambda body: json.dumps(_completion(None, tool_calls=["call", {"function": "reveal 1 1"}])).encode(),
    "oddmessage": lambda body: json.dumps({"choices": [{"message": "reveal 1 1"}]}).encode(),
    "huge": lambda body: json.dumps(_completion("reveal 0 0 " * 20_000)).encode(),
    "long": lambda body: json.dumps(_completion("Let me think. " * 2_000 + _solver_move(body))).encode(),
    "usage": lambda body: json.dumps({**_completion(_solver_move(body)), "usage": {"prompt_tokens": "many"}}).encode(),
}
"""Answers with status 200 whose body is wrong in some way (or, ``ok``, right)."""


class _HostileHandler(BaseHTTPRequestHandler):
    server: HostileServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        observation = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        with self.server.lock:
            fault = self.server.choose(observation)
            self.server.faults.append(fault)
        if fault == "slow":
            time.sleep(SLOW_S)
            fault = "ok"
        if fault == "drop":  # the connection closed without an answer
            self.close_connection = True
            return
        if fault.isdigit():
            payload = json.dumps({"error": {"message": f"the hostile server says {fault}"}}).encode()
            self._send(int(fault), payload, {"Retry-After": "0"})
        elif fault == "trickle":  # a whole answer, sent too slowly to arrive within the time-out
            self._send(200, BODIES["ok"](body), pause=SLOW_S / 6)
        else:
            self._send(200, BODIES[fault](body))

    def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None, pause: float = 0.0) -> None:
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", "Content-Length": str(len(data)),
                            **(headers or {})}.items():  # fmt: skip
            self.send_header(name, value)
        self.end_headers()
        step = max(1, len(data) // 8) if pause else len(data)
        for start in range(0, len(data), step):
            self.wfile.write(data[start : start + step])
            self.wfile.flush()
            time.sleep(pause)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture(scope="module", autouse=True)
def _solver_compiled() -> None:
    """The solver's kernels compiled before any test, so that no answer waits on numba past the time-out."""
    for size in (5, 6):
        board = MinesweeperTextEnv(rows=size, cols=size, mines=3).reset(seed=0)[0]
        assert _solver_move({"messages": [{"role": "user", "content": board}]}).startswith("The safest cell")


@contextlib.contextmanager
def hostile(choose: Chooser) -> Iterator[HostileServer]:
    server = HostileServer(choose)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def scripted(*faults: str, then: str = "ok") -> Chooser:
    """The faults in order, one per request, then ``then`` for every request after."""
    queue = list(faults)
    return lambda observation: queue.pop(0) if queue else then


def failing_from_game(game: int, fault: str) -> Chooser:
    """``ok`` for the first ``game`` games (one at a time), then ``fault`` for every request."""
    started = 0

    def choose(observation: str) -> str:
        nonlocal started
        started += "Last move: none" in observation  # a game's first board
        return "ok" if started <= game else fault

    return choose


def _ask(server: HostileServer, **kwargs: Any) -> ChatReply:
    endpoint = Endpoint(server.url, "solver", **{"retries": 1, "backoff": 0.01, "timeout": TIMEOUT_S, **kwargs})
    board = MinesweeperTextEnv(rows=5, cols=5, mines=3).reset(seed=0)[0]
    return complete(endpoint, [{"role": "user", "content": board}])


@pytest.mark.parametrize(
    "fault", ["500", "503", "429", "broken", "garbage", "empty", "oddmessage", "slow", "trickle", "drop"]
)
def test_a_passing_failure_is_retried_and_counted(fault: str) -> None:
    with hostile(scripted(fault)) as server:
        reply = _ask(server)
    assert reply.retries == 1 and isinstance(reply.reply, str) and reply.reply.endswith("reveal 2 2")
    assert server.faults == [fault, "ok"]


@pytest.mark.parametrize(
    ("faults", "why"),
    [
        (("500", "502"), "failed 2 times, the last: HTTP 502"),
        (("broken", "garbage"), "failed 2 times, the last: the answer is not JSON"),
        (("empty", "empty"), "the last: the answer is not a chat completion (no choices[0].message"),
        (("slow", "trickle"), f"the last: no whole answer within {TIMEOUT_S:g} s (--llm-timeout)"),
        (("trickle", "slow"), f"the last: no answer within {TIMEOUT_S:g} s (--llm-timeout)"),
        (("drop", "drop"), "the last: RemoteDisconnected"),
        (("400",), "refused the request: HTTP 400 Bad Request: the hostile server says 400"),
        (("503", "413"), "refused the request: HTTP 413"),
    ],
)  # fmt: skip
def test_a_request_that_fails_for_good_ends_its_game(faults: tuple[str, ...], why: str) -> None:
    with hostile(scripted(*faults)) as server, pytest.raises(ReplyFailed, match=re.escape(why)) as failed:
        _ask(server)
    assert failed.value.tries == len(faults) and server.faults == list(faults)
    assert "\n" not in str(failed.value)


@pytest.mark.parametrize(
    ("fault", "why"),
    [("401", "HTTP 401 Unauthorized: the hostile server says 401 (give the key with --llm-api-key"),
     ("403", "HTTP 403 Forbidden: the hostile server says 403 (the key is not allowed this model"),
     ("404", "HTTP 404 Not Found: the hostile server says 404 (check the URL")],
)  # fmt: skip
def test_an_endpoint_that_cannot_be_used_stops_at_once(fault: str, why: str) -> None:
    with hostile(scripted(then=fault)) as server, pytest.raises(EndpointError, match=re.escape(why)) as error:
        _ask(server)
    assert not isinstance(error.value, ReplyFailed) and server.faults == [fault]


@pytest.mark.parametrize(
    ("fault", "reply"),
    [("null", ""), ("badtool", {"name": "make_move", "arguments": "{not json"}),
     ("oddtool", {"name": None, "arguments": ""}),
     ("huge", "(a reply of over 100000 bytes, not read)")],
)  # fmt: skip
def test_an_answer_without_a_move_is_returned_for_the_env_to_count(fault: str, reply: Any) -> None:
    with hostile(scripted(fault)) as server:
        answered = _ask(server, max_reply_bytes=100_000)
    assert answered.reply == reply and answered.retries == 0


def test_a_long_reply_within_the_limit_is_played_and_bad_usage_counts_nothing() -> None:
    with hostile(scripted("long", "usage")) as server:
        long, usage = _ask(server), _ask(server)
    assert len(long.reply) > 20_000 and long.reply.endswith("reveal 2 2")
    assert usage.reply.endswith("reveal 2 2") and usage.prompt_tokens == usage.completion_tokens == 0


def test_a_game_whose_request_fails_for_good_ends_as_an_endpoint_failure() -> None:
    with hostile(scripted("ok", "503", "503")) as server:
        policy = ChatPolicy(Endpoint(server.url, "solver", retries=1, backoff=0.01))
        game = play_text_game(MinesweeperTextEnv(rows=6, cols=6, mines=5), policy, SUITE, 0, "llm")
    assert game.endpoint_failure is not None and "failed 2 times, the last: HTTP 503" in game.endpoint_failure
    assert not game.record.won and game.requests == 1 and game.record.steps == 1 and game.retries == 2
    assert dataclasses.asdict(game)["endpoint_failure"] == game.endpoint_failure  # the per-game log's form


def _chat(url: str, **kwargs: Any) -> functools.partial[ChatPolicy]:
    endpoint = Endpoint(url, "solver", **kwargs)
    return functools.partial(lambda endpoint, seed: ChatPolicy(endpoint), endpoint)


def test_a_run_against_a_hostile_endpoint_ends_with_its_report() -> None:
    """Every kind of fault once, in one run: the run plays every game and counts what went wrong."""
    faults = ("500", "429", "ok", "broken", "ok", "null", "badtool", "huge", "long", "empty", "ok", "slow", "trickle",
              "ok", "drop", "garbage", "usage", "503", "503", "503", "400")  # fmt: skip
    with hostile(scripted(*faults)) as server:
        model = _chat(server.url, retries=2, backoff=0.01, timeout=TIMEOUT_S, max_reply_bytes=100_000)
        players = [("llm:solver", model), ("solver", functools.partial(AgentTextPolicy, "solver"))]
        report = evaluate_text(players, SUITE, concurrency=1, progress=False, failure_streak=3)
    assert server.faults[: len(faults)] == list(faults)
    llm, solver = report.summary["results"]
    assert llm["games"] == solver["games"] == SUITE.games and solver["wins"] == SUITE.games
    assert llm["endpoint_failures"] == 2 and llm["wins"] == SUITE.games - 2 and llm["invalid_replies"] == 3
    assert llm["retries"] == 2 + 1 + 1 + 2 + 2 + 3 + 1 and solver["endpoint_failures"] == 0
    assert report.summary["paired"][0]["only_second"] == 2 and "stopped" not in report.summary
    json.dumps(report.summary)


def test_a_run_whose_endpoint_fails_game_after_game_stops_with_the_games_played() -> None:
    with hostile(failing_from_game(1, "500")) as server:
        players = [("llm:solver", _chat(server.url, retries=0))]
        with pytest.raises(RunStopped) as stop:
            evaluate_text(players, SUITE, concurrency=1, progress=False, failure_streak=2)
    line = str(stop.value)
    assert "llm:solver: 2 games in a row ended by endpoint failures, the last: the model endpoint" in line
    assert "(check the server and its log, then run again); stopped after 3 of 6 games" in line and "\n" not in line
    report = stop.value.report
    assert report is not None and report.stopped == line == report.summary["stopped"]
    (llm,) = report.summary["results"]
    assert llm["games"] == 3 and llm["wins"] == 1 and llm["endpoint_failures"] == 2


def test_the_command_reports_a_run_through_a_flaky_endpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "llm.json"
    with hostile(scripted("500", "429", "ok", "null", "badtool", "broken", "ok", "503", "503", "503")) as server:
        argv = ["eval", "--llm-endpoint", server.url, "--llm-model", "solver", "--agent", "solver", *BOARD,
                "--llm-concurrency", "1", "--llm-retries", "2", "--llm-timeout", "5", "--json", str(path)]  # fmt: skip
        status, out, err = run_cli(argv, capsys)
    assert status == 0, err
    assert "| retries | endpoint failures |" in out and "| llm:solver | 4 | 75.0% |" in out
    llm, solver = json.loads(path.read_text())["results"]
    assert (llm["games"], llm["wins"], llm["endpoint_failures"], llm["invalid_replies"]) == (4, 3, 1, 2)
    assert llm["retries"] == 6 and solver["endpoint_failures"] == 0


@pytest.mark.parametrize(
    ("fault", "streak", "why"),
    [("500", "2", "llm:solver: 2 games in a row ended by endpoint failures, the last: the model endpoint"),
     ("401", "5", "refused the request: HTTP 401 Unauthorized: the hostile server says 401 (give the key")],
)  # fmt: skip
def test_the_command_stops_on_a_persistent_failure_in_one_line_with_the_games_kept(
    fault: str, streak: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "llm.json"
    with hostile(failing_from_game(1, fault)) as server:
        argv = ["eval", "--llm-endpoint", server.url, "--llm-model", "solver", *BOARD, "--llm-concurrency", "1",
                "--llm-retries", "0", "--llm-failure-streak", streak, "--json", str(path)]  # fmt: skip
        status, out, err = run_cli(argv, capsys)
    assert status == 2 and why in err and "stopped after" in err and err.count("\n") == 1 and "Traceback" not in err
    report = json.loads(path.read_text())
    (llm,) = report["results"]
    assert llm["wins"] == 1 and llm["games"] == 1 + llm["endpoint_failures"] and report["stopped"] in err
    assert "| llm:solver |" in out

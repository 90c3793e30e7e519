"""Evaluating a model through the text env: the same games and statistics as ``minesweeper eval``, the client's
retries and errors, and the command line, against the reference server on an ephemeral loopback port."""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval.game_log import open_game_log, read_game_log
from eval.runner import evaluate
from eval.stopping import Stopped, stop_signals
from eval.suites import Suite
from mine_llm.chat import Endpoint, EndpointError, complete
from mine_llm.evaluate import evaluate_text
from mine_llm.policies import AgentTextPolicy, ChatPolicy, Turn
from mine_llm.reference_server import ReferenceServer, running_server
from support import run_cli

SUITE = Suite("tiny", 6, 6, 5, "opening", games=6, base_seed=11)
BOARD = ["--rows", "6", "--cols", "6", "--mines", "5", "--games", "4", "--seed", "2", "--no-progress"]


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with running_server() as running:
        yield running


def chat(server: ReferenceServer, model: str, **kwargs: object) -> functools.partial[ChatPolicy]:
    return functools.partial(lambda endpoint, seed: ChatPolicy(endpoint), Endpoint(server.url, model, **kwargs))


def test_the_text_path_plays_the_games_of_the_grid_env_with_the_same_records() -> None:
    """A baseline read through the text makes the very moves it makes on the grid: identical records."""
    grid = evaluate(["solver", "random"], SUITE, workers=1, progress=False)
    text = evaluate_text([(name, functools.partial(AgentTextPolicy, name)) for name in ("solver", "random")],
                         SUITE, concurrency=2, progress=False)  # fmt: skip
    assert [r.outcome() for r in text.records] == [r.outcome() for r in grid.records]
    grid_results = grid.to_dict()["results"]
    for text_result, grid_result in zip(text.summary["results"], grid_results, strict=True):
        assert {key: text_result[key] for key in grid_result if key != "time_per_game_ms"} == {
            key: value for key, value in grid_result.items() if key != "time_per_game_ms"}  # fmt: skip
    assert text.summary["paired"][0]["agents"] == ["solver", "random"]


def test_the_zero_start_plays_the_grid_env_s_games_too() -> None:
    """The zero start (a zero cell opened for the agent at reset) gives the grid env's records as well."""
    suite = Suite("tiny", 8, 8, 10, "opening", games=6, base_seed=5).with_zero_start()
    grid = evaluate(["solver", "random"], suite, workers=1, progress=False)
    text = evaluate_text([(name, functools.partial(AgentTextPolicy, name)) for name in ("solver", "random")],
                         suite, concurrency=2, progress=False)  # fmt: skip
    assert [r.outcome() for r in text.records] == [r.outcome() for r in grid.records]


def test_a_model_on_the_endpoint_is_graded_with_tokens_latency_and_invalid_replies(server: ReferenceServer) -> None:
    players = [("llm:solver", chat(server, "solver")), ("llm:solver-tools", chat(server, "solver", tools=True)),
               ("llm:nonsense", chat(server, "nonsense")), ("solver", functools.partial(AgentTextPolicy, "solver"))]
    report = evaluate_text(players, SUITE, concurrency=3, progress=False, env_kwargs={"max_steps": 12})
    model, tools, nonsense, solver = report.summary["results"]
    for result in (model, tools):
        assert result["win_rate"] == solver["win_rate"] == 1.0 and result["logic_score"] == 1.0
        assert result["avoidable_risk_per_move"] == 0.0 and result["invalid_replies"] == 0
        assert result["tokens"]["prompt"] > 0 and result["tokens"]["completion"] > 0
        assert result["latency"]["requests"] == sum(r.steps for r in report.records if r.agent == result["agent"])
        assert 0 < result["latency"]["median_s"] <= result["latency"]["p95_s"]
    assert nonsense["wins"] == 0 and nonsense["invalid_replies"] == 6 * 12 and nonsense["invalid_reply_rate"] == 1.0
    assert nonsense["logic_score"] is None and nonsense["mean_steps"] == 12
    assert {"interface", "ci95", "avoidable_losses", "mean_excess_risk"} <= set(model)
    json.dumps(report.summary)


def test_failed_requests_are_retried_and_counted() -> None:
    with running_server(fail_first=2) as failing:
        answer = complete(Endpoint(failing.url, "solver", backoff=0.01), [{"role": "user", "content": _board()}])
        assert answer.retries == 2 and answer.reply.endswith("reveal 2 2")
    exhausted = pytest.raises(EndpointError, match="failed 2 times, the last: HTTP 503")
    with running_server(fail_first=5) as failing, exhausted:
        complete(Endpoint(failing.url, "solver", retries=1, backoff=0.01), [{"role": "user", "content": _board()}])


def test_answers_in_content_parts_or_without_choices() -> None:
    from mine_llm.chat import _read_answer, _Retryable

    parts = {"choices": [{"message": {"content": [{"type": "text", "text": "reveal "}, {"text": "1 2"}]}}]}
    assert _read_answer(parts) == ("reveal 1 2", {})
    refusal = {"choices": [{"message": {"content": None, "refusal": "I cannot help with that."}}], "usage": 3}
    assert _read_answer(refusal) == ("I cannot help with that.", {})
    with pytest.raises(_Retryable, match="not a chat completion"):
        _read_answer({"error": "overloaded"})


def _board() -> str:
    from mine_llm.text_env import MinesweeperTextEnv

    return MinesweeperTextEnv(rows=5, cols=5, mines=3).reset(seed=0)[0]


def test_the_command_evaluates_a_model_with_reference_rows(
    server: ReferenceServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "llm.json"
    argv = ["eval", "--llm-endpoint", server.url, "--llm-model", "solver", "--agent", "solver", "--agent", "random",
            *BOARD, "--llm-concurrency", "2", "--json", str(path)]  # fmt: skip
    status, out, err = run_cli(argv, capsys)
    assert status == 0, err
    assert "| llm:solver | 4 | 100.0% |" in out and "llm:solver vs solver" in out and "| logic score |" in out
    report = json.loads(path.read_text())
    assert set(report) == {"suite", "results", "paired"}
    assert [result["agent"] for result in report["results"]] == ["llm:solver", "solver", "random"]
    assert report["results"][2]["logic_score"] < 1.0 and report["results"][2]["avoidable_risk_per_move"] > 0


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(
    ("options", "error"),
    [
        (["--llm-model", "solver", "--agent", "solver"], "--llm-model needs --llm-endpoint URL"),
        (["--llm-endpoint", "URL"], "--llm-endpoint needs --llm-model NAME"),
        (["--llm-endpoint", "localhost:8000", "--llm-model", "m"], "must be an http:// or https:// URL"),
        (["--llm-endpoint", "URL", "--llm-model", "m", "--model", "x.zip"], "--model plays saved networks"),
        (["--llm-endpoint", "URL", "--llm-model", "m", "--no-oracle"], "drop --no-oracle"),
        (["--llm-endpoint", "URL", "--llm-model", "m", "--backend", "ray"], "drop --backend"),
        (["--llm-endpoint", "URL", "--llm-model", "m", "--llm-concurrency", "0"], "--llm-concurrency must be at"),
        (["--llm-endpoint", "URL", "--llm-model", "m", "--llm-failure-streak", "0"], "--llm-failure-streak must be at"),
        (["--llm-endpoint", "URL", "--llm-model", "gpt-9"], "HTTP 404 Not Found: unknown model 'gpt-9'"),
        (["--llm-endpoint", "CLOSED", "--llm-model", "m"], "connection refused (is the server running?)"),
        (["--llm-endpoint", "NOPATH", "--llm-model", "solver"], "HTTP 404"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line(
    server: ReferenceServer, options: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = {"URL": server.url, "CLOSED": f"http://127.0.0.1:{_closed_port()}/v1", "NOPATH": server.url[:-3] + "/v2"}
    argv = ["eval", *(urls.get(option, option) for option in options), *BOARD]
    status, _, err = run_cli(argv, capsys)
    assert status == 2 and error in err and err.count("\n") == 1 and "Traceback" not in err


class StopOnMove(AgentTextPolicy):
    """The solver, sending this process SIGINT on its ``stop_at``-th reply of the game."""

    def __init__(self, stop_at: int, seed: int | None = None) -> None:
        super().__init__("solver", seed)
        self.stop_at, self.replies = stop_at, 0

    def reply(self, observation: str) -> Turn:
        self.replies += 1
        if self.replies == self.stop_at:
            os.kill(os.getpid(), signal.SIGINT)
        return super().reply(observation)


def test_a_stopped_text_eval_keeps_its_games_and_resumes_to_the_same_report(tmp_path: Path) -> None:
    path = tmp_path / "text.games.jsonl"
    run = {"evaluation": "test"}
    stopping = [("solver", functools.partial(StopOnMove, 3)), ("random", functools.partial(AgentTextPolicy, "random"))]
    with open_game_log(path, run, resume=False) as log, pytest.raises(Stopped) as stopped, stop_signals():
        evaluate_text(stopping, SUITE, concurrency=2, progress=False, log=log)
    assert stopped.value.total == 2 * SUITE.games and stopped.value.done == len(read_game_log(path)[1]) < 12
    players = [(name, functools.partial(AgentTextPolicy, name)) for name in ("solver", "random")]
    with open_game_log(path, run, resume=True) as log:
        resumed = evaluate_text(players, SUITE, concurrency=2, progress=False, log=log)
    assert len(read_game_log(path)[1]) == 2 * SUITE.games  # the games kept were not played again
    unbroken = evaluate_text(players, SUITE, concurrency=2, progress=False)
    assert [r.outcome() for r in resumed.records] == [r.outcome() for r in unbroken.records]


def test_the_command_resumes_a_model_s_run_from_its_log(
    server: ReferenceServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "llm.games.jsonl"
    argv = ["eval", "--llm-endpoint", server.url, "--llm-model", "solver", "--agent", "random", *BOARD]
    status, first, err = run_cli([*argv, "--log", str(log)], capsys)
    assert status == 0, err
    lines = log.read_text()
    assert lines.count("\n") == 1 + 8 and '"prompt_tokens"' in lines
    status, again, _ = run_cli([*argv, "--resume", str(log)], capsys)
    assert status == 0 and again == first and log.read_text() == lines
    status, _, err = run_cli([*argv, "--llm-tools", "--resume", str(log)], capsys)
    assert status == 2 and "another run (llm_tools: false in the log, true now)" in err

"""The game log: a header naming the run, a line per game synced as it ends, torn lines dropped, other runs refused;
and an evaluation stopped by a signal that resumes to the report of an unbroken run."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from eval.agent_specs import AgentSpec, PolicyAgent
from eval.game_log import from_plain, log_beside, open_game_log, plain, read_game_log
from eval.metrics import GameRecord
from eval.pool import _runs, _tasks
from eval.runner import evaluate
from eval.stopping import Stopped, resume_command, stop_signals, stops_held
from eval.suites import Suite
from mine_llm.evaluate import TextGame

RUN = {"evaluation": "test", "agents": ["a", "b"], "suite": {"name": "s", "games": 3}}
RECORD = GameRecord("solver", 2, 77, True, 9, 0, 71, 1.0, 1, False, 0.125, 0.01, 40)
SMALL = Suite("small", 6, 6, 5, "opening", games=12, base_seed=3)


def test_a_log_reads_back_its_run_and_games(tmp_path: Path) -> None:
    path = tmp_path / "run.games.jsonl"
    with open_game_log(path, RUN, resume=False) as log:
        log.append([{"suite": "s", **plain(RECORD)}])
        log.append([{"suite": "s", "agent": "b", "game": 0}, {"suite": "s", "agent": "b", "game": 1}])
    run, games = read_game_log(path)
    assert run == RUN and len(games) == 3
    assert from_plain(GameRecord, games[0]) == RECORD
    with open_game_log(path, RUN, resume=True) as resumed:
        assert [game["game"] for game in resumed.games_of("s", {"b"}, 3)] == [0, 1]
        assert resumed.games_of("s", {"b"}, 1) == [games[1]]  # a game past the suite's end is not its


def test_a_torn_last_line_is_dropped_and_cut_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "torn.games.jsonl"
    with open_game_log(path, RUN, resume=False) as log:
        log.append([{"suite": "s", "agent": "a", "game": 0}])
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"suite": "s", "agent": "a", "ga')
    run, games = read_game_log(path)
    assert run == RUN and games == [{"suite": "s", "agent": "a", "game": 0}]
    assert path.read_bytes() == whole  # appending goes on after the last whole line
    path.write_bytes(whole.replace(b'"game": 0}', b'"game": 0') + b'{"suite": "s"}\n')
    with pytest.raises(ValueError, match=r":2 is not JSON: the game log is damaged"):
        read_game_log(path)


def test_a_resume_with_other_options_is_refused_naming_what_differs(tmp_path: Path) -> None:
    path = tmp_path / "run.games.jsonl"
    open_game_log(path, RUN, resume=False).close()
    with pytest.raises(ValueError, match=r"another run \(agents: \[\"a\", \"b\"\] in the log, \[\"a\"\] now\)"):
        open_game_log(path, {**RUN, "agents": ["a"]}, resume=True)
    with pytest.raises(ValueError, match="already holds a run: continue it with --resume"):
        open_game_log(path, RUN, resume=False)
    with pytest.raises(ValueError, match="no such game log"):
        open_game_log(tmp_path / "missing.jsonl", RUN, resume=True)
    (tmp_path / "other.json").write_text('{"suite": 1}\n')
    with pytest.raises(ValueError, match="is not a game log"):
        open_game_log(tmp_path / "other.json", RUN, resume=True)


def test_a_text_game_goes_through_the_log_field_by_field() -> None:
    game = TextGame(RECORD, 5, 4, 0.25, 6, 1000, 50, (0.5, 1.25), 1)
    values = json.loads(json.dumps(plain(game)))
    assert values["record"]["seed"] == 77 and values["latencies"] == [0.5, 1.25]
    assert from_plain(TextGame, values) == game


def test_the_default_log_lies_beside_the_report() -> None:
    assert log_beside("out/report.json") == Path("out/report.games.jsonl")


def test_the_resume_command_replaces_an_earlier_resume() -> None:
    command = resume_command("minesweeper", ["eval", "--agent", "solver", "--resume", "a b", "--resume=x"], "a b")
    assert command == "minesweeper eval --agent solver --resume 'a b'"
    assert resume_command("python -m eval.batched", ["--log", "l"], "l") == "python -m eval.batched --log l --resume l"


def test_the_chunks_left_skip_the_games_played() -> None:
    assert _runs([0, 1, 2, 5, 6, 9]) == [(0, 3), (5, 7), (9, 10)]
    tasks = _tasks(2, 10, 1, 4, [[0, 1, 2, 5, 6, 9], []])
    assert tasks == [(0, 0, 3), (0, 5, 7), (0, 9, 10)]
    assert _tasks(3, 12, 2) == _tasks(3, 12, 2, None, [range(12)] * 3)  # nothing played: the chunks of a new run


class StopAtGame:
    """A policy that plays the first legal cell and sends this process SIGINT on its ``stop_at``-th move."""

    def __init__(self, stop_at: int | None) -> None:
        self.moves = 0
        self.stop_at = stop_at

    def __call__(self, obs: Any, info: dict[str, Any]) -> int:
        self.moves += 1
        if self.moves == self.stop_at:
            os.kill(os.getpid(), signal.SIGINT)
        return int(info["action_mask"].argmax())


def agents(stop_at: int | None) -> list[Any]:
    return ["random", AgentSpec("first-legal", lambda seed: PolicyAgent(StopAtGame(stop_at)), seeded=False)]


def without_times(report: dict[str, Any]) -> dict[str, Any]:
    for result in report["results"]:
        result.pop("time_per_game_ms")
    return report


def test_a_run_stopped_by_a_signal_keeps_its_games_and_resumes_to_the_same_report(tmp_path: Path) -> None:
    log = tmp_path / "stopped.games.jsonl"
    before = signal.getsignal(signal.SIGINT)  # Python's own, or SIG_IGN in a job started in the background
    with pytest.raises(Stopped) as stopped, stop_signals():
        evaluate(agents(stop_at=20), SMALL, workers=1, progress=False, chunk_games=2, log=log)
    assert stopped.value.exit_status == 130 and stopped.value.total == 2 * SMALL.games
    _, kept = read_game_log(log)
    assert 0 < stopped.value.done == len(kept) < 2 * SMALL.games
    resumed = evaluate(agents(stop_at=None), SMALL, workers=1, progress=False, chunk_games=3, log=log, resume=True)
    _, games = read_game_log(log)
    assert sorted((game["agent"], game["game"]) for game in games) == sorted(
        (agent, game) for agent in ("random", "first-legal") for game in range(SMALL.games)
    )  # every game once: none played again
    unbroken = evaluate(agents(stop_at=None), SMALL, workers=1, progress=False)
    assert without_times(resumed.to_dict()) == without_times(unbroken.to_dict())
    assert signal.getsignal(signal.SIGINT) == before  # the handlers are given back


def test_a_stop_within_a_held_section_waits_for_its_end() -> None:
    steps: list[str] = []
    with pytest.raises(Stopped) as stopped, stop_signals():
        with stops_held():
            os.kill(os.getpid(), signal.SIGTERM)
            steps.append("logged")  # what a stop in mid-section would have cut off
            with stops_held():  # a nested section does not raise at its own end
                steps.append("counted")
            steps.append("both")
        steps.append("after")
    assert steps == ["logged", "counted", "both"] and stopped.value.exit_status == 143


def test_a_stop_between_writing_the_log_and_counting_its_games_reports_what_the_log_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import eval.game_log

    log = tmp_path / "run.games.jsonl"
    append = eval.game_log.GameLog.append

    def append_then_stop(self: eval.game_log.GameLog, games: list[dict[str, Any]]) -> None:
        append(self, games)
        if len(self.games) >= 4:
            os.kill(os.getpid(), signal.SIGTERM)  # the games are in the log, not yet counted by the loop

    monkeypatch.setattr(eval.game_log.GameLog, "append", append_then_stop)
    with pytest.raises(Stopped) as stopped, stop_signals():
        evaluate(["random"], SMALL, workers=1, progress=False, chunk_games=2, log=log)
    _, kept = read_game_log(log)
    assert stopped.value.done == len(kept) == 4

"""The demo warms up before it times anything, and says so."""

from __future__ import annotations

import pytest

import eval.demo as demo
from eval.suites import Suite

TINY = Suite("tiny", 5, 5, 3, "opening", games=3, base_seed=0)


def test_the_demo_plays_one_warm_up_game_per_agent_before_the_timed_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    played: list[int] = []
    evaluate = demo.evaluate

    def recording_evaluate(agents, suite, **kwargs):  # type: ignore[no-untyped-def]
        played.append(suite.games)
        return evaluate(agents, suite, **kwargs)

    monkeypatch.setattr(demo, "get_suite", lambda name: TINY)
    monkeypatch.setattr(demo, "evaluate", recording_evaluate)
    report = demo.run_demo("tiny", agents=("random", "rules"), workers=1, progress=False)
    assert played == [1, 3]  # the warm-up game, then the suite
    assert [result["games"] for result in report["results"]] == [3, 3]
    first_line, table = capsys.readouterr().out.split("\n", 1)
    assert first_line.startswith("Warm-up: one game per agent in ") and "leave it out" in first_line
    assert "ms/game" in table


def test_the_warm_up_compiles_the_solvers_env_path_only_when_a_solver_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    warmed: list[list[str]] = []
    monkeypatch.setattr(demo, "warm_up_solver", lambda paths: warmed.append(list(paths)) or 0.0)
    monkeypatch.setattr(demo, "evaluate", lambda agents, suite, **kwargs: None)
    demo.warm_up(TINY, ["random", "rules"])
    assert warmed == []
    demo.warm_up(TINY, ["random", "solver-fast"])
    assert warmed == [["env"]]

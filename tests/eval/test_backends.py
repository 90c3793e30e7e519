"""eval on the backends (:mod:`backends`): the same records on Ray as locally (even when a worker dies), clear
refusals by the commands. The Ray tests start a private two-CPU Ray instance and need the ``ray`` extra."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import pytest

from backends import LocalBackend, open_backend
from eval.agent_specs import resolve_agents
from eval.pool import PlayContext, _tasks, play_on, play_suite, play_task
from eval.suites import Suite
from support import run_cli

SMALL = Suite("small", 6, 6, 5, "opening", games=40, base_seed=11)
DOOMED_CHUNK = 3


def outcomes(records: list) -> list[tuple]:
    return [(record.agent, record.game, record.outcome()) for record in records]


def die_on_first_try(marker_dir: str, context: PlayContext, task: tuple[int, int, int]) -> list:
    """eval's chunk job, except that the process playing chunk DOOMED_CHUNK dies the first time it starts it."""
    marker = Path(marker_dir) / "died"
    if task == context_tasks(context)[DOOMED_CHUNK] and not marker.exists():
        marker.touch()
        os._exit(1)
    return play_task(context, task)


def context_tasks(context: PlayContext) -> list[tuple[int, int, int]]:
    return _tasks(len(context.agents), context.suite.games, 2)


@pytest.fixture(scope="module")
def ray_backend():
    ray = pytest.importorskip("ray")
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # test jobs travel by value
    with open_backend("ray", workers=2) as backend:
        yield backend


@pytest.mark.slow
def test_ray_plays_the_same_games_as_the_local_backend(ray_backend) -> None:
    agents = resolve_agents(["random", "solver"], SMALL.spec())
    local = play_suite(SMALL, agents, workers=1, progress=False)
    assert outcomes(play_on(ray_backend, SMALL, agents, progress=False)) == outcomes(local)
    without_oracle = play_suite(SMALL, agents, workers=1, oracle=False, progress=False)
    assert outcomes(play_on(ray_backend, SMALL, agents, oracle=False, progress=False)) == outcomes(without_oracle)


@pytest.mark.slow
def test_a_chunk_whose_worker_dies_is_played_again_and_counted_once(ray_backend, tmp_path: Path) -> None:
    agents = resolve_agents(["random", "rules"], SMALL.spec())
    context = PlayContext(SMALL, tuple(agents), False, "dies-once")
    tasks = context_tasks(context)
    job = functools.partial(die_on_first_try, str(tmp_path))
    results = dict(ray_backend.run(job, context, tasks))
    assert (tmp_path / "died").exists(), "the doomed chunk's worker never died: the test tested nothing"
    assert sorted(results) == list(range(len(tasks)))
    records = sorted((record for chunk in results.values() for record in chunk), key=lambda r: (r.agent, r.game))
    local = play_suite(SMALL, agents, workers=1, oracle=False, progress=False)
    assert outcomes(records) == outcomes(sorted(local, key=lambda r: (r.agent, r.game)))


def test_the_cli_refuses_a_bad_address_before_playing(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", "--agent", "random", "--games", "1000000", "--address", "10.0.0.5:6379"]
    status, out, err = run_cli(argv, capsys)
    assert status == 2 and out == ""
    assert err.strip().splitlines()[-1] == (
        "minesweeper eval: error: --address 10.0.0.5:6379 joins a Ray cluster: add --backend ray"
    )


def test_the_cli_says_how_to_install_ray_when_it_is_missing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("backends.choose.ray_installed", lambda: False)
    status, out, err = run_cli(["eval", "--agent", "random", "--games", "1000000", "--backend", "ray"], capsys)
    assert status == 2 and out == ""
    assert "--backend ray needs Ray, which is not installed: pip install 'minesweeper-rl[ray]'" in err


@pytest.mark.slow
def test_the_solver_studies_win_the_same_games_on_ray(ray_backend) -> None:
    """studies/solver_ablation.py's play_setting (first_click.py's too) on both backends."""
    sys.path.insert(0, str(Path(__file__).parents[2] / "studies"))
    try:
        import solver_ablation as studies
    finally:
        sys.path.pop(0)
    import ray

    ray.cloudpickle.register_pickle_by_value(studies)
    suite = Suite("study", 9, 9, 10, "safe", games=60, base_seed=4)
    settings = {"strength": "fast", "first_cell": (2, 2)}
    with LocalBackend(1) as local:
        won_local, _ = studies.play_setting(local, suite, settings)
    won_ray, _ = studies.play_setting(ray_backend, suite, settings)
    assert won_local.tolist() == won_ray.tolist() and won_local.size == suite.games


@pytest.mark.slow
def test_a_battle_tournament_on_ray_reports_what_the_local_one_does() -> None:
    from battle.rules import BattleSpec
    from battle.tournament import run_tournament

    pytest.importorskip("ray")
    spec = BattleSpec(6, 6, 9)
    local = run_tournament(["random", "greedy"], spec, boards=12, seed=5)
    on_ray = run_tournament(["random", "greedy"], spec, boards=12, seed=5, workers=2, backend="ray")
    assert on_ray == local and local["results"][0]["games"] == 24


def test_the_chunk_size_changes_no_record() -> None:
    agents = resolve_agents(["random", "rules"], SMALL.spec())
    default = play_suite(SMALL, agents, workers=1, progress=False)
    assert outcomes(play_suite(SMALL, agents, workers=1, progress=False, chunk_games=7)) == outcomes(default)
    with pytest.raises(ValueError, match="chunk_games must be at least 1"):
        play_suite(SMALL, agents, workers=1, progress=False, chunk_games=0)


def test_the_cli_refuses_a_chunk_of_no_games(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(["eval", "--agent", "random", "--games", "1000000", "--chunk-games", "0"], capsys)
    assert status == 2 and out == ""
    assert err.strip().splitlines()[-1] == "minesweeper eval: error: --chunk-games must be at least 1, got 0"

"""Playing a suite in worker processes: the same records for any number of workers, clear refusals."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eval.agent_specs import resolve_agents
from eval.pool import MAX_CHUNK, _tasks, play_suite
from eval.suites import Suite

SMALL = Suite("small", 6, 6, 5, "opening", games=12, base_seed=3)


@pytest.mark.slow
def test_results_do_not_depend_on_the_number_of_workers() -> None:
    agents = resolve_agents(["random", "rules", "solver"], SMALL.spec())
    one = play_suite(SMALL, agents, workers=1, progress=False)
    two = play_suite(SMALL, agents, workers=2, progress=False)
    assert [record.outcome() for record in one] == [record.outcome() for record in two]
    assert [(record.agent, record.game) for record in one] == [
        (agent, game) for agent in ("random", "rules", "solver") for game in range(SMALL.games)
    ]


@pytest.mark.parametrize(("agents", "games", "workers"), [(1, 1, 1), (3, 12, 2), (2, 1000, 4)])
def test_tasks_cover_every_game_of_every_agent_once_in_small_chunks(agents: int, games: int, workers: int) -> None:
    tasks = _tasks(agents, games, workers)
    played = sorted((agent, game) for agent, first, stop in tasks for game in range(first, stop))
    assert played == [(agent, game) for agent in range(agents) for game in range(games)]
    assert all(0 < stop - first <= MAX_CHUNK for _, first, stop in tasks)


def test_workers_must_be_at_least_one() -> None:
    with pytest.raises(ValueError, match="workers must be at least 1"):
        play_suite(SMALL, resolve_agents(["random"], SMALL.spec()), workers=0, progress=False)


def test_a_cold_cache_compiles_once_in_this_process_not_in_every_worker(tmp_path: Path) -> None:
    """On a fresh install every worker compiled the same kernels at once: a notice from each, and as many times the
    CPU (3 notices and 15 s of CPU before, 1 and 10 s after, for the engine alone on 2 workers)."""
    code = ("from eval.runner import evaluate; from eval.suites import Suite; "
            "evaluate(['random'], Suite('tiny', 5, 5, 3, 'opening', games=8, base_seed=0), oracle=False, "
            "progress=False, workers=2)")  # fmt: skip
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "MINESWEEPER_RL_COMPILE_NOTICE": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}  # fmt: skip
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert [line for line in result.stderr.splitlines() if line.startswith("minesweeper-rl: compiling")] == [
        "minesweeper-rl: compiling the game engine's kernels once (a few seconds; later runs load them from the cache)"
    ]

"""Play every game of a suite for every agent, in this process or in a pool of worker processes.

Workers are separate processes started with the ``spawn`` method (safe with numba and torch); the agents
are sent to them by pickling, so a function used with ``workers > 1`` must be defined at module level. Each
game's record depends only on the suite, the agent and the game's index (:mod:`eval.player`), so the records
are the same for any number of workers and any order of play (their ``time_s`` aside).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections.abc import Iterable, Sequence

from tqdm import tqdm

from eval.agent_specs import AgentSpec
from eval.metrics import GameRecord
from eval.player import GamePlayer
from eval.suites import Suite

MAX_CHUNK = 50
"""Most games of one agent sent to a worker at once: small enough for a live progress bar."""

Task = tuple[int, int, int]
"""(agent index, first game, stop): a chunk of one agent's games."""

_WORKER_PLAYER: GamePlayer | None = None


def default_workers() -> int:
    """Every core of this machine."""
    return os.cpu_count() or 1


def play_suite(
    suite: Suite, agents: Sequence[AgentSpec], *, workers: int = 1, oracle: bool = True, progress: bool = True
) -> list[GameRecord]:
    """Every game of the suite for every agent, sorted by (agent, game).

    Args:
        suite: The games.
        agents: Resolved agents (see :func:`eval.agent_specs.resolve_agents`).
        workers: Processes to play in; 1 plays in this process.
        oracle: Compute the oracle metrics (see :class:`eval.player.GamePlayer`).
        progress: Show a tqdm progress bar on stderr.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    tasks = _tasks(len(agents), suite.games, workers)
    bar = tqdm(total=suite.games * len(agents), desc=suite.name, unit="game", disable=not progress, leave=False)
    records: list[GameRecord] = []
    with bar:
        for chunk in _run_tasks(suite, agents, tasks, workers, oracle):
            records.extend(chunk)
            bar.update(len(chunk))
    order = {spec.label: i for i, spec in enumerate(agents)}
    records.sort(key=lambda record: (order[record.agent], record.game))
    return records


def _tasks(n_agents: int, games: int, workers: int) -> list[Task]:
    """(agent, first game, stop) chunks, agents interleaved so they all progress together."""
    chunk = max(1, min(MAX_CHUNK, games // (4 * workers)))
    return [(agent, first, min(first + chunk, games)) for first in range(0, games, chunk) for agent in range(n_agents)]


def _run_tasks(
    suite: Suite, agents: Sequence[AgentSpec], tasks: list[Task], workers: int, oracle: bool
) -> Iterable[list[GameRecord]]:
    if workers == 1:
        player = GamePlayer(suite, agents, oracle)
        for agent_index, first, stop in tasks:
            yield player.play_games(agent_index, range(first, stop))
        return
    _check_picklable(agents)
    context = multiprocessing.get_context("spawn")
    with context.Pool(min(workers, len(tasks)), _start_worker, (suite, list(agents), oracle)) as pool:
        yield from pool.imap_unordered(_play_task, tasks)


def _check_picklable(agents: Sequence[AgentSpec]) -> None:
    for spec in agents:
        try:
            pickle.dumps(spec)
        except Exception as error:  # pickling raises several types (PicklingError, AttributeError, TypeError)
            raise ValueError(
                f"agent {spec.label!r} cannot be sent to worker processes ({error}); define its function or "
                "class at module level, or use workers=1"
            ) from None


def _start_worker(suite: Suite, agents: list[AgentSpec], oracle: bool) -> None:
    """Pool initializer: one GamePlayer per process, torch kept to one thread so workers don't compete."""
    global _WORKER_PLAYER
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    _WORKER_PLAYER = GamePlayer(suite, agents, oracle)


def _play_task(task: Task) -> list[GameRecord]:
    agent_index, first, stop = task
    assert _WORKER_PLAYER is not None, "the worker was not initialised"
    return _WORKER_PLAYER.play_games(agent_index, range(first, stop))

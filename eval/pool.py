"""Play every game of a suite for every agent, in chunks, on a backend: this process, local worker
processes, or Ray tasks on one machine or a cluster (:mod:`backends`).

Local workers are separate processes started with the ``spawn`` method (safe with numba and torch); the
agents are sent to them by pickling, so a function used with ``workers > 1`` must be defined at module level.
Each game's record depends only on the suite, the agent and the game's index (:mod:`eval.player`), so the
records are the same for any backend, any number of workers and any order of play (their ``time_s`` aside).
That is also why a run can stop and resume: with a game log (:mod:`eval.game_log`) every record is written as
its chunk comes back, and a resumed run plays only the games the log lacks.
"""

from __future__ import annotations

import os
import pickle
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tqdm import tqdm

from backends import Backend, check_workers, open_backend
from eval.agent_specs import AgentSpec
from eval.game_log import GameLog, from_plain, plain
from eval.metrics import GameRecord
from eval.player import GamePlayer
from eval.stopping import count_games, interrupt_behind, stops_held
from eval.suites import Suite

MAX_CHUNK = 50
"""Most games of one agent played as one chunk: small enough for a live progress bar."""

Task = tuple[int, int, int]
"""(agent index, first game, stop): a chunk of one agent's games."""


@dataclass(frozen=True)
class PlayContext:
    """What every chunk of one evaluation shares; ``token`` tells a worker when its cached player is stale."""

    suite: Suite
    agents: tuple[AgentSpec, ...]
    oracle: bool
    token: str


_PLAYER: tuple[str, GamePlayer] | None = None
"""This process's player of the latest context: built once per worker, not once per chunk."""


def default_workers() -> int:
    """Every core of this machine."""
    return os.cpu_count() or 1


def play_suite(
    suite: Suite,
    agents: Sequence[AgentSpec],
    *,
    workers: int = 1,
    oracle: bool = True,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
    chunk_games: int | None = None,
    log: GameLog | None = None,
) -> list[GameRecord]:
    """Every game of the suite for every agent, sorted by (agent, game).

    Args:
        suite: The games.
        agents: Resolved agents (see :func:`eval.agent_specs.resolve_agents`).
        workers: Processes to play in (1 plays in this process), or the CPUs of a private Ray instance.
        oracle: Compute the oracle metrics (see :class:`eval.player.GamePlayer`).
        progress: Show a tqdm progress bar on stderr.
        backend: ``"local"`` (this machine's processes) or ``"ray"`` (Ray tasks, see :mod:`backends`).
        address: The Ray cluster to join (``host:port``); without it ``"ray"`` starts a private instance.
        chunk_games: Games of one agent per chunk (default: up to :data:`MAX_CHUNK`, fewer on a small suite);
            larger chunks cost less per game in scheduling, smaller ones show progress sooner.
        log: Write every record there as its chunk finishes, and play only the games it does not hold yet.
    """
    check_workers(workers)
    check_chunk_games(chunk_games)
    if backend == "local" and workers > 1:
        _check_picklable(agents)
        compile_here(suite, agents, oracle)
    with open_backend(backend, workers, address) as runner:
        return play_on(runner, suite, agents, oracle=oracle, progress=progress, chunk_games=chunk_games, log=log)


def play_on(
    runner: Backend,
    suite: Suite,
    agents: Sequence[AgentSpec],
    *,
    oracle: bool = True,
    progress: bool = True,
    chunk_games: int | None = None,
    log: GameLog | None = None,
) -> list[GameRecord]:
    """:func:`play_suite` on a backend already open (to play several suites on the same workers)."""
    global _PLAYER
    context = PlayContext(suite, tuple(agents), oracle, uuid.uuid4().hex)
    records = logged_records(log, suite, agents) if log is not None else []
    done = {(record.agent, record.game) for record in records}
    left = [[game for game in range(suite.games) if (spec.label, game) not in done] for spec in agents]
    tasks = _tasks(len(agents), suite.games, runner.workers, chunk_games, left)
    total = suite.games * len(agents)
    bar = tqdm(total=total, initial=len(records), desc=suite.name, unit="game", disable=not progress, leave=False)
    try:
        with bar:
            for _, chunk in runner.run(play_task, context, tasks):
                with stops_held():  # a stop counts the games the log holds, no more, no fewer
                    if log is not None:
                        log.append([{"suite": suite.name, **plain(record)} for record in chunk])
                    records.extend(chunk)
                bar.update(len(chunk))
    except (KeyboardInterrupt, SystemError) as error:  # a Stopped, or Ctrl-C without eval.stopping.stop_signals
        stop = interrupt_behind(error)
        if stop is None:
            raise
        count_games(stop, len(records), total)
        if stop is error:
            raise
        raise stop from None
    finally:
        _PLAYER = None  # the player of this process (workers=1), not kept after the evaluation
    order = {spec.label: i for i, spec in enumerate(agents)}
    records.sort(key=lambda record: (order[record.agent], record.game))
    return records


def compile_here(suite: Suite, agents: Sequence[AgentSpec], oracle: bool) -> None:
    """Play each agent's first game in this process, and forget it, before local workers start.

    On a fresh install numba compiles the kernels the games need: here once, with one notice, after which the
    workers load them from the cache in a fraction of a second; else every worker compiles the same kernels at
    the same time (as many times the CPU, and a notice from each). Once they are cached it costs a game per agent.
    """
    player = GamePlayer(suite, tuple(agents), oracle)
    for agent_index in range(len(agents)):
        player.play_games(agent_index, range(min(1, suite.games)))


def check_chunk_games(chunk_games: int | None) -> None:
    if chunk_games is not None and (isinstance(chunk_games, bool) or not isinstance(chunk_games, int)
                                    or chunk_games < 1):  # fmt: skip
        raise ValueError(f"chunk_games must be at least 1 (or None for the default), got {chunk_games!r}")


def logged_records(log: GameLog, suite: Suite, agents: Sequence[AgentSpec]) -> list[GameRecord]:
    """The records of ``log`` that belong to this suite and these agents, each game once."""
    records: dict[tuple[str, int], GameRecord] = {}
    for entry in log.games_of(suite.name, {spec.label for spec in agents}, suite.games):
        record = from_plain(GameRecord, entry)
        records.setdefault((record.agent, record.game), record)
    return list(records.values())


def _tasks(n_agents: int, games: int, workers: int, chunk_games: int | None = None,
           left: Sequence[Collection[int]] | None = None) -> list[Task]:  # fmt: skip
    """(agent, first game, stop) chunks, agents interleaved so they all progress together; ``left``: each agent's
    games still to play (default: all), cut into chunks that never span a game already played."""
    chunk = chunk_games or max(1, min(MAX_CHUNK, games // (4 * workers)))
    tasks = []
    for agent in range(n_agents):
        wanted = range(games) if left is None else sorted(left[agent])
        for start, stop in _runs(wanted):
            tasks += [(agent, first, min(first + chunk, stop)) for first in range(start, stop, chunk)]
    return sorted(tasks, key=lambda task: (task[1], task[0]))


def _runs(games: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive games as (first, stop) runs: [0, 1, 2, 5, 6] -> [(0, 3), (5, 7)]."""
    runs: list[tuple[int, int]] = []
    for game in games:
        if runs and runs[-1][1] == game:
            runs[-1] = (runs[-1][0], game + 1)
        else:
            runs.append((game, game + 1))
    return runs


def play_task(context: PlayContext, task: Task) -> list[GameRecord]:
    """The job of a chunk: one agent's games ``first..stop-1``, on this process's player of the context."""
    global _PLAYER
    if _PLAYER is None or _PLAYER[0] != context.token:
        _PLAYER = (context.token, GamePlayer(context.suite, context.agents, context.oracle))
    agent_index, first, stop = task
    return _PLAYER[1].play_games(agent_index, range(first, stop))


def _check_picklable(agents: Sequence[AgentSpec]) -> None:
    for spec in agents:
        try:
            pickle.dumps(spec)
        except Exception as error:  # pickling raises several types (PicklingError, AttributeError, TypeError)
            raise ValueError(
                f"agent {spec.label!r} cannot be sent to worker processes ({error}); define its function or "
                "class at module level, or use workers=1"
            ) from None

"""Play agents through the real env on every game of a suite, in parallel, and keep one record per game.

Any policy can be evaluated: a baseline by name (``"solver"``, ``"rules"``, ``"random"``), an
:class:`agents.base.Agent`, a plain function ``policy(obs, info) -> action``, a saved stable-baselines3
model (a path to its ``.zip``), or an :class:`AgentSpec` for full control.

Reproducibility: game ``i`` always uses the seeds :meth:`eval.suites.Suite.game_seeds` ``(i)``. Agents built
by name (and any :class:`AgentSpec` with ``seeded=True``) are built afresh for every game from that game's
agent seed, so a random agent's moves in game ``i`` do not depend on the games played before it in the same
process. The records are therefore the same for any number of workers and any order of play (their
``time_s`` aside). An :class:`~agents.base.Agent` instance or a function is only ``reset()`` between games:
it must not carry randomness across games for this guarantee to hold.

Workers are separate processes started with the ``spawn`` method (safe with numba and torch); the agents
are sent to them by pickling, so a function used with ``workers > 1`` must be defined at module level.
"""

from __future__ import annotations

import functools
import multiprocessing
import operator
import os
import pickle
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.analysis.probability import safe_cells_and_probabilities
from agents.base import Agent
from agents.registry import AGENTS, make_agent
from agents.solver import SolverAgent
from eval.metrics import GameRecord, paired_comparison, summarise
from eval.suites import Suite
from mine_env.engine.board import layout_key
from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv

Policy = Callable[[np.ndarray, dict[str, Any]], Any]
"""A plain policy function: ``policy(obs, info) -> action index``."""

MAX_CHUNK = 50
"""Most games of one agent sent to a worker at once: small enough for a live progress bar."""


class PolicyAgent(Agent):
    """An :class:`~agents.base.Agent` around a plain function ``policy(obs, info) -> action``."""

    def __init__(self, policy: Policy, name: str | None = None) -> None:
        if not callable(policy):
            raise ValueError(f"a policy must be callable as policy(obs, info), got {type(policy).__name__}")
        self.policy = policy
        self.name = name or getattr(policy, "__name__", type(policy).__name__)

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        return self.policy(obs, info)


@dataclass(frozen=True)
class _SameAgent:
    """A picklable factory that ignores the seed and hands out one agent (reset between games)."""

    agent: Agent

    def __call__(self, seed: int | None) -> Agent:
        return self.agent


def _build_model_agent(path: str, spec: BoardSpec, seed: int | None) -> Agent:
    """Load a saved model in whatever process plays it (the seed is unused: greedy play is deterministic)."""
    from eval.models import load_model_agent

    return load_model_agent(path, spec)


@dataclass(frozen=True)
class AgentSpec:
    """How to build an agent in any process.

    Args:
        label: The agent's name in reports; unique within one evaluation.
        build: ``build(seed) -> Agent``. Must be picklable (a module-level function, a class, a
            ``functools.partial`` of those) to be used with more than one worker.
        seeded: True: a new agent is built for every game from that game's agent seed. False: one agent is
            built per process, with seed None, and ``reset()`` before every game.
    """

    label: str
    build: Callable[[int | None], Agent]
    seeded: bool = True

    @classmethod
    def named(cls, name: str) -> AgentSpec:
        """A baseline of :mod:`agents.registry`, rebuilt for every game from the game's agent seed."""
        if name not in AGENTS:
            raise ValueError(f"unknown agent {name!r}; expected one of {', '.join(sorted(AGENTS))}")
        return cls(name, functools.partial(make_agent, name), seeded=True)

    @classmethod
    def model(cls, path: str | Path, spec: BoardSpec) -> AgentSpec:
        """A saved stable-baselines3 model, checked against the board now (errors before any game starts)."""
        from eval.models import load_model_agent, model_label

        load_model_agent(path, spec)
        return cls(model_label(path), functools.partial(_build_model_agent, str(path), spec), seeded=False)

    @classmethod
    def instance(cls, agent: Agent | Policy, label: str | None = None) -> AgentSpec:
        """An agent object or a plain function, reset between games."""
        if not isinstance(agent, Agent):
            agent = PolicyAgent(agent)
        return cls(label or agent.name, _SameAgent(agent), seeded=False)


AgentLike = str | Path | Agent | AgentSpec | Policy
"""Anything :func:`evaluate` accepts as an agent."""


def resolve_agent(agent: AgentLike, spec: BoardSpec) -> AgentSpec:
    """Turn a name, a model path, an agent, a function or an AgentSpec into an AgentSpec.

    Raises:
        ValueError: an unknown name, or something that is none of these.
        FileNotFoundError: a model path that does not exist.
    """
    if isinstance(agent, AgentSpec):
        return agent
    if isinstance(agent, Path) or (isinstance(agent, str) and agent.endswith(".zip")):
        return AgentSpec.model(agent, spec)
    if isinstance(agent, str):
        if agent not in AGENTS:
            raise ValueError(
                f"unknown agent {agent!r}; expected one of {', '.join(sorted(AGENTS))}, or a path to a saved "
                "model (.zip)"
            )
        return AgentSpec.named(agent)
    if isinstance(agent, Agent) or callable(agent):
        return AgentSpec.instance(agent)
    raise ValueError(
        f"cannot evaluate {agent!r}: expected an agent name, a model path, an Agent, a function "
        "policy(obs, info) -> action or an AgentSpec"
    )


def resolve_agents(agents: AgentLike | Iterable[AgentLike], spec: BoardSpec) -> list[AgentSpec]:
    """Resolve every agent and make their labels unique (a repeated label gets ``#2``, ``#3``...)."""
    if isinstance(agents, str | Path | Agent | AgentSpec) or callable(agents):
        agents = [agents]
    resolved = [resolve_agent(agent, spec) for agent in agents]
    if not resolved:
        raise ValueError("no agent to evaluate: give at least one")
    seen: dict[str, int] = {}
    unique = []
    for item in resolved:
        seen[item.label] = seen.get(item.label, 0) + 1
        label = item.label if seen[item.label] == 1 else f"{item.label}#{seen[item.label]}"
        unique.append(AgentSpec(label, item.build, item.seeded))
    return unique


# --------------------------------------------------------------------------------------------------------
# Playing games.
# --------------------------------------------------------------------------------------------------------


class _OracleTally:
    """Guesses, excess risk and an avoidable loss of one game, judged move by move by the exact oracle.

    The oracle knows the numbers on the board, not the first-click rule, so a first click that the rule
    makes safe is not judged (nothing is revealed yet: it would look like a guess).
    """

    def __init__(self, mines: int, rule_protects_first: bool) -> None:
        self.mines = mines
        self.rule_protects_first = rule_protects_first
        self.guesses = 0
        self.excess_risk = 0.0
        self.avoidable_loss = False
        self.seconds = 0.0
        self._view: tuple[np.ndarray, np.ndarray] | None = None

    def look(self, obs: np.ndarray, info: dict[str, Any]) -> None:
        """Before a move: the certainly safe cells and the mine probabilities of the position."""
        if self.rule_protects_first and info["revealed"] == 0:
            self._view = None
            return
        tick = time.perf_counter()
        safe, probabilities = safe_cells_and_probabilities(obs, self.mines)
        self._view = safe.ravel(), probabilities.ravel()
        self.seconds += time.perf_counter() - tick

    def judge(self, action: int, revealable: np.ndarray, lost: bool) -> None:
        """After a valid reveal: count it as a guess unless the cell was certainly safe."""
        if self._view is None:
            return
        safe, probabilities = self._view
        if safe[action]:
            return
        self.guesses += 1
        self.excess_risk += float(probabilities[action] - probabilities[revealable.astype(bool)].min())
        self.avoidable_loss = lost and bool(safe.any())


class GamePlayer:
    """Plays the games of one suite for a list of agents in the current process.

    Args:
        suite: The suite whose games are played.
        agents: The agents, by index.
        oracle: Compute the exact mine probabilities before every move to count guesses, avoidable losses
            and excess risk (slower); without it those metrics are None.
    """

    def __init__(self, suite: Suite, agents: Sequence[AgentSpec], oracle: bool = True) -> None:
        self.suite = suite
        self.agents = list(agents)
        self.oracle = oracle
        self.env = MinesweeperEnv(rows=suite.rows, cols=suite.cols, mines=suite.mines, first_click=suite.first_click)
        self._n_safe = suite.spec().n_safe
        self._built: dict[int, Agent] = {}

    def play_games(self, agent_index: int, games: Iterable[int]) -> list[GameRecord]:
        """Play the given games (indices into the suite) with one agent.

        Without the oracle, the solver plays in compiled code (:meth:`SolverAgent.play_compiled`): the same
        moves as through the env, many times faster.
        """
        games = list(games)
        solver = self._compiled_solver(agent_index)
        if solver is not None:
            return self._play_compiled(agent_index, solver, games)
        return [self.play(agent_index, game) for game in games]

    def _compiled_solver(self, agent_index: int) -> SolverAgent | None:
        """The agent's settings as a solver that may play whole games compiled, or None."""
        spec = self.agents[agent_index]
        if self.oracle or not spec.seeded:
            return None
        probe = spec.build(0)
        return probe if type(probe) is SolverAgent else None

    def _play_compiled(self, agent_index: int, solver: SolverAgent, games: list[int]) -> list[GameRecord]:
        """Play the games in one compiled call; each record's time is the call's mean per game."""
        suite = self.suite
        seeds = [suite.game_seeds(game) for game in games]
        keys = np.array([layout_key(seed.env) for seed in seeds], dtype=np.int64)
        start = time.perf_counter()
        won, revealed, steps = solver.play_compiled(
            suite.rows, suite.cols, suite.mines, suite.first_click, keys, [seed.agent for seed in seeds]
        )
        per_game = (time.perf_counter() - start) / max(len(games), 1)
        return [
            GameRecord(
                agent=self.agents[agent_index].label,
                game=game,
                seed=seed.env,
                won=bool(won[j]),
                steps=int(steps[j]),
                invalid_moves=0,
                safe_revealed=int(revealed[j]),
                safe_fraction=int(revealed[j]) / self._n_safe,
                guesses=None,
                avoidable_loss=None,
                excess_risk=None,
                time_s=per_game,
            )
            for j, (game, seed) in enumerate(zip(games, seeds, strict=True))
        ]

    def _agent(self, agent_index: int, agent_seed: int) -> Agent:
        spec = self.agents[agent_index]
        if spec.seeded:
            return spec.build(agent_seed)
        if agent_index not in self._built:
            self._built[agent_index] = spec.build(None)
        return self._built[agent_index]

    def play(self, agent_index: int, game: int) -> GameRecord:
        """Play game ``game`` of the suite with agent ``agent_index`` and record how it went."""
        label = self.agents[agent_index].label
        seeds = self.suite.game_seeds(game)
        agent = self._agent(agent_index, seeds.agent)
        agent.reset()
        env = self.env
        n_actions = env.n_actions
        tally = _OracleTally(self.suite.mines, self.suite.first_click != "none") if self.oracle else None
        steps = invalid = 0
        start = time.perf_counter()
        obs, info = env.reset(seed=seeds.env)
        while True:
            if tally is not None:
                tally.look(obs, info)
            action = _as_action(agent.act(obs, info), n_actions, label)
            revealable = info["action_mask"]  # hidden unflagged cells, before the move
            obs, _, terminated, truncated, info = env.step(action)
            steps += 1
            if not revealable[action]:
                invalid += 1
            elif tally is not None:
                tally.judge(action, revealable, lost=terminated and not info["is_success"])
            if terminated or truncated:
                break
        elapsed = time.perf_counter() - start - (tally.seconds if tally is not None else 0.0)
        return GameRecord(
            agent=label,
            game=game,
            seed=seeds.env,
            won=bool(info["is_success"]),
            steps=steps,
            invalid_moves=invalid,
            safe_revealed=int(info["revealed"]),
            safe_fraction=int(info["revealed"]) / self._n_safe,
            guesses=None if tally is None else tally.guesses,
            avoidable_loss=None if tally is None else tally.avoidable_loss,
            excess_risk=None if tally is None else tally.excess_risk,
            time_s=elapsed,
        )


def _as_action(action: Any, n_actions: int, label: str) -> int:
    """The agent's action as a Python int in range, or a ValueError naming the agent."""
    try:
        index = operator.index(action)
    except TypeError:
        raise ValueError(f"agent {label!r} returned {action!r}; an action must be an integer index") from None
    if not 0 <= index < n_actions:
        raise ValueError(f"agent {label!r} returned action {index}, outside 0..{n_actions - 1}")
    return index


# --------------------------------------------------------------------------------------------------------
# Worker processes.
# --------------------------------------------------------------------------------------------------------

_WORKER_PLAYER: GamePlayer | None = None


def _start_worker(suite: Suite, agents: list[AgentSpec], oracle: bool) -> None:
    """Pool initializer: one GamePlayer per process, torch kept to one thread so workers don't compete."""
    global _WORKER_PLAYER
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    _WORKER_PLAYER = GamePlayer(suite, agents, oracle)


def _play_task(task: tuple[int, int, int]) -> list[GameRecord]:
    agent_index, first, stop = task
    assert _WORKER_PLAYER is not None, "the worker was not initialised"
    return _WORKER_PLAYER.play_games(agent_index, range(first, stop))


def _tasks(n_agents: int, games: int, workers: int) -> list[tuple[int, int, int]]:
    """(agent, first game, stop) chunks, agents interleaved so they all progress together."""
    chunk = max(1, min(MAX_CHUNK, games // (4 * workers)))
    return [(agent, first, min(first + chunk, games)) for first in range(0, games, chunk) for agent in range(n_agents)]


def _check_picklable(agents: Sequence[AgentSpec]) -> None:
    for spec in agents:
        try:
            pickle.dumps(spec)
        except Exception as error:  # pickling raises several types (PicklingError, AttributeError, TypeError)
            raise ValueError(
                f"agent {spec.label!r} cannot be sent to worker processes ({error}); define its function or "
                "class at module level, or use workers=1"
            ) from None


def play_suite(
    suite: Suite, agents: Sequence[AgentSpec], *, workers: int = 1, oracle: bool = True, progress: bool = True
) -> list[GameRecord]:
    """Every game of the suite for every agent, sorted by (agent, game).

    Args:
        suite: The games.
        agents: Resolved agents (see :func:`resolve_agents`).
        workers: Processes to play in; 1 plays in this process.
        oracle: Compute the oracle metrics (see :class:`GamePlayer`).
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


def _run_tasks(
    suite: Suite, agents: Sequence[AgentSpec], tasks: list[tuple[int, int, int]], workers: int, oracle: bool
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


# --------------------------------------------------------------------------------------------------------
# The public entry point.
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvalReport:
    """The outcome of one evaluation: per-game records of every agent on one suite.

    Attributes:
        suite: The suite played.
        agents: The agents' labels, in the order given.
        records: Every game record, sorted by (agent, game).
        oracle: Whether the oracle metrics were computed.
    """

    suite: Suite
    agents: tuple[str, ...]
    records: tuple[GameRecord, ...]
    oracle: bool

    def records_of(self, agent: str) -> list[GameRecord]:
        """The records of one agent, by game."""
        if agent not in self.agents:
            raise ValueError(f"no agent {agent!r} in this report; it has {', '.join(self.agents)}")
        return [record for record in self.records if record.agent == agent]

    def to_dict(self) -> dict[str, Any]:
        """The report in the contract's JSON shape: ``{"suite", "results", "paired"}``."""
        per_agent = {agent: self.records_of(agent) for agent in self.agents}
        return {
            "suite": self.suite.to_dict(),
            "results": [summarise(per_agent[agent], oracle=self.oracle) for agent in self.agents],
            "paired": [
                paired_comparison(per_agent[a], per_agent[b])
                for i, a in enumerate(self.agents)
                for b in self.agents[i + 1 :]
            ],
        }


def default_workers() -> int:
    """Every core of this machine."""
    return os.cpu_count() or 1


def evaluate(
    agents: AgentLike | Iterable[AgentLike],
    suite: Suite,
    *,
    workers: int | None = None,
    oracle: bool = True,
    progress: bool = True,
) -> EvalReport:
    """Play every agent on every game of ``suite``.

    Args:
        agents: One agent or several: names of baselines, model paths (``.zip``), Agent objects, functions
            ``policy(obs, info) -> action``, or :class:`AgentSpec`.
        suite: The games (:func:`eval.suites.get_suite` or :func:`eval.suites.adhoc_suite`).
        workers: Processes to play in (default: every core). The records do not depend on it.
        oracle: Count guesses, avoidable losses and excess risk with the exact oracle (on by default).
        progress: Show a progress bar.

    Example:
        >>> from eval.suites import Suite
        >>> suite = Suite("tiny", 5, 5, 3, "opening", games=4, base_seed=0)
        >>> report = evaluate(["random", lambda obs, info: int(info["action_mask"].argmax())], suite,
        ...                   workers=1, progress=False)
        >>> [result["games"] for result in report.to_dict()["results"]]
        [4, 4]
    """
    resolved = resolve_agents(agents, suite.spec())
    workers = default_workers() if workers is None else workers
    records = play_suite(suite, resolved, workers=workers, oracle=oracle, progress=progress)
    return EvalReport(suite, tuple(spec.label for spec in resolved), tuple(records), oracle)

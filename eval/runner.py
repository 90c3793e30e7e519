"""Evaluate any agents on every game of a suite: :func:`evaluate` and its :class:`EvalReport`.

Any policy can be evaluated: a baseline by name (``"solver"``, ``"rules"``, ``"random"``), an
:class:`agents.base.Agent`, a plain function ``policy(obs, info) -> action``, a saved stable-baselines3
model (a path to its ``.zip``), or an :class:`AgentSpec` for full control (:mod:`eval.agent_specs`). The
games are played through the real env by :class:`GamePlayer` (:mod:`eval.player`), in parallel worker
processes or Ray tasks (:mod:`eval.pool`, :mod:`backends`); the records are the same for any backend,
any number of workers and any order of play.

``AgentSpec``, ``PolicyAgent``, ``resolve_agents`` and ``GamePlayer`` are re-exported here, where callers
have always found them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.agent_specs import AgentLike, AgentSpec, Policy, PolicyAgent, resolve_agent, resolve_agents
from eval.game_log import open_game_log
from eval.metrics import GameRecord, paired_comparison, summarise
from eval.player import GamePlayer
from eval.pool import default_workers, play_suite
from eval.suites import Suite

__all__ = [
    "AgentLike",
    "AgentSpec",
    "EvalReport",
    "GamePlayer",
    "Policy",
    "PolicyAgent",
    "default_workers",
    "evaluate",
    "play_suite",
    "resolve_agent",
    "resolve_agents",
]


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
                paired_comparison(per_agent[a], per_agent[b], self.suite.layout_follows_first_click())
                for i, a in enumerate(self.agents)
                for b in self.agents[i + 1 :]
            ],
        }


def evaluate(
    agents: AgentLike | Iterable[AgentLike],
    suite: Suite,
    *,
    workers: int | None = None,
    oracle: bool = True,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
    chunk_games: int | None = None,
    log: str | Path | None = None,
    resume: bool = False,
) -> EvalReport:
    """Play every agent on every game of ``suite``.

    Args:
        agents: One agent or several: names of baselines, model paths (``.zip``), Agent objects, functions
            ``policy(obs, info) -> action``, or :class:`AgentSpec`.
        suite: The games (:func:`eval.suites.get_suite` or :func:`eval.suites.adhoc_suite`).
        workers: Processes to play in (default: every core). The records do not depend on it.
        oracle: Count guesses, avoidable losses and excess risk with the exact oracle (on by default).
        progress: Show a progress bar.
        backend: ``"local"`` (processes of this machine) or ``"ray"`` (Ray tasks: a private Ray instance with
            ``workers`` CPUs, or the cluster at ``address``); see :mod:`backends`. Same records.
        address: ``host:port`` of a Ray head to join (``backend="ray"`` only).
        chunk_games: Games per chunk (default: up to 50); the records do not depend on it.
        log: A game log (:mod:`eval.game_log`) that every game is written to as it finishes.
        resume: Continue the run of ``log``: its games are read back, not played again (the same agents, suite
            and oracle setting are required; workers, backend and chunks may differ).

    Examples:
        >>> from eval.suites import Suite
        >>> suite = Suite("tiny", 5, 5, 3, "opening", games=4, base_seed=0)
        >>> report = evaluate(["random", lambda obs, info: int(info["action_mask"].argmax())], suite,
        ...                   workers=1, progress=False)
        >>> [result["games"] for result in report.to_dict()["results"]]
        [4, 4]
    """
    resolved = resolve_agents(agents, suite.spec())
    workers = default_workers() if workers is None else workers
    if resume and log is None:
        raise ValueError("resume continues a game log: give its path as log")
    labels = tuple(spec.label for spec in resolved)
    opened = nullcontext() if log is None else open_game_log(log, eval_run(suite, labels, oracle), resume=resume)
    with opened as game_log:
        records = play_suite(
            suite, resolved, workers=workers, oracle=oracle, progress=progress, backend=backend, address=address,
            chunk_games=chunk_games, log=game_log,
        )
    return EvalReport(suite, labels, tuple(records), oracle)


def eval_run(suite: Suite, labels: Sequence[str], oracle: bool) -> dict[str, Any]:
    """What decides the records of an evaluation, as its game log's header: a resume must match it."""
    return {"evaluation": "grid agents", "suite": suite.to_dict(), "agents": list(labels), "oracle": oracle}

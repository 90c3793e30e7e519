"""What the evaluation accepts as an agent, and how each becomes an :class:`AgentSpec` buildable in any process.

A baseline by name (``"solver"``, ``"rules"``, ``"random"``), an :class:`agents.base.Agent`, a plain function
``policy(obs, info) -> action``, a saved stable-baselines3 model (a path to its ``.zip``), or an
:class:`AgentSpec` for full control.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from agents.registry import AGENTS, head_agent_class, make_agent
from agents.shipped_models import SHIPPED_MODELS, shipped_names
from agents.wrappers import SafeCellsFirst
from mine_env.engine.spec import BoardSpec

Policy = Callable[[np.ndarray, dict[str, Any]], Any]
"""A plain policy function: ``policy(obs, info) -> action index``."""


class PolicyAgent(Agent):
    """An :class:`~agents.base.Agent` around a plain function ``policy(obs, info) -> action``."""

    def __init__(self, policy: Policy, name: str | None = None) -> None:
        if not callable(policy):
            raise ValueError(f"a policy must be callable as policy(obs, info), got {type(policy).__name__}")
        self.policy = policy
        self.name = name or str(getattr(policy, "__name__", type(policy).__name__))

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        return self.policy(obs, info)


@dataclass(frozen=True)
class _SameAgent:
    """A picklable factory that ignores the seed and hands out one agent (reset between games)."""

    agent: Agent

    def __call__(self, seed: int | None) -> Agent:
        return self.agent


def _build_model_agent(path: str, spec: BoardSpec, symmetries: int, sure: float, safe_mask: bool, opening: bool,
                       seed: int | None) -> Agent:  # fmt: skip
    """Load a saved model in whatever process plays it (the seed is unused: greedy play is deterministic), under
    the oracle's safe-cell mask when ``safe_mask``."""
    from agents.networks.player import load_model_agent

    agent = load_model_agent(path, spec, symmetries, sure, opening)
    return SafeCellsFirst(agent) if safe_mask else agent


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
    def model(cls, path: str | Path, spec: BoardSpec, symmetries: int = 1, sure: float = 0.0,
              safe_mask: bool = False, opening: bool = False) -> AgentSpec:  # fmt: skip
        """A saved stable-baselines3 model, checked against the board now (errors before any game starts);
        ``symmetries`` > 1 plays it averaged over that many of the board's symmetries
        (:mod:`mine_env.engine.symmetry`), only where it is less sure than ``sure`` when that is not 0
        (:func:`agents.networks.player.load_model_agent`); ``safe_mask`` plays it under the oracle's safe-cell mask
        (:class:`agents.wrappers.SafeCellsFirst`: the model chooses only its guesses); ``opening`` opens on its
        card's learnt first cell (:mod:`agents.opening`)."""
        from agents.networks.player import load_model_agent, model_label

        load_model_agent(path, spec, symmetries, sure, opening)
        build = functools.partial(_build_model_agent, str(path), spec, symmetries, sure, safe_mask, opening)
        label = model_label(path, symmetries, sure, opening)
        return cls(f"{label} +safe-mask" if safe_mask else label, build, seeded=False)

    @classmethod
    def head(cls, path: str | Path) -> AgentSpec:
        """A learnt value head (``.npz``) played by the agent of its kind (``guess-value`` or ``solver-value``,
        :func:`agents.registry.head_agent_class`), checked now; rebuilt for every game from the game's seed. It goes
        by its folder and file stem, as a model does (``guess-value:gv-mix/head``): every run saves ``head.npz``."""
        agent_class = head_agent_class(path)
        path = Path(path)
        label = f"{path.parent.name}/{path.stem}" if path.parent.name else path.stem
        return cls(f"{agent_class.name}:{label}", functools.partial(agent_class, head=str(path)))

    @classmethod
    def instance(cls, agent: Agent | Policy, label: str | None = None) -> AgentSpec:
        """An agent object or a plain function, reset between games."""
        if not isinstance(agent, Agent):
            agent = PolicyAgent(agent)
        return cls(label or agent.name, _SameAgent(agent), seeded=False)


AgentLike = str | Path | Agent | AgentSpec | Policy
"""Anything :func:`eval.runner.evaluate` accepts as an agent."""


def resolve_agent(agent: AgentLike, spec: BoardSpec) -> AgentSpec:
    """Turn a name, a model path, an agent, a function or an AgentSpec into an AgentSpec.

    Raises:
        ValueError: an unknown name, or something that is none of these.
        FileNotFoundError: a model path that does not exist.
    """
    if isinstance(agent, AgentSpec):
        return agent
    if isinstance(agent, Path) or (
        isinstance(agent, str) and (agent.endswith((".zip", ".pt")) or agent in SHIPPED_MODELS)
    ):
        return AgentSpec.model(agent, spec)
    if isinstance(agent, str):
        if agent not in AGENTS:
            raise ValueError(
                f"unknown agent {agent!r}; expected one of {', '.join(sorted(AGENTS))}, a shipped model "
                f"({shipped_names()}) or a path to a saved model (.zip or .pt)"
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

"""The text env as a `verifiers <https://github.com/PrimeIntellect-ai/verifiers>`_ 0.4 environment (``verifiers.v1``).

- :class:`MinesweeperTaskset`: one task per seeded game of an evaluation suite (its first observation is the
  prompt; the task keeps the game's index and its seed as a decimal string, so seeds up to 2**64 - 1 pass
  through every serialisation);
- :class:`MinesweeperEnv`: the game engine plays the user, as verifiers' own TextArena env does: each text reply
  is one step of :class:`mine_llm.text_env.MinesweeperTextEnv`, whose observation is the next user turn; with
  ``tools=True`` the model is also offered the ``make_move`` tool (:mod:`mine_llm.verifiers_tools`), each call
  played and answered with the next board; until the game ends;
- :class:`LocalChatHarness`: verifiers' plain chat program run by this interpreter (no ``uv`` bootstrap, nothing
  fetched), in a local subprocess.

The rewards recorded on each trace are the oracle's grades (:data:`DEFAULT_WEIGHTS`): ``win`` (1.0),
``logic_score`` (0.5: the share of decisions without an error, :mod:`mine_llm.grading`), and at weight 0
``avoidable_risk_per_move``, ``invalid_replies``, ``wrong_flags`` (flags on cells the oracle knows are safe) and
``env_return`` (the text env's ``reward`` scheme summed)::

    env = load_environment(preset="beginner", games=200, seed=0)
    traces = play_games(env, base_url=URL, model=NAME, api_key_var="OPENAI_API_KEY")

verifiers loads plugins by id; importing this module registers it as ``minesweeper`` (taskset, env and harness)
without claiming a top-level package. Needs the ``llm`` extra (verifiers 0.4)."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import sys
from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf
from pydantic import Field, ValidationError, field_validator
from verifiers.v1.clients import ModelContext
from verifiers.v1.configs.client import EvalClientConfig
from verifiers.v1.harnesses.null import NullHarness, NullHarnessConfig
from verifiers.v1.harnesses.utils.launch import CHAT_PROGRAM_SOURCE, launch_chat_program
from verifiers.v1.runtimes import SubprocessConfig

from eval.suites import Suite, adhoc_suite
from mine_env.engine.spec import BoardSpec
from mine_llm.moves import TOOL_NAME
from mine_llm.prompt import system_prompt
from mine_llm.text_env import MinesweeperTextEnv
from mine_llm.verifiers_tools import MakeMoveToolset

__all__ = [
    "LocalChatHarness", "MinesweeperEnv", "MinesweeperTaskset", "load_environment", "play_games",
]  # fmt: skip

PLUGIN_ID = "minesweeper"
"""The id verifiers loads this module by (taskset, env and harness alike): verifiers imports a plugin as
``verifiers.v1.<kind>.<id>`` or as a top-level module, so this module registers itself under the first on import
(:func:`_register`) rather than claim a top-level name."""

DEFAULT_WEIGHTS: dict[str, float] = {
    "win": 1.0, "logic_score": 0.5, "avoidable_risk_per_move": 0.0, "invalid_replies": 0.0, "wrong_flags": 0.0,
    "env_return": 0.0,
}  # fmt: skip
"""The rewards recorded on each trace and their weights (a trace's reward is their weighted sum)."""


class MinesweeperTaskConfig(vf.TaskConfig):
    """Whether the model is offered the ``make_move`` tool."""

    tools: bool = False


class MinesweeperTasksetConfig(vf.TasksetConfig):
    """The games: a board (``preset`` or ``rows``/``cols``/``mines``), how many, the suite's seed, the text env."""

    preset: str | None = "beginner"
    rows: int | None = None
    cols: int | None = None
    mines: int | None = None
    first_click: str = "opening"
    boards: str = "random"
    games: int = Field(100, ge=1)
    seed: int = Field(0, ge=0, le=2**64 - 1)
    task: MinesweeperTaskConfig = MinesweeperTaskConfig()
    """``tools=True``: the model is offered the ``make_move`` tool (function calling) besides a text reply."""
    weights: dict[str, float] = Field(default_factory=dict)
    """Reward weights by name (:data:`DEFAULT_WEIGHTS` for those not given)."""
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    """More arguments of the text env (``reward``, ``max_steps``, ``flags``)."""

    @field_validator("weights")
    @classmethod
    def _known_weights(cls, weights: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(weights) - set(DEFAULT_WEIGHTS))
        if unknown:
            raise ValueError(f"unknown reward(s) {', '.join(unknown)}; expected {', '.join(DEFAULT_WEIGHTS)}")
        return weights

    def suite(self) -> Suite:
        """The evaluation suite of these games (seeds derived from ``seed`` and each game's index)."""
        spec = BoardSpec.from_options(None if self.rows is not None else self.preset, self.rows, self.cols,
                                      self.mines, self.first_click)  # fmt: skip
        return adhoc_suite(spec, self.games, self.seed, self.boards)

    def text_env(self) -> MinesweeperTextEnv:
        """A fresh text env of these games' board."""
        suite = self.suite()
        return MinesweeperTextEnv(rows=suite.rows, cols=suite.cols, mines=suite.mines, first_click=suite.first_click,
                                  boards=suite.boards, start=suite.start, **self.env_kwargs)  # fmt: skip


class MinesweeperData(vf.TaskData):
    """One game: ``info`` holds its index in the suite and its env seed as a decimal string."""

    info: dict[str, Any]


class _Game:
    """One game being played: its text env, the last step's info and the sum of its rewards."""

    def __init__(self, env: MinesweeperTextEnv, seed: int) -> None:
        self.env = env
        _, self.info = env.reset(seed=seed)
        self.total = 0.0
        self.over = False

    def play(self, reply: str | dict[str, Any]) -> str:
        """Step the game with a reply; the observation that answers it."""
        observation, reward, terminated, truncated, self.info = self.env.step(reply)
        self.total += reward
        self.over = terminated or truncated
        return observation


def _call_arguments(messages: list[Any], call_id: str) -> str | dict[str, Any]:
    """The arguments of the tool call ``call_id`` (as a dict when they are a JSON object)."""
    for message in reversed(messages):
        for call in getattr(message, "tool_calls", None) or []:
            if call.id == call_id:
                return _arguments(call.arguments)
    return ""


class MinesweeperTask(vf.Task[MinesweeperData, vf.State, MinesweeperTaskConfig]):
    """One seeded game; while it is played, :attr:`game` is its text env, which ``make_move`` calls step."""

    game: _Game | None = None

    @classmethod
    def toolsets(cls, config: MinesweeperTaskConfig) -> list[vf.Toolset]:
        return [MakeMoveToolset(vf.ToolsetConfig())] if config.tools else []

    def playing(self, game: _Game) -> MinesweeperTask:
        """This task with a game to play: the episode's own copy, so that games in parallel stay apart."""
        clone = copy.copy(self)
        clone.game = game
        return clone

    @vf.intercept
    async def play_tool_move(self, request: vf.Request) -> vf.Request | None:
        """A ``make_move`` call, played: its result is the board after the move (the tool server never runs it)."""
        last = request.messages[-1] if request.messages else None
        if self.game is None or not isinstance(last, vf.ToolMessage) or last.name != TOOL_NAME or last.content:
            return None
        arguments = _call_arguments(request.messages, last.tool_call_id)
        result = last.model_copy(update={"content": self.game.play(arguments)})
        return request.model_copy(update={"messages": [*request.messages[:-1], result]})

    @vf.stop
    async def game_over(self, trace: vf.Trace) -> bool:
        """The game ended by a tool call: the exchange ends with it."""
        return self.game is not None and self.game.over


class MinesweeperTaskset(vf.Taskset[MinesweeperTask, MinesweeperTasksetConfig]):
    """The suite's games, in order."""

    def load(self) -> Iterator[MinesweeperTask]:
        suite = self.config.suite()
        env = self.config.text_env()
        for game in range(suite.games):
            seed = suite.game_seeds(game).env
            observation, _ = env.reset(seed=seed)
            data = MinesweeperData(name=f"minesweeper#{game}", prompt=observation,
                                   system_prompt=system_prompt(tools=self.config.task.tools),
                                   info={"game": game, "seed": str(seed)})  # fmt: skip
            yield MinesweeperTask(data, self.config.task)


class LocalChatHarness(NullHarness):
    """verifiers' plain chat program (the ``null`` harness), run by this Python rather than a ``uv`` environment
    made for it: its packages (openai, mcp, httpx) come with verifiers, so nothing is fetched and it runs offline."""

    async def setup(self, runtime: Any) -> None:
        """Nothing to install: the program runs on this interpreter."""

    async def launch(self, ctx: ModelContext, trace: Any, runtime: Any, endpoint: str, secret: str,
                     mcp_urls: dict[str, str], data: vf.TaskData, tool_interception_url: str | None = None) -> Any:
        system, prompt = self.resolve_prompt(data)
        extra = [f"--tool-interception-url={tool_interception_url}"] if tool_interception_url else []
        return await launch_chat_program(CHAT_PROGRAM_SOURCE, self.config, ctx, trace, _ThisInterpreter(runtime),
                                         endpoint, secret, mcp_urls, system, prompt, extra_args=extra)  # fmt: skip


class _ThisInterpreter:
    """A runtime whose PEP 723 scripts run on this interpreter instead of a ``uv`` environment made for them."""

    def __init__(self, runtime: Any) -> None:
        self._runtime = runtime

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)

    async def prepare_uv_script(self, script: str | bytes, env: dict[str, str] | None = None, *,
                                activate: bool = True) -> list[str]:  # fmt: skip
        data = script.encode() if isinstance(script, str) else script
        path = f"{self._runtime.scripts_dir}/mine-llm-{hashlib.sha256(data).hexdigest()}.py"
        await self._runtime.write(path, data)
        return [sys.executable, path]


def _register() -> None:
    """Make ``minesweeper`` name this module to verifiers' plugin loader (tasksets and harnesses)."""
    for kind in ("tasksets", "harnesses"):
        sys.modules.setdefault(f"verifiers.v1.{kind}.{PLUGIN_ID}", sys.modules[__name__])


_register()


class MinesweeperEnvConfig(vf.EnvConfig):
    """The one seat, ``player``: a local subprocess running :class:`LocalChatHarness` unless set otherwise."""

    player: vf.AgentConfig = vf.AgentConfig(harness=NullHarnessConfig(id=PLUGIN_ID),
                                            runtime=SubprocessConfig())  # fmt: skip


class MinesweeperEnv(vf.Env[MinesweeperEnvConfig]):
    """The game engine plays the user: each reply is a step of the text env, its observation the next turn."""

    async def run(self, task: MinesweeperTask, agents: vf.Agents) -> None:
        config: MinesweeperTasksetConfig = self.taskset.config
        game = _Game(config.text_env(), int(task.data.info["seed"]))
        async with agents.player.interaction(task.playing(game)) as interaction:
            segment = await interaction.turn()
            while not segment.terminated and not game.over:
                observation = game.play(_reply(segment.messages))
                if game.over:
                    break
                segment = await interaction.turn(observation)
        _record(interaction.trace, game.info, game.total, {**DEFAULT_WEIGHTS, **config.weights})


def _reply(messages: vf.Messages) -> str:
    """The text of the model's last reply ("" with none: an invalid reply); its tool calls were played already."""
    for message in reversed(list(messages)):
        if isinstance(message, vf.AssistantMessage):
            return message.content if isinstance(message.content, str) else ""
    return ""


def _arguments(arguments: str) -> str | dict[str, Any]:
    """A tool call's arguments as a dict, or its raw text when it is not a JSON object (read as a text reply)."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return arguments
    return value if isinstance(value, dict) else arguments


def _record(trace: Any, info: dict[str, Any], total: float, weights: dict[str, float]) -> None:
    """The oracle's grades of the game as the trace's weighted rewards."""
    game = info.get("game", {})
    graded = game.get("graded_moves") or 0
    values = {
        "win": float(info.get("is_success", False)),
        "logic_score": float(game.get("logic_score") or 0.0),
        "avoidable_risk_per_move": game["avoidable_risk"] / graded if graded else 0.0,
        "invalid_replies": float(game.get("invalid_replies", 0)),
        "wrong_flags": float(game.get("wrong_flags", 0)),
        "env_return": total,
    }
    for name, value in values.items():
        trace.record_reward(name, value, weights[name])


def load_environment(
    preset: str | None = "beginner",
    rows: int | None = None,
    cols: int | None = None,
    mines: int | None = None,
    first_click: str = "opening",
    boards: str = "random",
    games: int = 100,
    seed: int = 0,
    tools: bool = False,
    weights: dict[str, float] | None = None,
    env_kwargs: dict[str, Any] | None = None,
    max_turns: int | None = None,
) -> MinesweeperEnv:
    """The environment of ``games`` seeded games of a board; ``weights`` and ``env_kwargs`` as
    :class:`MinesweeperTasksetConfig` says, ``max_turns`` caps the model's turns per game."""
    try:
        taskset = MinesweeperTasksetConfig(
            id=PLUGIN_ID, preset=preset, rows=rows, cols=cols, mines=mines, first_click=first_click, boards=boards,
            games=games, seed=seed, task=MinesweeperTaskConfig(tools=tools), weights=weights or {},
            env_kwargs=env_kwargs or {},
        )  # fmt: skip
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"{where}: {first['msg'].removeprefix('Value error, ')}") from None
    taskset.text_env()  # bad board or env arguments fail here, in one line, not in the first game
    player = MinesweeperEnvConfig.model_fields["player"].default.model_copy(update={"max_turns": max_turns})
    return MinesweeperEnv(MinesweeperEnvConfig(taskset=taskset, player=player))


def play_games(
    env: MinesweeperEnv, base_url: str, model: str, api_key_var: str = "OPENAI_API_KEY", games: int | None = None
) -> list[Any]:
    """Play the env's first ``games`` games (all by default) with a model on an OpenAI-compatible endpoint; the
    traces, one a game, in order (``trace.rewards`` by name, ``trace.reward`` their weighted sum)."""
    return asyncio.run(_play(env, ModelContext(client=EvalClientConfig(base_url=base_url, api_key_var=api_key_var),
                                               model=model), games))  # fmt: skip


async def _play(env: MinesweeperEnv, ctx: ModelContext, games: int | None) -> list[Any]:
    tasks = list(env.taskset)[:games]
    async with env.serving():
        episodes = [await env.run_episode(task, ctx) for task in tasks]
    failures = [error for episode in episodes for error in _errors(episode)]
    if failures:
        failed = sum(1 for episode in episodes if _errors(episode))
        error = failures[0]
        raise RuntimeError(f"{failed} of {len(episodes)} games failed, the first: {error.type}: {error.message}")
    return [episode.traces[0] for episode in episodes]


def _errors(episode: Any) -> list[Any]:
    """What went wrong in an episode: its own errors, then its traces' (a refused request, a tool server down)."""
    return [*episode.errors, *(error for trace in episode.traces for error in trace.errors)]

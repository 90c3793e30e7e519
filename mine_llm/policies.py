"""Players of the text env: a model behind an OpenAI-compatible endpoint, or a baseline agent reading the text.

Both answer an observation text with a :class:`Turn`; the evaluation (:mod:`mine_llm.evaluate`) and the
reference server (:mod:`mine_llm.reference_server`) use them alike, so a baseline's reference row goes through
the very text a model reads: the observation is parsed back into a grid and the move is written as text.
"""

from __future__ import annotations

import json
import time
from typing import Any, NamedTuple, Protocol

import numpy as np

from agents.base import Agent
from agents.registry import make_agent
from mine_env.engine.constants import HIDDEN
from mine_llm.chat import Endpoint, complete
from mine_llm.moves import tool_schema
from mine_llm.prompt import parse_observation, system_prompt


class Turn(NamedTuple):
    """One reply of a player, and what asking for it cost.

    Attributes:
        reply: The text of the reply, or a tool call (``{"name", "arguments"}``).
        prompt_tokens: Prompt tokens (0 for a baseline).
        completion_tokens: Reply tokens (0 for a baseline).
        seconds: Time spent waiting for the reply (a baseline's: its time to choose, the text parsed back included).
        retries: Failed tries of the request before this reply.
    """

    reply: str | dict[str, Any]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    retries: int = 0


class TextPolicy(Protocol):
    """A player of the text env: reset before each game, then one :class:`Turn` per observation."""

    def reset(self) -> None: ...

    def reply(self, observation: str) -> Turn: ...


def agent_move(agent: Agent, observation: str) -> str:
    """The move a baseline agent plays on an observation text, as text (``reveal R C``)."""
    board = parse_observation(observation)
    grid = board.grid
    mask = (grid.ravel() == HIDDEN).astype(np.int8)
    action = agent.act(grid, {"mines": board.mines, "action_mask": mask, "first_click": board.first_click})
    row, col = divmod(int(action), grid.shape[1])
    return f"reveal {row} {col}"


class AgentTextPolicy:
    """A baseline agent (``solver``, ``random``, ...) that reads the observation text and answers in text."""

    def __init__(self, name: str, seed: int | None = None) -> None:
        self.agent = make_agent(name, seed)

    def reset(self) -> None:
        self.agent.reset()

    def reply(self, observation: str) -> Turn:
        start = time.perf_counter()
        move = agent_move(self.agent, observation)
        return Turn(move, seconds=time.perf_counter() - start)


class ChatPolicy:
    """A model behind an OpenAI-compatible endpoint, asked once per move.

    Each request holds the system prompt (the rules and the answer format), the last ``history`` exchanges
    (an observation and the model's reply, the reply replayed as text), and the current observation. The
    observation carries the whole board, so ``history=0`` (the default) loses nothing but the model's own
    earlier reasoning, and keeps the prompt the same size all game long.

    Args:
        endpoint: Where to ask.
        history: Earlier exchanges to include.
    """

    def __init__(self, endpoint: Endpoint, history: int = 0) -> None:
        if history < 0:
            raise ValueError(f"history must be 0 or more exchanges, got {history}")
        self.endpoint = endpoint
        self.history = history
        self.system = system_prompt(tools=endpoint.tools)
        self._exchanges: list[tuple[str, str]] = []
        self._tools: list[dict[str, Any]] | None = None

    def reset(self) -> None:
        self._exchanges = []

    def reply(self, observation: str) -> Turn:
        """The model's answer to the board; an answer with no move is returned for the env to count as invalid.

        Raises:
            mine_llm.chat.ReplyFailed: no answer after the retries (the game ends as an endpoint failure).
            mine_llm.chat.EndpointError: the endpoint cannot be used (the run stops).
        """
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system}]
        for seen, said in self._exchanges[-self.history :] if self.history else []:
            messages += [{"role": "user", "content": seen}, {"role": "assistant", "content": said}]
        messages.append({"role": "user", "content": observation})
        if self.endpoint.tools and self._tools is None:
            board = parse_observation(observation).grid
            self._tools = [tool_schema(*board.shape)]
        answer = complete(self.endpoint, messages, self._tools)
        if self.history:
            said = answer.reply if isinstance(answer.reply, str) else json.dumps(answer.reply)
            self._exchanges.append((observation, said))
        return Turn(answer.reply, answer.prompt_tokens, answer.completion_tokens, answer.seconds, answer.retries)

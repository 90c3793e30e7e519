"""``minesweeper eval --llm-endpoint URL --llm-model NAME``: a language model through the text env (docs/LLM.md).

The model plays the suite's games through ``Minesweeper-Text-v0``, asked by an OpenAI-compatible endpoint (vLLM,
llama.cpp's server, hosted APIs); every ``--agent`` given beside it plays the same games through the same text
path (the board as text, read back), as reference rows. The report is ``minesweeper eval``'s, with the text
path's columns after it: logic score, avoidable risk per move, invalid replies, tokens, latency, retries and the
games ended by endpoint failures. A run stopped by an endpoint that cannot be used still reports (and writes)
the games it played, then says why in one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the text path loads when a run asks for it, not for the parser
    from eval.suites import Suite
    from mine_llm.chat import Endpoint
    from mine_llm.evaluate import TextReport
    from mine_llm.policies import ChatPolicy

__all__ = ["add_llm_options", "check_llm_args", "run_llm"]

_LLM_OPTIONS = ("llm_model", "llm_api_key", "llm_tools", "llm_max_tokens", "llm_temperature", "llm_history")


def add_llm_options(parser: argparse.ArgumentParser) -> None:
    """The ``--llm-*`` options of ``minesweeper eval``."""
    group = parser.add_argument_group("language models (docs/LLM.md)")
    group.add_argument("--llm-endpoint", metavar="URL",
                       help="evaluate the model at this OpenAI-compatible API (http://HOST:PORT/v1) through the text "
                            "env; each --agent then plays through the same text path as a reference row")  # fmt: skip
    group.add_argument("--llm-model", metavar="NAME", help="the model's name at the endpoint")
    group.add_argument("--llm-api-key", metavar="KEY", help="the API key (default: $OPENAI_API_KEY, if set)")
    group.add_argument("--llm-tools", action="store_true",
                       help="offer the make_move tool and read its call instead of a text move")  # fmt: skip
    group.add_argument("--llm-concurrency", type=int, default=4, metavar="N", help="games in flight (default 4)")
    group.add_argument("--llm-retries", type=int, default=3, metavar="N",
                       help="more tries after a time-out, a dropped connection, 429, 5xx or an answer that is not a "
                            "chat completion (default 3)")  # fmt: skip
    group.add_argument("--llm-timeout", type=float, default=120.0, metavar="S",
                       help="seconds per request (default 120)")  # fmt: skip
    group.add_argument("--llm-max-tokens", type=int, metavar="N", help="the most tokens of a reply")
    group.add_argument("--llm-temperature", type=float, metavar="T", help="sampling temperature")
    group.add_argument("--llm-history", type=int, default=0, metavar="N",
                       help="earlier exchanges sent with each board (default 0: the board holds the game)")  # fmt: skip
    group.add_argument("--llm-max-steps", type=int, metavar="N",
                       help="replies before a game is cut off, invalid ones included (default 4 x cells)")  # fmt: skip
    group.add_argument("--llm-failure-streak", type=int, default=5, metavar="N",
                       help="stop the run, keeping the games played, after N games in a row ended by endpoint "
                            "failures (a request that failed every retry; default 5)")  # fmt: skip


def check_llm_args(args: argparse.Namespace) -> None:
    """One line for every option that does not fit the text path, before a request is sent."""
    if args.llm_endpoint is None:
        given = [f"--{name.replace('_', '-')}" for name in _LLM_OPTIONS if getattr(args, name) not in (None, False, 0)]
        if given:
            verb = "needs" if len(given) == 1 else "need"
            raise ValueError(f"{', '.join(given)} {verb} --llm-endpoint URL (the model to evaluate)")
        return
    if args.llm_model is None:
        raise ValueError("--llm-endpoint needs --llm-model NAME (the model's name at the endpoint)")
    if args.model:
        raise ValueError("--model plays saved networks on the grid env: evaluate them in a run without --llm-endpoint")
    if args.backend != "local":
        raise ValueError("--llm-endpoint plays in threads of this process (--llm-concurrency N): drop --backend")
    if not args.oracle:
        raise ValueError("the text path is graded by the oracle move by move: drop --no-oracle")
    for option in ("llm_concurrency", "llm_max_steps", "llm_failure_streak"):
        value = getattr(args, option)
        if value is not None and value < 1:
            raise ValueError(f"--{option.replace('_', '-')} must be at least 1, got {value}")
    for option in ("llm_retries", "llm_history"):
        if getattr(args, option) < 0:
            raise ValueError(f"--{option.replace('_', '-')} must be 0 or more, got {getattr(args, option)}")


def _chat_policy(endpoint: Endpoint, history: int, seed: int) -> ChatPolicy:
    """A fresh chat player for one game (the seed is unused: the model samples on its server)."""
    from mine_llm.policies import ChatPolicy

    return ChatPolicy(endpoint, history)


def llm_run(args: argparse.Namespace, suite: Suite, labels: list[str]) -> dict[str, Any]:
    """What decides the games of a model's evaluation, as its game log's header (a resume must match it): the
    suite, the players and the options that change a reply (not the URL, the key, the time-out or retries)."""
    options = {name: getattr(args, name) for name in (*_LLM_OPTIONS, "llm_max_steps") if name != "llm_api_key"}
    return {"evaluation": "language model", "suite": suite.to_dict(), "agents": labels, **options}


def run_llm(args: argparse.Namespace, suite: Suite, log: Path | None = None, resume: bool = False) -> TextReport:
    """Play the model and the ``--agent`` reference rows on ``suite`` through the text env, every game written
    to the game log ``log`` as it ends (``resume``: continue that log's run).

    A run its endpoint stopped comes back with the games it played and :attr:`TextReport.stopped` set (the
    caller reports them, then fails with that line); with no game played, :class:`RunStopped` is raised.
    """
    from eval.game_log import open_game_log
    from mine_llm.chat import Endpoint
    from mine_llm.evaluate import RunStopped, evaluate_text
    from mine_llm.policies import AgentTextPolicy

    endpoint = Endpoint(
        url=args.llm_endpoint, model=args.llm_model, api_key=args.llm_api_key or os.environ.get("OPENAI_API_KEY"),
        tools=args.llm_tools, max_tokens=args.llm_max_tokens, temperature=args.llm_temperature,
        timeout=args.llm_timeout, retries=args.llm_retries,
    )  # fmt: skip
    players = [(f"llm:{args.llm_model}", functools.partial(_chat_policy, endpoint, args.llm_history))]
    players += [(name, functools.partial(AgentTextPolicy, name)) for name in dict.fromkeys(args.agent)]
    env_kwargs = {} if args.llm_max_steps is None else {"max_steps": args.llm_max_steps}
    options = {"concurrency": args.llm_concurrency, "progress": args.progress, "env_kwargs": env_kwargs,
               "failure_streak": args.llm_failure_streak}
    try:
        if log is None:
            return evaluate_text(players, suite, **options)
        with open_game_log(log, llm_run(args, suite, [label for label, _ in players]), resume=resume) as game_log:
            return evaluate_text(players, suite, **options, log=game_log)
    except RunStopped as stop:
        if stop.report is None:
            raise
        return stop.report

"""The README's main job: the baselines and the shipped trained models on the same seeded games.

Run it with ``python -m eval.demo`` (``make demo``), or call :func:`run_demo`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

from agents.registry import AGENTS
from agents.warm_up import warm_up as warm_up_solver
from eval.report import markdown_report
from eval.runner import evaluate
from eval.suites import Suite, get_suite

DEMO_SUITE = "beginner-opening-1k"
DEMO_AGENTS: tuple[str, ...] = (
    "solver", "rules", "random", "distill-beginner", "dqn-beginner", "maskable-ppo-beginner",
)
"""The baselines and the shipped models, by short name (:mod:`agents.shipped_models`: in a wheel too)."""


def warm_up(suite: Suite, agents: Sequence[str]) -> float:
    """Play the suite's first game with every agent in this process, and warm the solver's kernels up when
    a solver plays (:func:`agents.warm_up.warm_up`: that game may need no guess); returns the seconds it took.

    So numba compiles every kernel the demo uses (on a fresh install; later it loads them from its cache)
    before anything is timed: the worker processes then load them from the cache in a tenth of a second,
    and neither the progress bar's estimate nor the ms/game column counts the compilation.
    """
    start = time.perf_counter()
    if any(str(agent) in AGENTS and str(agent).startswith("solver") for agent in agents):
        warm_up_solver(["env"])  # the evaluation plays the solver through the env, with the oracle
    evaluate(list(agents), dataclasses.replace(suite, games=1), workers=1, progress=False)
    return time.perf_counter() - start


def run_demo(
    suite: str = DEMO_SUITE, agents: Sequence[str] = DEMO_AGENTS, workers: int | None = None, progress: bool = True
) -> dict[str, Any]:
    """Evaluate ``agents`` on the named ``suite`` with every core, print the table and return the report.

    A warm-up game per agent comes first (:func:`warm_up`), and the output says so.
    """
    games = get_suite(suite)
    seconds = warm_up(games, agents)
    print(f"Warm-up: one game per agent in {seconds:.1f} s (numba's kernels compiled or loaded); "
          "the times below leave it out.", flush=True)  # fmt: skip
    report = evaluate(list(agents), games, workers=workers, progress=progress).to_dict()
    print(markdown_report(report), end="")
    return report


if __name__ == "__main__":
    run_demo()

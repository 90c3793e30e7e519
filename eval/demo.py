"""The README's main job: the baselines and the shipped trained models on the same seeded games.

Run it with ``python -m eval.demo`` (``make demo``), or call :func:`run_demo`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval.report import markdown_report
from eval.runner import evaluate
from eval.suites import get_suite

DEMO_SUITE = "beginner-opening-1k"
MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DEMO_AGENTS: tuple[str, ...] = (
    "solver",
    "rules",
    "random",
    str(MODELS_DIR / "dqn_beginner_opening.zip"),
    str(MODELS_DIR / "maskable_ppo_beginner_opening.zip"),
)


def run_demo(
    suite: str = DEMO_SUITE, agents: Sequence[str] = DEMO_AGENTS, workers: int | None = None, progress: bool = True
) -> dict[str, Any]:
    """Evaluate ``agents`` on the named ``suite`` with every core, print the table and return the report."""
    report = evaluate(list(agents), get_suite(suite), workers=workers, progress=progress).to_dict()
    print(markdown_report(report), end="")
    return report


if __name__ == "__main__":
    run_demo()

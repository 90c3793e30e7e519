"""Judge an RLlib checkpoint (train/rllib/ppo.py) on a suite with the project's evaluation, beside other agents.

The policy plays greedily (the highest-logit valid cell) through the same env and seeds as every agent of
``minesweeper eval``; the report is that command's Markdown (and JSON with ``--json``).

Usage::

    python studies/eval_rllib.py runs/rllib-ppo-beginner/final --suite beginner-opening-1k --agent solver
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from eval.report import markdown_report, write_json
from eval.runner import evaluate
from eval.suites import get_suite
from train.rllib import RLlibAgent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint", type=Path, help="an RLlib algorithm checkpoint (a run's final/ folder)")
    parser.add_argument("--suite", default="beginner-opening-1k", help="a named suite (minesweeper eval --list-suites)")
    parser.add_argument("--agent", action="append", default=[], help="a baseline to play beside it (repeat)")
    parser.add_argument("--name", default="rllib-ppo", help="the policy's label in the report")
    parser.add_argument("--no-oracle", dest="oracle", action="store_false", help="skip the oracle metrics")
    parser.add_argument("--json", type=Path, help="also write the report as JSON")
    args = parser.parse_args()
    # One move's forward pass is tiny: a second torch thread only waits for a core (100x slower on 2 busy cores).
    torch.set_num_threads(1)
    suite = get_suite(args.suite)
    agent = RLlibAgent.from_checkpoint(args.checkpoint, args.name)
    # One process: the module is not re-sent to worker processes.
    report = evaluate([agent, *args.agent], suite, workers=1, oracle=args.oracle).to_dict()
    print(markdown_report(report), end="")
    if args.json:
        write_json(report, args.json)


if __name__ == "__main__":
    main()

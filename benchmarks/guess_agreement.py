"""How distilled networks guess where the default solver has to: on the true-guess positions of seeded solver
games, how often each network plays the solver's guess, how often a safest cell, and the mine chance it takes
above the safest cell on average (the solver's own beside it).

The positions are those ``train distill --guess-target solver`` logs its ``solver_agree`` on by default
(2,000 games, the seed derived from the default ``--eval-seed``), so the figures of a run that did not log it
can be set beside one that did.

Usage::

    python benchmarks/guess_agreement.py --preset intermediate \\
        --model models/distill_intermediate_opening.zip --model runs/distill-int16/final_model.zip
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
import torch as th

from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from train.distill import HELD_OUT_SOLVER_GAMES, DistillConfig, guess_agreement, learner_scores, seed_of_round
from train.distill_guesses import harvest_guesses
from train.distill_labels import label_positions
from train.warm_start import distilled_policy

SAFEST_TOLERANCE = 1e-3


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="intermediate", choices=("beginner", "intermediate", "expert"))
    parser.add_argument("--first-click", default="opening", choices=("opening", "safe", "none"))
    parser.add_argument("--model", action="append", required=True, help="a distilled model .zip (repeat)")
    parser.add_argument("--games", type=int, default=HELD_OUT_SOLVER_GAMES, help="solver games to harvest")
    parser.add_argument("--seed", type=int, default=DistillConfig.eval_seed, help="as train distill's --eval-seed")
    args = parser.parse_args(argv)
    th.set_num_threads(1)
    spec = BoardSpec.from_options(args.preset, first_click=args.first_click)
    grids, choices = harvest_guesses(spec, args.games, seed_of_round(args.seed, 0))
    if not len(grids):
        parser.exit(2, f"{args.games} solver games held no guess: play more (--games)\n")
    labels = label_positions(grids, spec.mines, spec.first_click).reshape(len(grids), -1)
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    safest = np.where(hidden, labels, np.inf).min(axis=1)
    rows = np.arange(len(grids))
    solver_excess = labels[rows, choices] - safest
    print(f"{len(grids)} true-guess positions of {args.games} solver games; the solver's guess is riskier than "
          f"the safest cell in {(solver_excess > SAFEST_TOLERANCE).mean():.1%}, mean excess {solver_excess.mean():.4f}")
    for path in args.model:
        policy = distilled_policy(path, spec.mines)
        moves = np.where(hidden, learner_scores(policy)(grids), -np.inf).argmax(axis=1)
        excess = labels[rows, moves] - safest
        print(f"{path}: plays the solver's guess {guess_agreement(policy, grids, choices):.1%}, a safest cell "
              f"{(excess <= SAFEST_TOLERANCE).mean():.1%}, mean excess {excess.mean():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

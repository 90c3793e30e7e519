"""How distilled networks guess where the default solver has to: on the true-guess positions of seeded solver
games, how often each network plays the solver's guess, how often one of the cells the solver rates as good as
its guess (its options: it draws among them), how often a safest cell, and the mine chance it takes above the
safest cell on average (the solver's own beside it).

The positions are those ``train distill --guess-target solver`` logs its ``solver_agree`` on by default
(2,000 games, the seed derived from the default ``--eval-seed``), so the figures of a run that did not log it
can be set beside one that did.

Usage::

    python studies/guess_agreement.py --preset intermediate \\
        --model distill-intermediate --model runs/distill-int16/final_model
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
import torch as th

from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from train.distill.guess.preference import held_out_positions
from train.distill.guesses import SAFEST_TOLERANCE, GuessPositions, guess_report
from train.distill.network import play_scores
from train.distill.rounds.config import DistillConfig
from train.distill.rounds.run import HELD_OUT_SOLVER_GAMES
from train.distilled import distilled_network


def safest_cells(positions: GuessPositions) -> np.ndarray:
    """How many hidden cells tie for the least mine chance in each position (N,)."""
    hidden = positions.grids.reshape(len(positions.grids), -1) == HIDDEN
    chances = np.where(hidden, positions.labels, np.inf)
    return (chances <= chances.min(axis=1, keepdims=True) + SAFEST_TOLERANCE).sum(axis=1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="intermediate", choices=("beginner", "intermediate", "expert"))
    parser.add_argument("--first-click", default="opening", choices=("opening", "safe", "none"))
    parser.add_argument("--model", action="append", required=True, help="a distilled model: a shipped name or a "
                        "card's stem (repeat)")
    parser.add_argument("--games", type=int, default=HELD_OUT_SOLVER_GAMES, help="solver games to harvest")
    parser.add_argument("--seed", type=int, default=DistillConfig.eval_seed, help="as train distill's --eval-seed")
    args = parser.parse_args(argv)
    th.set_num_threads(1)
    spec = BoardSpec.from_options(args.preset, first_click=args.first_click)
    positions = held_out_positions(spec, args.games, args.seed)
    if not len(positions.grids):
        parser.exit(2, f"{args.games} solver games held no guess: play more (--games)\n")
    solver = guess_report(positions.choices_as_scores(), positions)
    ties = safest_cells(positions)
    print(f"{len(positions.grids)} true-guess positions of {args.games} solver games; the solver's guess is riskier "
          f"than the safest cell in {1 - solver['safest_share']:.1%}, mean excess {solver['excess_risk']:.4f}; "
          f"several cells tie for the safest in {(ties > 1).mean():.1%} (median {np.median(ties):.0f})")
    options = positions.options.sum(axis=1)
    print(f"the solver rates more than one cell as good as its guess in {(options > 1).mean():.1%} "
          f"(options per position: mean {options.mean():.2f}, most {options.max()})")
    for path in args.model:
        report = guess_report(play_scores(distilled_network(path, spec.mines))(positions.grids), positions)
        print(f"{path}: plays the solver's guess {report['solver_agree']:.1%}, one of its options "
              f"{report['solver_options']:.1%}, a safest cell {report['safest_share']:.1%}, "
              f"mean excess {report['excess_risk']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

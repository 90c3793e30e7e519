"""What mirrored play buys a distilled network, and what the ``--sure`` gate keeps of it, on labelled positions.

On positions of a distillation dataset (exact mine chances for every hidden cell), a network's pick is judged
as ``studies/loss_anatomy.py`` judges moves in games: a *miss* leaves a certainly safe cell hidden, and
its *excess risk* is the mine chance of the pick above the least one. Each row plays the positions one way:
the board as it is, averaged over the board's images (``eval --symmetries N``), or averaged only where the
network alone gives its pick a mine chance of at least P (``eval --symmetries N --sure P``), with the images
it needs per position (the first clicks of the dataset left out). No games are played, so it takes minutes
where the game suites take hours; the positions are those a dataset's policies reached (the oracle's games and
the network's own), not the ones the network would reach alone.

Usage::

    python studies/symmetry_gate.py --model distill-expert \\
        --dataset runs/distill-expert8/dataset.npz --positions 20000 --symmetries 4 --sure 1e-6 --sure 1e-5
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
import torch as th

from agents.networks.mirrored_play import is_sure
from mine_env.engine.constants import HIDDEN
from mine_env.engine.symmetry import SYMMETRY_COUNTS, board_symmetries
from train.distill.data import Dataset
from train.distill.guesses import SAFEST_TOLERANCE
from train.distill.network import play_scores
from train.sb3.warm_start import distilled_policy

BATCH = 64
"""Positions per forward pass."""


def image_scores(scores_of, grids: np.ndarray, count: int) -> np.ndarray:
    """The network's scores of every image of every grid, moved back onto the board: (count, N, cells)."""
    rows, cols = grids.shape[1:]
    views = []
    for forward, inverse in board_symmetries(count, rows, cols):
        images = np.ascontiguousarray(forward(grids))
        scores = np.concatenate([scores_of(images[i : i + BATCH]) for i in range(0, len(images), BATCH)])
        views.append(inverse(scores.reshape(images.shape)).reshape(len(grids), -1))
    return np.stack(views)


def judge(scores: np.ndarray, hidden: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """Misses and excess risk of playing the best-scored hidden cell of every position."""
    picks = np.where(hidden, scores, -np.inf).argmax(axis=1)
    chosen = labels[np.arange(len(picks)), picks]
    least = np.where(hidden, labels, np.inf).min(axis=1)
    excess = chosen - least
    has_safe = least == 0
    return {
        "misses": int((chosen[has_safe] > 0).sum()),
        "miss_excess": float(excess[has_safe].sum()),
        "guess_safest": float((excess[~has_safe] <= SAFEST_TOLERANCE).mean()) if (~has_safe).any() else float("nan"),
        "guess_excess": float(excess[~has_safe].sum()),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a distilled model .zip")
    parser.add_argument("--dataset", required=True, help="a dataset .npz written by train distill --save-dataset")
    parser.add_argument("--positions", type=int, default=20000, help="positions drawn from the dataset")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draw")
    parser.add_argument("--skip", type=int, default=0,
                        help="draw only after the first SKIP positions (those the model trained on)")  # fmt: skip
    parser.add_argument("--symmetries", type=int, default=4, choices=SYMMETRY_COUNTS[1:])
    parser.add_argument("--sure", type=float, action="append", default=[], help="a gate to judge (repeat)")
    args = parser.parse_args(argv)
    th.set_num_threads(1)
    dataset = Dataset.load(args.dataset)
    rng = np.random.default_rng(args.seed)
    started = np.flatnonzero((dataset.grids[args.skip :] != HIDDEN).any(axis=(1, 2))) + args.skip  # not 1st clicks
    if not len(started):
        parser.exit(2, f"{args.dataset} holds no started position after the first {args.skip}\n")
    drawn = np.sort(rng.choice(started, min(args.positions, len(started)), replace=False))
    grids = dataset.grids[drawn]
    labels = dataset.labels[drawn].astype(np.float64).reshape(len(drawn), -1)
    hidden = grids.reshape(len(drawn), -1) == HIDDEN
    views = image_scores(play_scores(distilled_policy(args.model, dataset.spec.mines)), grids, args.symmetries)
    guesses = int((np.where(hidden, labels, np.inf).min(axis=1) > 0).sum())
    print(f"{len(drawn)} positions of {args.dataset} ({guesses} true guesses), {args.model}")
    print("| play | images a position | misses | their excess risk | true guesses on a safest cell "
          "| their excess risk |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    rows = [("alone", views[0], 1.0), (f"{args.symmetries} images averaged", views.mean(axis=0), args.symmetries)]
    for sure in args.sure:
        unsure = ~is_sure(views[0], hidden, sure)
        rows.append((f"gated, sure {sure:g}", np.where(unsure[:, None], views.mean(axis=0), views[0]),
                     1 + unsure.mean() * (args.symmetries - 1)))  # fmt: skip
    for name, scores, images in rows:
        result = judge(scores, hidden, labels)
        print(f"| {name} | {images:.2f} | {result['misses']} | {result['miss_excess']:.2f} | "
              f"{result['guess_safest']:.3f} | {result['guess_excess']:.2f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

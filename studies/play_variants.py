"""Play-time variants of distilled networks on a suite's games (mirrored, combined, count-corrected play), and how
far a network's mine count is off.

``play`` plays games ``start`` to ``start + games - 1`` of a suite (game ``i`` as ``minesweeper eval`` plays it)
with one or more distilled models and prints the wins. The safety logits of every model and of every one of
``--symmetries`` images of the board are combined per cell as:

- ``logit``: their mean (what ``minesweeper eval --symmetries`` does);
- ``chance``: the mean of the safety chances ``sigmoid(logit)``;
- ``worst``: the lowest safety chance (the most pessimistic image or model).

``--count-identity`` then sets every untouched hidden cell (no number next to it) to the chance the global count
gives it from the network's own frontier: ``(mines - the frontier's summed mine chances) / untouched cells``
(exact for exact frontier chances, since expectation is linear and untouched cells are alike).

``--refine-passes N`` runs a network's count refinement (``distill --refine``, one set of weights) N times instead
of the number it was trained with: whether more rounds of checking at play time find more.

``count-error`` measures, on positions drawn from a labelled dataset (all of them, then the endgame ones), how far
the network's summed mine chances over the hidden cells are from the oracle's (the mines left).

Usage::

    python studies/play_variants.py play --model distill-intermediate \\
        --suite intermediate-opening-10k --games 1000 --symmetries 8 --combine chance
    python studies/play_variants.py count-error --model distill-intermediate \\
        --dataset runs/distill-int10/dataset.npz
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from agents.episode import play_episode
from agents.networks.player import ModelAgent, load_model_agent
from eval.suites import get_suite
from mine_env.analysis.frontier import find_frontier
from mine_env.engine.constants import HIDDEN
from mine_env.engine.symmetry import board_symmetries
from mine_env.env import MinesweeperEnv
from train.distill.data import Dataset

COMBINES = ("logit", "chance", "worst")
CLIP = 1e-12
"""Chances are kept this far from 0 and 1 before taking logs again."""
TIE = 1e-5
"""Logits this close to the best count as tied (the first such cell is played): float32 scores of mirror-image
cells differ by about 1e-6, distinct cells' by far more."""


class CombinedAgent(Agent):
    """Plays the hidden cell of highest combined safety over the models and the board's images."""

    def __init__(self, models: Sequence[ModelAgent], symmetries: int, combine: str, count_identity: bool,
                 mines: int) -> None:  # fmt: skip
        self.models = models
        self.symmetries = symmetries
        self.combine = combine
        self.count_identity = count_identity
        self.mines = mines

    def logits(self, grid: np.ndarray) -> np.ndarray:
        """Safety logits (models * images, rows, cols) of ``grid``, each moved back onto it."""
        images = board_symmetries(self.symmetries, *grid.shape)
        batch = np.stack([np.ascontiguousarray(forward(grid)) for forward, _ in images])
        out = []
        for model in self.models:
            scores = model.batch_scores(batch).reshape(batch.shape).astype(np.float64)
            out.extend(inverse(score) for (_, inverse), score in zip(images, scores, strict=True))
        return np.stack(out)

    def log_safety(self, grid: np.ndarray) -> np.ndarray:
        """The log of every cell's combined safety chance (rows, cols), kept in log space so that cells every
        image is sure of keep their order instead of rounding to a chance of 1."""
        logits = self.logits(grid)
        if self.combine == "logit":
            log_safe = -np.logaddexp(0.0, -logits.mean(axis=0))
        elif self.combine == "chance":
            log_safe = np.logaddexp.reduce(-np.logaddexp(0.0, -logits), axis=0) - np.log(len(logits))
        else:
            log_safe = (-np.logaddexp(0.0, -logits)).min(axis=0)
        if self.count_identity:
            log_safe = self.with_count_identity(grid, log_safe)
        return log_safe

    def with_count_identity(self, grid: np.ndarray, log_safe: np.ndarray) -> np.ndarray:
        """``log_safe`` with the untouched hidden cells set from the mines the frontier does not hold."""
        frontier = find_frontier(grid.ravel(), *grid.shape, trust_flags=False)
        hidden = grid == HIDDEN
        untouched = hidden & (frontier.box_of_cell.reshape(grid.shape) < 0)
        if not untouched.any():
            return log_safe
        frontier_mines = -np.expm1(log_safe[hidden & ~untouched]).sum()
        mine_chance = np.clip((self.mines - frontier_mines) / untouched.sum(), CLIP, 1.0 - CLIP)
        return np.where(untouched, np.log1p(-mine_chance), log_safe)

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        """The first of the safest valid cells, cells within :data:`TIE` of the best logit counting as tied:
        mirror-image cells differ only in the last bits, and under the ``opening`` rule the first click places
        the mines, so every variant opening on the same cell keeps the games paired on the same boards."""
        log_safe = self.log_safety(np.asarray(obs)).ravel()
        logits = log_safe - np.log(-np.expm1(np.minimum(log_safe, -CLIP)))  # the combined chance's logit
        logits = np.where(info["action_mask"].astype(bool), logits, -np.inf)
        return int(np.flatnonzero(logits >= logits.max() - TIE)[0])


def play(args: argparse.Namespace) -> str:
    suite = get_suite(args.suite)
    if not (args.start >= 0 and args.games >= 1 and args.start + args.games <= suite.games):
        raise ValueError(f"games {args.start} to {args.start + args.games - 1} are not all in the suite's "
                         f"{suite.games}")  # fmt: skip
    models = [load_model_agent(path, suite.spec()) for path in args.model]
    if args.refine_passes is not None:
        for path, model in zip(args.model, models, strict=True):
            set_refine_passes(model, args.refine_passes, path)
    agent = CombinedAgent(models, args.symmetries, args.combine, args.count_identity, suite.mines)
    env = MinesweeperEnv(rows=suite.rows, cols=suite.cols, mines=suite.mines, first_click=suite.first_click,
                         boards=suite.boards)  # fmt: skip
    wins = sum(play_episode(env, agent, suite.game_seeds(game).env).won
               for game in range(args.start, args.start + args.games))  # fmt: skip
    variant = f"{args.combine} over {args.symmetries} image(s)" + (", count identity" if args.count_identity else "")
    if args.refine_passes is not None:
        variant += f", {args.refine_passes} refinement pass(es)"
    return f"{' + '.join(args.model)} ({variant}): {wins} of games {args.start}-{args.start + args.games - 1} won"


def set_refine_passes(model: ModelAgent, passes: int, path: str) -> None:
    """Run ``model``'s count refinement ``passes`` times from now on (its passes share their weights).

    Raises:
        ValueError: ``passes`` is below 1, or the network has no count refinement.
    """
    extractor = model.network.trunk
    if passes < 1:
        raise ValueError(f"--refine-passes must be 1 or more, got {passes}")
    if getattr(extractor, "refinement", None) is None:
        raise ValueError(f"--refine-passes: {path} has no count refinement (trained without distill --refine)")
    extractor.refine = passes


def count_error(args: argparse.Namespace) -> str:
    dataset = Dataset.load(args.dataset)
    model = load_model_agent(args.model, dataset.spec)
    rng = np.random.default_rng(args.seed)
    lines = []
    late = dataset.late_positions()
    for name, pool in (("all", np.arange(len(dataset))), ("endgame", late)):
        if not len(pool):
            lines.append(f"{name}: no positions")
            continue
        index = pool[rng.integers(len(pool), size=args.positions)]
        grids, labels = dataset.grids[index], dataset.labels[index].astype(np.float64)
        logits = np.concatenate([model.batch_scores(grids[i : i + 256]) for i in range(0, len(grids), 256)])
        mine = 1.0 / (1.0 + np.exp(logits.reshape(grids.shape).astype(np.float64)))
        hidden = grids == HIDDEN
        error = np.abs(((mine - labels) * hidden).sum(axis=(1, 2)))
        label_error = np.abs((labels * hidden).sum(axis=(1, 2)) - dataset.spec.mines)
        cell_error = np.abs(mine - labels)[hidden].mean()
        lines.append(f"{name}: |summed mine chances - oracle's| mean {error.mean():.3f}, 90th percentile "
                     f"{np.quantile(error, 0.9):.3f}; per hidden cell {cell_error:.4f}; "
                     f"|oracle's sum - mines| {label_error.mean():.4f}")  # fmt: skip
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play_parser = commands.add_parser("play", help="play a suite's games with a combined network")
    play_parser.add_argument("--model", action="append", required=True, help="a distilled model .zip (repeat)")
    play_parser.add_argument("--suite", required=True, help="a named suite (minesweeper eval --list-suites)")
    play_parser.add_argument("--games", type=int, default=1000, help="how many games (default 1000)")
    play_parser.add_argument("--start", type=int, default=0, help="the first game's index (default 0)")
    play_parser.add_argument("--symmetries", type=int, default=1, help="images of the board (1, 2, 4 or 8)")
    play_parser.add_argument("--combine", choices=COMBINES, default="logit", help="how scores are combined")
    play_parser.add_argument("--count-identity", action="store_true", help="untouched cells from the count")
    play_parser.add_argument("--refine-passes", type=int, default=None,
                             help="run each count refinement this many times (default: as trained)")  # fmt: skip
    error_parser = commands.add_parser("count-error", help="how far the summed mine chances are off")
    error_parser.add_argument("--model", required=True, help="a distilled model .zip")
    error_parser.add_argument("--dataset", required=True, help="a labelled dataset .npz of the model's board")
    error_parser.add_argument("--positions", type=int, default=2000, help="positions drawn per group")
    error_parser.add_argument("--seed", type=int, default=0, help="seed of the draw")
    args = parser.parse_args(argv)
    try:
        print(play(args) if args.command == "play" else count_error(args))
    except (ValueError, FileNotFoundError) as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Teach a distilled network the default solver's choice among nearly equally safe cells.

A distilled network plays the hidden cell it thinks safest. Where no cell is certainly safe, the default solver
(``solver``) mostly plays a safest cell too, but which one: the safest cells often tie, and it takes the one
whose number tells most. That, with its few riskier guesses, is what it wins over ``solver-fast``. Teaching the
solver's guess through the chances themselves (``train distill --guess-target solver``) pulls tied cells'
chances apart, so this module leaves the chances alone (the measurements: docs/lab/).

Here the network's trunk and chances stay exactly as they are. A :class:`agents.networks.layers.GuessPreference` head is
added beside them: a bonus of at most ``--bound`` on each cell's safety logit, from the trunk's features and the
cell's gap to the safest logit, trained with the cross-entropy of the solver's guess under the softmax of the
logits plus the bonus, on the true-guess positions of the solver's own games (:func:`harvest_guesses`). Only the
head learns, so a run costs the trunk's forward passes: minutes, not hours. The head changes the play, never
the chances (:func:`train.distill.network.learner_scores` reads them without it), and a bound well under the gap between
a certainly safe cell and a risky one keeps it to the near-ties.

With ``--target returns`` the head learns by reinforcement instead: from the Monte-Carlo returns of every nearly
safest cell at ``solver-fast``'s true guesses, each tried on a copy of the game and played on to its end
(:mod:`train.distill.guess.returns`). Its loss is the cross-entropy, over a position's candidates, of the
softmax of the logits plus the bonus against the candidates whose games were won; a position whose candidates
all won or all lost teaches nothing and is left out. ``--target progress`` shortens the horizon to one reveal:
the return is 1 when the candidate is safe and makes progress (a zero, a certainly safe cell, or the win), whose
chance the solver's ``standard`` guess maximises among the safest cells; one draw of it per candidate, far less
noisy than a whole game's outcome.

Run: ``python -m train.distill.guess.preference --model distill-intermediate --preset intermediate
--games 40000`` or ``minesweeper train guess_preference ...``; every option is a field of
:class:`GuessPreferenceConfig`. Train the head last: a distillation run from a model with one (``--init``)
keeps its weights but changes the trunk under it.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch as th
import torch.nn.functional as F

from agents.networks.saved import CellScorer
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from mine_env.engine.symmetry import SYMMETRIES
from train.command_line import config_script
from train.distill.guess.returns import GuessReturns, pick_returns, rollout_guesses
from train.distill.guesses import GuessPositions, guess_report, harvest_guesses, seed_of_round
from train.distill.labels import label_positions
from train.distill.losses import adam_step, cosine_rate
from train.distill.network import TRUNK_GAIN, orthogonal_start, play_scores
from train.distill.saved import save_distilled
from train.distilled import distilled_network
from train.options import BoardOptions, at_least, option
from train.progress_log import log_row, progress_line

TARGETS = ("solver", "returns", "progress")
"""What a head can learn: the default solver's guesses, the Monte-Carlo returns of the candidates (each game
played on to its end), or their one-reveal returns (safe and making progress)."""


@dataclass
class GuessPreferenceConfig(BoardOptions):
    """Settings of a guess-preference run (``--option-name`` on the command line)."""

    model: str = option("", "The distilled model the head is added to: a shipped model's name or a card's "
                                "stem (its network stays as it is).")
    bound: float = option(0.4, "Largest bonus (either way) the head adds to a safety logit: the solver's guesses "
                               "lie within 10%% of the safest cell's safety, 0.4-0.8 in logits.")
    target: str = option("solver", "What the head learns: 'solver' (the default solver's guesses, imitation), "
                                   "'returns' (the Monte-Carlo returns of each nearly safest cell in solver-fast's "
                                   "games, reinforcement) or 'progress' (their one-reveal returns: safe and "
                                   "showing a zero, proving a cell safe or winning).")
    games: int = option(40_000, "Games whose true-guess positions the head learns from (the default solver's, or "
                                "solver-fast's with --target returns or progress).")
    held_out_games: int = option(2_000, "Games, of their own seed, whose guess positions measure the head "
                                        "(the ones studies/guess_agreement.py reads by default).")
    margin: float = option(0.1, "--target returns or progress: the candidates are the hidden cells at most this "
                                "much less safe, relatively, than the safest.")
    max_candidates: int = option(8, "--target returns or progress: at most this many candidates a position "
                                    "(solver-fast's pick and a uniform draw of the others).")
    samples: int = option(200_000, "Training samples (minibatch rows).")
    batch_size: int = option(256, "Minibatch size.")
    learning_rate: float = option(1e-3, "Adam learning rate at the start; cosine decay to 5%% of it.")
    augment: bool = option(True, "Show each minibatch in a random one of the board's symmetries (the solver's "
                                 "guess moves with the board).")
    report_every: int = option(50_000, "Samples between measurements on the held-out positions.")
    seed: int = option(0, "Seed of the solver's games, the head's initial weights and the minibatches.")
    eval_seed: int = option(10_000_019, "Seed of the held-out games (train distill's --eval-seed: the same positions).")
    torch_threads: int = option(1, "Torch CPU threads.")
    runs_dir: str = option("runs", "Folder holding the run directories.")
    run_name: str = option("", "Name of the run directory (default: guess-preference-board-seed-time).")

    def validate(self) -> None:
        """Raise ValueError with a message when the settings cannot run."""
        self.board_spec()
        if not self.model:
            raise ValueError("--model is required: the distilled model the head is added to")
        if self.target not in TARGETS:
            raise ValueError(f"unknown target {self.target!r}; expected one of {', '.join(TARGETS)}")
        if not 0 <= self.margin < 1:
            raise ValueError(f"margin must be in [0, 1), got {self.margin}")
        at_least(self, 2, "max_candidates")
        if not 0 < self.bound <= 4:
            raise ValueError(f"bound must be above 0 and at most 4 (logits), got {self.bound}")
        at_least(self, 1, "games", "samples", "batch_size", "report_every", "torch_threads")
        at_least(self, 0, "held_out_games")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be above 0, got {self.learning_rate}")


def held_out_positions(spec: BoardSpec, games: int, eval_seed: int) -> GuessPositions:
    """The guess positions of ``games`` solver games from ``eval_seed`` (as ``train distill`` logs its
    ``solver_agree`` on), labelled with their exact chances."""
    positions = harvest_guesses(spec, games, seed_of_round(eval_seed, 0))
    labels = label_positions(positions.grids, spec.mines, spec.first_click).reshape(len(positions.grids), -1)
    return positions._replace(labels=labels)


def with_preference(model_path: str, spec: BoardSpec, bound: float, seed: int) -> CellScorer:
    """A copy of the distilled model ``model_path`` with a fresh :class:`GuessPreference` head of ``bound`` (one it
    had is replaced, drawn from ``seed``): it plays as the model did until the head is trained."""
    source = distilled_network(model_path, spec.mines)
    network = CellScorer(source.trunk, bound)
    network.head.load_state_dict(source.head.state_dict())
    assert network.preference is not None
    with th.no_grad():
        orthogonal_start(network.preference, TRUNK_GAIN, th.Generator().manual_seed(seed))
        network.preference.start_neutral()
    return network


class Targets(NamedTuple):
    """The head's training rows: positions, the cells its softmax ranges over and the target weight of each."""

    grids: np.ndarray
    """int8 (N, rows, cols)."""
    allowed: np.ndarray
    """bool (N, cells): the cells the softmax ranges over."""
    weights: np.ndarray
    """float32 (N, cells): the target distribution over the allowed cells (rows sum to 1)."""


def solver_targets(positions: GuessPositions) -> Targets:
    """The solver's guess as a one-hot target over the hidden cells."""
    count = len(positions.grids)
    allowed = positions.grids.reshape(count, -1) == HIDDEN
    weights = np.zeros(allowed.shape, np.float32)
    weights[np.arange(count), positions.choices.astype(np.int64)] = 1.0
    return Targets(positions.grids, allowed, weights)


def return_targets(positions: GuessReturns) -> Targets:
    """The candidates whose games were won, weighted alike, as the target over the candidates; positions whose
    candidates all won or all lost are left out (no candidate did better there)."""
    allowed, returns = positions.as_planes()
    won, tried = returns.sum(axis=1), allowed.sum(axis=1)
    keep = (won > 0) & (won < tried)
    return Targets(positions.grids[keep], allowed[keep], returns[keep] / won[keep, None])


class PreferenceTrainer:
    """Minibatches of guess positions, in a random symmetry each, and Adam steps on the head alone."""

    def __init__(self, config: GuessPreferenceConfig, network: CellScorer) -> None:
        self.config = config
        self.network = network
        assert network.preference is not None
        self.head = network.preference
        self.optimizer = th.optim.Adam(self.head.parameters(), lr=config.learning_rate)
        self.steps = -(-config.samples // config.batch_size)
        self.step_count = 0
        self.rng = np.random.default_rng(config.seed)
        self.symmetries = len(SYMMETRIES) if config.augment else 1

    def batch(self, targets: Targets) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """(grids (B, H, W) int8, allowed (B, cells) bool, weights (B, cells)) of a minibatch in one random
        symmetry: the planes move with the board."""
        index = self.rng.integers(len(targets.grids), size=self.config.batch_size)
        grids = targets.grids[index]
        shape = grids.shape
        forward, _ = SYMMETRIES[int(self.rng.integers(self.symmetries))]
        moved = [np.ascontiguousarray(forward(plane)) for plane in
                 (grids, targets.allowed[index].reshape(shape), targets.weights[index].reshape(shape))]  # fmt: skip
        grids, allowed, weights = moved
        count = len(index)
        return th.as_tensor(grids), th.as_tensor(allowed.reshape(count, -1)), th.as_tensor(weights.reshape(count, -1))

    def step(self, targets: Targets) -> float:
        """One Adam step of the head on a minibatch; returns its loss."""
        grids, allowed, weights = self.batch(targets)
        with th.no_grad():
            features = self.network.trunk(grids)
            safety = self.network.head(features)
        logits = (safety + self.head(features, safety)).masked_fill(~allowed, float("-inf"))
        log_chance = th.where(allowed, F.log_softmax(logits, dim=1), th.zeros_like(logits))
        loss = -(weights * log_chance).sum(dim=1).mean()
        adam_step(self.optimizer, loss, cosine_rate(self.config.learning_rate, self.step_count, self.steps))
        self.step_count += 1
        return float(loss.item())


def training_positions(config: GuessPreferenceConfig, spec: BoardSpec) -> tuple[Targets, GuessPositions | GuessReturns]:
    """The training targets and the held-out positions that measure the head, by ``config.target``."""
    if config.target in ("returns", "progress"):
        horizon = "game" if config.target == "returns" else "progress"
        rollouts = partial(rollout_guesses, spec, margin=config.margin, max_candidates=config.max_candidates,
                           horizon=horizon)  # fmt: skip
        return return_targets(rollouts(config.games, config.seed)), rollouts(config.held_out_games, config.eval_seed)
    return solver_targets(harvest_guesses(spec, config.games, config.seed)), held_out_positions(
        spec, config.held_out_games, config.eval_seed)


def run(config: GuessPreferenceConfig) -> Path:
    """Add a guess-preference head to ``config.model`` and train it; returns the run directory."""
    config.validate()
    th.set_num_threads(config.torch_threads)
    spec = config.board_spec()
    network = with_preference(config.model, spec, config.bound, config.seed)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = config.run_name or f"guess-preference-{spec.rows}x{spec.cols}x{spec.mines}-s{config.seed}-{stamp}"
    run_dir = Path(config.runs_dir) / name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    start = time.perf_counter()
    targets, held_out = training_positions(config, spec)
    if not len(targets.grids):
        raise ValueError(f"{config.games} games held no true guess to learn from: play more (--games)")
    print(f"{len(targets.grids)} guess positions of {config.games} games, {len(held_out.grids)} held out "
          f"({time.perf_counter() - start:.0f} s)", flush=True)  # fmt: skip
    trainer = PreferenceTrainer(config, network)
    log = run_dir / "progress.csv"
    log_row(log, measure(network, held_out, 0, float("nan"), time.perf_counter() - start))
    losses: list[float] = []
    while trainer.step_count < trainer.steps:
        losses.append(trainer.step(targets))
        samples = trainer.step_count * config.batch_size
        if samples % config.report_every < config.batch_size or trainer.step_count == trainer.steps:
            log_row(log, measure(network, held_out, samples, float(np.mean(losses)), time.perf_counter() - start))
            losses = []
    save_distilled(network, run_dir / "final_model", spec, config, 0)
    return run_dir


def measure(network: CellScorer, held_out: GuessPositions | GuessReturns, samples: int,
            loss: float, seconds: float) -> dict[str, float]:  # fmt: skip
    """One progress row: the held-out report after ``samples`` samples (the solver's guesses matched, or the
    returns of the head's picks), printed as well."""
    scores = play_scores(network)(held_out.grids)
    report = pick_returns(scores, held_out) if isinstance(held_out, GuessReturns) else guess_report(scores, held_out)
    row = {"samples": samples, "loss": loss, **report, "seconds": round(seconds, 1)}
    print(progress_line(row), flush=True)
    return row


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """``python -m train.distill.guess.preference [options]`` (and ``minesweeper train guess_preference``)."""
    prog = prog or "python -m train.distill.guess.preference"
    description = "Teach a distilled network the solver's guesses among near-ties."
    return config_script(argv, prog, description, GuessPreferenceConfig, run)


if __name__ == "__main__":
    sys.exit(main())

"""Oracle distillation: a fully convolutional network learns every hidden cell's exact mine probability.

The network (:class:`agents.networks.trunks.BoardTrunk` and a 1x1 head) outputs one *safety logit* per cell, ``s =
logit(1 - p)``, trained with the binary cross-entropy against the oracle's probability ``p`` over the hidden
cells (:func:`train.distill.losses.distill_loss`); on revealed cells it learns a very low score, as a move that
changes nothing. Its greedy policy plays the hidden cell of least predicted mine probability. It is saved in the
model format (:mod:`train.distill.saved`: ``final_model.pt`` and its card ``final_model.json``, ``algo: "distill"``),
so ``minesweeper eval --model`` plays it and ``--init`` starts PPO, MaskablePPO or DQN from it
(:mod:`train.sb3.warm_start`).

Training alternates, for ``rounds`` rounds, between collecting ``positions`` labelled positions
(:mod:`train.distill.data`: the oracle, the network itself from the second round on, and random play) and
``samples`` minibatch samples drawn from every position so far. ``--crop-rows/--crop-cols`` train on random
windows of the board (same weights: the network is fully convolutional) to spend the CPU on more positions of a
board much wider than the network's view: the loss covers the window, and the network sees it with a ring of the
board around it as wide as its receptive radius (:meth:`train.distill.rounds.config.DistillConfig.receptive_radius`), so
no cell of the loss sees a window side as if it were the board's edge. ``--late-share`` draws part of every
minibatch from the endgame positions, where the networks miss most safe cells, ``--guess-share`` from the
positions with no safe cell, where only the ranking of the risky cells counts; ``--pooled`` gives chosen blocks a
global-pooling bias (:class:`agents.networks.layers.GlobalBias`) for the board-wide counts the endgame turns on, and
``--refine`` passes that check a draft of the chances against the numbers and the mines left
(:class:`agents.networks.layers.CountRefinement`). ``--guess-target solver`` has the choice loss teach the default
solver's guess, not the safest cells, where no cell is certainly safe (:mod:`train.distill.guesses`), and
``--solver-games`` adds the positions where the solver guesses in that many of its own games each round.

Run: ``python -m train.distill.rounds --preset beginner --rounds 6 --positions 80000 --samples 400000`` or ``minesweeper
train distill ...``; every option is a field of :class:`train.distill.rounds.config.DistillConfig`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch as th
from tqdm import tqdm

from agents.networks.saved import CellScorer
from agents.networks.trunks import BoardTrunk
from mine_env.engine.spec import BoardSpec
from train.command_line import add_config_arguments, add_resume_argument, config_from_args, report_run
from train.distill.data import Dataset, PositionCollector
from train.distill.guesses import NO_CHOICE, harvest_guesses, seed_of_round
from train.distill.labels import Labeller
from train.distill.network import accuracy, guess_agreement, learner_scores, new_network, play_scores, start_from
from train.distill.rounds.config import DistillConfig
from train.distill.rounds.trainer import Trainer
from train.distill.saved import save_distilled
from train.played_games import play_games
from train.progress_log import log_row, progress_line

HELD_OUT_SOLVER_GAMES = 2000
"""Games of the default solver whose guess positions measure, each round, how often the network guesses as it
does (``--guess-target solver``): several hundred positions on intermediate, a few seconds."""


def run(config: DistillConfig) -> Path:
    """Distil the oracle as the config says; returns the run directory (models, logs, config)."""
    config.validate()
    th.set_num_threads(config.torch_threads)
    spec = config.board_spec()
    network = new_distilled(config, spec)
    if config.init:
        start_from(network, config.init, spec.mines)
    network.eval()
    dataset = Dataset.empty(spec, dataclasses.asdict(config))
    if config.dataset:
        dataset = Dataset.load(config.dataset)
        dataset.check_board(spec, config.dataset)
    run_dir = Path(config.runs_dir) / (config.run_name or
                                       f"distill-{spec.rows}x{spec.cols}x{spec.mines}-{spec.first_click}-s{config.seed}-"
                                       f"{time.strftime('%Y%m%d-%H%M%S')}")  # fmt: skip
    (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    total_steps = config.rounds * -(-config.samples // config.batch_size)
    trainer = Trainer(config, network, total_steps)
    best = -1.0
    start = time.perf_counter()
    with Labeller(config.label_workers, config.label_chunk or None, config.backend, config.address) as labeller:
        collector = PositionCollector(spec, config.boards, config.seed, labeller, config.explore)
        held_out = collector.collect(min(4096, max(256, config.positions // 10)), (1.0, 0.0, 0.0), None)
        held_out_guesses = None
        if config.guess_target == "solver":
            held_out_guesses = harvest_guesses(spec, HELD_OUT_SOLVER_GAMES, seed_of_round(config.eval_seed, 0))
        for round_index in range(config.rounds):
            row = {"round": round_index + 1}
            if config.positions:
                learner = learner_scores(network) if round_index > 0 or config.init else None
                label_start = time.perf_counter()
                with tqdm(total=config.positions, desc=f"round {round_index + 1} labelling", unit="pos",
                          disable=not config.progress_bar, mininterval=2) as bar:  # fmt: skip
                    grids, labels, stats = collector.collect(
                        config.positions, config.share_values(), learner, bar.update
                    )
                row["collect_positions_per_s"] = config.positions / (time.perf_counter() - label_start)
                row["collect_games"], row["collect_win_rate"] = stats["games"], stats["win_rate"]
                dataset.extend(grids, labels)
            round_seed = seed_of_round(config.seed, round_index)
            if config.solver_games:
                add_solver_guesses(dataset, labeller, config.solver_games, round_seed)
            if config.guess_target == "solver":
                row["solver_choices"] = dataset.record_solver_choices(round_seed)
                row["solver_choices_total"] = int((dataset.choices != NO_CHOICE).sum())
            if config.save_dataset and (config.positions or config.solver_games):
                dataset.save(config.save_dataset)
            row.update(trainer.train(dataset, config.samples, config.progress_bar))
            row.update(accuracy(network, held_out[0], held_out[1]))
            if held_out_guesses is not None:
                row["solver_agree"] = guess_agreement(network, held_out_guesses.grids, held_out_guesses.choices)
            row["positions"], row["samples"] = len(dataset), trainer.step_count * config.batch_size
            evaluation = None
            if config.eval_games:
                played = play_games(play_scores(network), spec, config.eval_games, config.eval_seed)
                row["eval_win_rate"] = played.win_rate
                evaluation = {"games": config.eval_games, "seed": config.eval_seed, "win_rate": row["eval_win_rate"]}
                if row["eval_win_rate"] > best:
                    best = row["eval_win_rate"]
                    save_distilled(network, run_dir / "best_model", spec, config, len(dataset), evaluation)
            row["wall_s"] = time.perf_counter() - start
            save_distilled(network, run_dir / "final_model", spec, config, len(dataset), evaluation)
            log_row(run_dir / "logs" / "progress.csv", row)
            print(f"[{time.strftime('%H:%M:%S')}] {progress_line(row)}", flush=True)
    return run_dir


def new_distilled(config: DistillConfig, spec: BoardSpec) -> CellScorer:
    """A new network of the run's trunk (:class:`agents.networks.trunks.BoardTrunk` of ``--channels``,
    ``--dilations``, ``--pooled`` and ``--refine``) on ``spec``'s mine count, its weights drawn from ``--seed``."""
    trunk = BoardTrunk(config.channels, config.dilation_list(), spec.mines, config.pooled_list(), config.refine)
    return new_network(trunk, config.seed, device=config.device)


def add_solver_guesses(dataset: Dataset, labeller: Labeller, games: int, seed: int) -> None:
    """Play ``games`` of the default solver (``--solver-games``) and add the positions where it guessed, labelled,
    with its guesses."""
    spec = dataset.spec
    grids, choices, _, _ = harvest_guesses(spec, games, seed)
    dataset.extend(grids, labeller.label(grids, spec.mines, spec.first_click), choices)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """``python -m train.distill.rounds [options]`` (and ``minesweeper train distill``): parse, distil, print the
    run."""
    parser = argparse.ArgumentParser(prog=prog or "python -m train.distill.rounds",
                                     description="Distil the exact mine probabilities into a network.")  # fmt: skip
    add_config_arguments(parser, DistillConfig)
    add_resume_argument(parser)  # only to refuse it with a pointer to --init
    args = parser.parse_args(argv)
    if args.resume is not None:
        parser.error("distillation has no --resume: start a new run with --init MODEL (and --dataset PATH)")
    return report_run(parser, lambda: run(config_from_args(DistillConfig, args)))


if __name__ == "__main__":
    sys.exit(main())

"""Where a saved model loses: every move of its games judged by the exact oracle, by stage of the game.

A *miss* is a move that did not take a certainly safe cell while one was hidden (the move may still survive);
an *avoidable loss* is a miss that lost the game (``minesweeper eval``'s column). Moves and misses are counted
by stage, the share of the board's safe cells still hidden: early (half or more), middle, and late (under a
tenth, :data:`train.distill.data.LATE_FRACTION`: the endgame, where most hidden cells are mines). Each
avoidable loss is also filed under the rule round that proves a safe cell in its position
(:func:`agents.rules.deduction_rounds`: 1 from the numbers as shown, 2 with what round 1 proved, ...; "count
only" when no rule finds one and only the exact count over the frontier and the remaining mines does), and
whether the cell played was a certain mine.

The *true guesses* (moves made where no cell was certainly safe) are tallied apart: how many, how many lost,
how many took a cell riskier than the safest one, and their summed excess risk (the chosen cell's mine chance
minus the lowest one): the expected number of games lost to the ranking of risky cells alone. With the misses'
excess risk this splits ``minesweeper eval``'s excess-risk column in two.

The games are those of the named suite (game ``i`` as ``minesweeper eval`` plays it), played in this process.

Usage::

    python studies/loss_anatomy.py --model distill-intermediate \\
        --suite intermediate-opening-10k --games 400 --json docs/results/loss-anatomy-intermediate.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.episode import Move, play_episode
from agents.networks.player import load_model_agent
from agents.oracle import OracleView
from agents.rules import deduction_rounds
from eval.suites import Suite, get_suite
from mine_env.engine.constants import HIDDEN
from mine_env.env import MinesweeperEnv
from train.distill.data import LATE_FRACTION

STAGES = ("early", "middle", "late")
MIDDLE_FRACTION = 0.5
"""A position is early while at least this share of the safe cells is hidden."""
SAME_RISK = 1e-9
"""A guess whose excess risk is at most this took one of the safest cells."""


@dataclass
class Anatomy:
    """The tallies of one model's games."""

    games: int = 0
    wins: int = 0
    moves: Counter[str] = field(default_factory=Counter)
    misses: Counter[str] = field(default_factory=Counter)
    avoidable: Counter[str] = field(default_factory=Counter)
    proof_round: Counter[str] = field(default_factory=Counter)
    certain_mine: int = 0
    miss_excess: float = 0.0
    guesses: int = 0
    guess_losses: int = 0
    guesses_not_safest: int = 0
    guess_excess: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        stages = {
            stage: {"moves": self.moves[stage], "misses": self.misses[stage], "avoidable_losses": self.avoidable[stage]}
            for stage in STAGES
        }
        guesses = {"moves": self.guesses, "lost": self.guess_losses, "not_the_safest": self.guesses_not_safest,
                   "excess_risk": self.guess_excess}  # fmt: skip
        return {"games": self.games, "wins": self.wins, "stages": stages,
                "avoidable_by_proof_round": dict(sorted(self.proof_round.items())),
                "avoidable_on_a_certain_mine": self.certain_mine, "miss_excess_risk": self.miss_excess,
                "true_guesses": guesses}  # fmt: skip


def stage_of(grid: np.ndarray, mines: int, n_safe: int) -> str:
    """The stage of a position (no flags, no shown mines: the env's grid while the game runs)."""
    hidden_safe = int((grid == HIDDEN).sum()) - mines
    if hidden_safe < LATE_FRACTION * n_safe:
        return "late"
    return "middle" if hidden_safe < MIDDLE_FRACTION * n_safe else "early"


class MoveJudge:
    """A :data:`agents.episode.MoveObserver` adding each judged move of one game to an :class:`Anatomy` (the
    first click is not judged: the opening rule makes it safe)."""

    def __init__(self, suite: Suite, anatomy: Anatomy) -> None:
        self.mines = suite.mines
        self.n_safe = suite.spec().n_safe
        self.anatomy = anatomy

    def __call__(self, move: Move) -> None:
        if not move.valid or move.info["revealed"] == 0:
            return
        grid = np.asarray(move.obs)
        stage = stage_of(grid, self.mines, self.n_safe)
        view = OracleView.of(grid, self.mines)
        judgement = view.judge(move.action, move.info["action_mask"])
        self.anatomy.moves[stage] += 1
        if judgement.guess and not judgement.safe_existed:
            self.add_true_guess(judgement.excess_risk, move.lost)
        if not judgement.avoidable:
            return
        self.anatomy.misses[stage] += 1
        self.anatomy.miss_excess += judgement.excess_risk
        if move.lost:
            self.anatomy.avoidable[stage] += 1
            self.anatomy.proof_round[proof_round(grid, view)] += 1
            self.anatomy.certain_mine += judgement.risk >= 1.0

    def add_true_guess(self, excess_risk: float, lost: bool) -> None:
        """Tally a guess made where no cell was certainly safe."""
        self.anatomy.guesses += 1
        self.anatomy.guess_losses += lost
        self.anatomy.guesses_not_safest += excess_risk > SAME_RISK
        self.anatomy.guess_excess += excess_risk


def proof_round(grid: np.ndarray, view: OracleView) -> str:
    """The first rule round that proves one of the position's certainly safe cells, or "count only"."""
    rounds = deduction_rounds(grid)
    found = [rounds[cell] for cell in np.flatnonzero(view.safe).tolist() if cell in rounds]
    return str(min(found)) if found else "count only"


def anatomy_of(model: str, suite: Suite, games: int, symmetries: int, progress: bool) -> Anatomy:
    """Play the suite's first ``games`` games with the model and tally every judged move."""
    agent = load_model_agent(model, suite.spec(), symmetries=symmetries)
    env = MinesweeperEnv(rows=suite.rows, cols=suite.cols, mines=suite.mines, first_click=suite.first_click,
                         boards=suite.boards)  # fmt: skip
    anatomy = Anatomy()
    for game in tqdm(range(games), desc="games", disable=not progress):
        episode = play_episode(env, agent, suite.game_seeds(game).env, observer=MoveJudge(suite, anatomy))
        anatomy.games += 1
        anatomy.wins += episode.won
    return anatomy


def markdown(anatomy: Anatomy) -> str:
    """The tallies as a Markdown table and two lines."""
    lines = ["| stage | moves judged | misses | misses per 1,000 moves | avoidable losses |",
             "| --- | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for stage in STAGES:
        moves, misses = anatomy.moves[stage], anatomy.misses[stage]
        rate = f"{1000 * misses / moves:.2f}" if moves else "-"
        lines.append(f"| {stage} | {moves:,} | {misses:,} | {rate} | {anatomy.avoidable[stage]:,} |")
    rounds = ", ".join(f"{key}: {count}" for key, count in sorted(anatomy.proof_round.items()))
    lines.append("")
    lines.append(f"{anatomy.wins:,} of {anatomy.games:,} games won; avoidable losses by the rule round that "
                 f"proves a safe cell: {rounds or 'none'}; on a certain mine: {anatomy.certain_mine}.")  # fmt: skip
    lines.append(f"True guesses (no safe cell): {anatomy.guesses:,}, {anatomy.guess_losses:,} lost, "
                 f"{anatomy.guesses_not_safest:,} not on a safest cell, summed excess risk "
                 f"{anatomy.guess_excess:.2f}; the misses' summed excess risk {anatomy.miss_excess:.2f}.")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a saved model .zip (its .json beside it)")
    parser.add_argument("--suite", required=True, help="a named suite (minesweeper eval --list-suites)")
    parser.add_argument("--games", type=int, default=400, help="the suite's first N games (default 400)")
    parser.add_argument("--symmetries", type=int, default=1, help="average the model over N board symmetries")
    parser.add_argument("--json", type=Path, help="write the tallies here as JSON")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    try:
        suite = get_suite(args.suite)
        if not 1 <= args.games <= suite.games:
            raise ValueError(f"--games must be between 1 and the suite's {suite.games}, got {args.games}")
        anatomy = anatomy_of(args.model, suite, args.games, args.symmetries, not args.no_progress)
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(markdown(anatomy))
    if args.json:
        report = {"model": args.model, "suite": suite.name, "symmetries": args.symmetries, **anatomy.to_dict()}
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where the solver's games are lost: every lost game's fatal guess filed by kind, and rollouts at a sample of them.

The games are the first N of a named suite, each played by the solver through the env exactly as ``minesweeper
eval`` plays game ``i`` (the suite's seeds, one seeded agent per game). Every move made where no cell was
certainly safe (the exact count of :mod:`mine_env.analysis.probability`) is a *true guess*; the solver takes
every certainly safe cell first, so the move that loses a game is always one. Each fatal guess is filed as

* **forced 50/50**: the position holds two neighbours, one a mine, that no later reveal can tell apart (the
  solver's own detection, :func:`agents.solver.outlook.forced_fifty_fifty`): no play wins more than half
  of the games from there;
* **endgame**: at most ``endgame_layouts`` layouts fit the position (1,000 at the defaults), the regime in
  which ``strong`` searches the game tree exactly (:mod:`agents.solver.endgame`; its win chance is recorded);
* **ordinary**: any other guess,

with its stage (the share of the board's safe cells still hidden), the mine chance of the cell played and of
the safest cell. The rollouts (:mod:`guess_rollouts`) then ask, at a sample of these positions, whether another
candidate would have won more often.

Usage::

    python studies/solver_anatomy.py --suite intermediate-opening-10k --games 2000 --rollout-positions 40 \\
        --rollouts 200 --rollout-at fatal --rollout-at guesses --json docs/results/solver-anatomy-intermediate-2000.json

``--rollout-at guesses`` draws its positions uniformly among all true guesses, so its mean gain times the true
guesses a game estimates the games a search at every guess could win back (to first order); the fatal guesses
alone are a sample chosen by the outcome, which says where losses sit but not what a search gains per game.
``--rollout-at searched`` draws them among the ordinary guesses alone (no forced 50/50, no endgame), the ones
``solver-search`` races, so its mean gain times those guesses a game is the search's gain to first order.
``--rollout-margin`` and ``--rollout-limit`` widen the candidates past the solver's own look-ahead (cells it never
weighs), to see whether any of them does better. ``--rollout-race Z`` races the candidates in rounds of
``--rollout-batch`` layouts, each dropped once it trails the leader by over Z paired standard errors (the search a
player could afford; the play-outs it took are recorded); ``--rollout-strength guess-value`` plays the rollouts on
with the learnt head of ``guess-value`` instead of a solver setting.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from guess_rollouts import GUESS_VALUE, ROLLOUT_TARGETS, SEARCHED_KIND, RolloutStudy, rollout_study
from tqdm import tqdm

from agents.episode import Move, play_episode
from agents.solver import STRENGTHS, SolverAgent
from agents.solver.endgame import best_endgame_guess
from agents.solver.guess import ENDGAME_WORK, SolverSettings
from agents.solver.outlook import forced_fifty_fifty
from eval.suites import Suite, get_suite
from mine_env.analysis.probability import analyse
from mine_env.engine.constants import HIDDEN
from mine_env.env import MinesweeperEnv

KINDS = ("forced 50/50", "endgame", "ordinary")
"""The kinds of fatal guess, in the order they are checked."""
STAGE_BOUNDS = ((0.5, "early"), (0.1, "middle"), (0.0, "late"))
"""A position is early while at least half the safe cells are hidden, late under a tenth (as loss_anatomy)."""


@dataclass(frozen=True)
class GuessPosition:
    """A true guess: the position (observation grid), the cell played, and whether it lost the game."""

    game: int
    grid: np.ndarray
    cell: int
    lost: bool
    kind: str


@dataclass
class FatalGuess:
    """The guess that lost one game."""

    kind: str
    stage: float
    """Share of the board's safe cells still hidden."""
    risk: float
    """Mine chance of the cell played."""
    safest: float
    """The lowest mine chance of a hidden cell."""
    log_layouts: float
    """Natural log of the number of layouts that fit."""
    endgame_chance: float | None = None
    """The exact search's win chance under best play, in the endgame regime (None: the search gave up)."""


@dataclass
class GameRecord:
    """One game: won, its true guesses, and the fatal one when lost."""

    game: int
    won: bool
    guesses: int = 0
    fatal: FatalGuess | None = None


@dataclass
class Played:
    """Every game's record and every true-guess position, in game order."""

    records: list[GameRecord] = field(default_factory=list)
    positions: list[GuessPosition] = field(default_factory=list)


def stage_name(share: float) -> str:
    """early, middle or late for a share of safe cells still hidden."""
    return next(name for bound, name in STAGE_BOUNDS if share >= bound)


def kind_of(grid: np.ndarray, probability: np.ndarray, log_layouts: float, settings: SolverSettings) -> str:
    """The kind of a true guess in ``grid`` (probability flat, from the exact count; see the module docstring)."""
    rows, cols = grid.shape
    flat = np.ascontiguousarray(grid, dtype=np.int8).ravel()
    if forced_fifty_fifty(flat, rows, cols, np.ascontiguousarray(probability)) >= 0:
        return "forced 50/50"
    return "endgame" if log_layouts <= math.log(settings.endgame_layouts + 0.5) else "ordinary"


def classify(grid: np.ndarray, mines: int, cell: int, settings: SolverSettings, n_safe: int) -> FatalGuess:
    """File the guess ``cell`` in position ``grid`` (see the module docstring)."""
    rows, cols = grid.shape
    analysis = analyse(grid, mines)
    probability = analysis.probabilities.ravel()
    hidden = grid.ravel() == HIDDEN
    stage = (int(hidden.sum()) - mines) / n_safe
    kind = kind_of(grid, probability, analysis.log_layouts, settings)
    fatal = FatalGuess(kind, stage, float(probability[cell]), float(probability[hidden].min()), analysis.log_layouts)
    if kind == "endgame":
        flat = np.ascontiguousarray(grid, dtype=np.int8).ravel()
        found, chance = best_endgame_guess(flat, rows, cols, mines, settings.endgame_layouts, np.int64(ENDGAME_WORK))
        fatal.endgame_chance = float(chance) if found >= 0 else None
    return fatal


class GuessRecorder:
    """A :data:`agents.episode.MoveObserver` noting one game's true guesses and filing the fatal one."""

    def __init__(self, suite: Suite, settings: SolverSettings, record: GameRecord, played: Played) -> None:
        self.mines = suite.mines
        self.n_safe = suite.spec().n_safe
        self.settings = settings
        self.record = record
        self.played = played

    def __call__(self, move: Move) -> None:
        if not move.valid or move.info["revealed"] == 0:  # the first click is safe by the rule
            return
        grid = np.asarray(move.obs)
        analysis = analyse(grid, self.mines)
        if analysis.certain_safe.any():
            return
        self.record.guesses += 1
        kind = kind_of(grid, analysis.probabilities.ravel(), analysis.log_layouts, self.settings)
        self.played.positions.append(GuessPosition(self.record.game, grid.copy(), int(move.action), move.lost, kind))
        if move.lost:
            self.record.fatal = classify(grid, self.mines, int(move.action), self.settings, self.n_safe)


def play_suite(suite: Suite, games: int, strength: str, progress: bool) -> Played:
    """Play the suite's first ``games`` games with the solver at ``strength``, as ``minesweeper eval`` does."""
    env = MinesweeperEnv(rows=suite.rows, cols=suite.cols, mines=suite.mines, first_click=suite.first_click,
                         boards=suite.boards)  # fmt: skip
    played = Played()
    for game in tqdm(range(games), desc="games", disable=not progress):
        seeds = suite.game_seeds(game)
        agent = SolverAgent(seeds.agent, strength=strength)
        record = GameRecord(game, False)
        episode = play_episode(env, agent, seeds.env, observer=GuessRecorder(suite, agent.settings, record, played),
                               opening=suite.first_action())  # fmt: skip
        record.won = episode.won
        played.records.append(record)
    return played


def share(count: int, total: int) -> str:
    """``count`` of ``total`` as a percentage with its binomial standard error."""
    if not total:
        return "-"
    p = count / total
    return f"{100 * p:.2f}% ± {100 * math.sqrt(p * (1 - p) / total):.2f}"


def loss_summary(records: list[GameRecord], positions: Sequence[GuessPosition]) -> dict[str, Any]:
    """The losses by kind: how many, their share of games, the means of their stages and risks, and the true
    guesses of each kind with how many of them lost."""
    games = len(records)
    fatal = [record.fatal for record in records if record.fatal is not None]
    kinds: dict[str, Any] = {}
    for kind in KINDS:
        chosen = [guess for guess in fatal if guess.kind == kind]
        chances = [guess.endgame_chance for guess in chosen if guess.endgame_chance is not None]
        kinds[kind] = {
            "losses": len(chosen),
            "share_of_games": len(chosen) / games,
            "stages": {name: sum(stage_name(guess.stage) == name for guess in chosen) for _, name in STAGE_BOUNDS},
            "mean_stage": float(np.mean([guess.stage for guess in chosen])) if chosen else None,
            "mean_risk": float(np.mean([guess.risk for guess in chosen])) if chosen else None,
            "mean_safest": float(np.mean([guess.safest for guess in chosen])) if chosen else None,
            "not_the_safest": sum(guess.risk > guess.safest + 1e-9 for guess in chosen),
            "mean_search_win_chance": float(np.mean(chances)) if chances else None,
        }
    guesses = np.array([record.guesses for record in records])
    capped = np.minimum(guesses, 3)  # 3 stands for 3 or more
    won = np.array([record.won for record in records])
    by_guesses = {str(n): {"games": int((capped == n).sum()), "wins": int(won[capped == n].sum())} for n in range(4)}
    for kind in KINDS:
        kinds[kind]["guesses"] = sum(position.kind == kind for position in positions)
    return {"games": games, "wins": sum(record.won for record in records), "losses": len(fatal), "kinds": kinds,
            "true_guesses": int(guesses.sum()), "by_true_guesses": by_guesses}  # fmt: skip


def markdown(summary: dict[str, Any], rollouts: Sequence[RolloutStudy] = ()) -> str:
    """The losses by kind as a Markdown table, the games by their number of true guesses, and the rollouts."""
    games = summary["games"]
    lines = [f"{summary['wins']:,} of {games:,} games won ({share(summary['wins'], games)}); "
             f"{summary['true_guesses']:,} true guesses ({summary['true_guesses'] / games:.2f} a game).", "",
             "| kind | true guesses | lost there | of games | early / middle / late | mean stage "
             "| mine chance played | safest | not the safest |",
             "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for kind, row in summary["kinds"].items():
        if not row["losses"]:
            lines.append(f"| {kind} | {row['guesses']:,} | 0 | - | - | - | - | - | - |")
            continue
        stages = " / ".join(str(count) for count in row["stages"].values())
        lines.append(f"| {kind} | {row['guesses']:,} | {row['losses']:,} | {share(row['losses'], games)} | {stages} | "
                     f"{row['mean_stage']:.3f} | {row['mean_risk']:.3f} | {row['mean_safest']:.3f} | "
                     f"{row['not_the_safest']} |")  # fmt: skip
    chance = summary["kinds"]["endgame"]["mean_search_win_chance"]
    if chance is not None:
        lines.append(f"\nIn the endgame losses the exact search gave a mean win chance of {chance:.3f}.")
    lines += ["", "| true guesses in the game | games | won |", "| ---: | ---: | ---: |"]
    for n, row in summary["by_true_guesses"].items():
        label = f"{n}+" if n == "3" else n
        lines.append(f"| {label} | {row['games']:,} | {share(row['wins'], row['games'])} |")
    for study in rollouts:
        lines += ["", study.markdown()]
        back = won_back(summary, study)
        if back is not None:
            searched = study.target == "searched"
            drawn_from = summary["kinds"][SEARCHED_KIND]["guesses"] if searched else summary["true_guesses"]
            lines += ["", f"Times {drawn_from / games:.2f} {'searched' if searched else 'true'} guesses a game: at "
                         f"most {100 * back[0]:+.2f} ± {100 * back[1]:.2f} points of games won back by the best "
                         "candidate at every such guess (first order: one decision changed at a time)."]  # fmt: skip
    return "\n".join(lines)


def won_back(summary: dict[str, Any], rollouts: RolloutStudy) -> tuple[float, float] | None:
    """Games won back per game (and its standard error) were the best candidate played at every true guess (every
    searched one): the mean gain at a uniformly drawn guess of the target times such guesses a game; None for the
    fatal guesses."""
    measured = rollouts.summary()
    if rollouts.target == "fatal" or measured["mean_gain_se"] is None:
        return None
    drawn_from = summary["true_guesses"] if rollouts.target == "guesses" else summary["kinds"][SEARCHED_KIND]["guesses"]
    per_game = drawn_from / summary["games"]
    return measured["mean_gain"] * per_game, measured["mean_gain_se"] * per_game


def report_json(report: dict[str, Any]) -> str:
    """The report as indented JSON, with each game record and each rollout position on one line."""
    compact: list[str] = []

    def one_a_line(items: list[dict[str, Any]]) -> str:
        compact.append("[\n" + ",\n".join(json.dumps(item, separators=(",", ":")) for item in items) + "\n]")
        return f"@@{len(compact) - 1}@@"

    rollouts = [{**study, "positions": one_a_line(study["positions"])} for study in report["rollouts"]]
    text = json.dumps({**report, "rollouts": rollouts, "records": one_a_line(report["records"])}, indent=1)
    for index, block in enumerate(compact):
        text = text.replace(f'"@@{index}@@"', block)
    return text + "\n"


def record_dict(record: GameRecord) -> dict[str, Any]:
    """A game record as JSON values, without its empty fields, its chances rounded to 1e-6."""
    plain = {key: value for key, value in asdict(record).items() if value is not None}
    if "fatal" in plain:
        plain["fatal"] = {key: round(value, 6) if isinstance(value, float) else value
                          for key, value in plain["fatal"].items()}  # fmt: skip
    return plain


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--suite", help="a named suite (minesweeper eval --list-suites)")
    where.add_argument("--preset", choices=("beginner", "intermediate", "expert"),
                       help="the preset's opening-10k suite")  # fmt: skip
    parser.add_argument("--games", type=int, default=400, help="the suite's first N games (default 400)")
    parser.add_argument("--strength", default="strong", choices=STRENGTHS, help="the solver's setting (default strong)")
    parser.add_argument("--rollout-positions", type=int, default=0, help="guess positions to play out (default 0)")
    parser.add_argument("--rollouts", type=int, default=100, help="layouts per candidate, and again to check the best")
    parser.add_argument("--rollout-strength", default="fast", choices=[*STRENGTHS, GUESS_VALUE],
                        help="who plays the rollouts on: a solver setting, or guess-value (the learnt head)")
    parser.add_argument("--rollout-at", action="append", choices=ROLLOUT_TARGETS,
                        help="fatal (default): the lost games' fatal guesses; guesses: any true guess (for a per-game "
                             "figure); repeat for both, --rollout-positions at each")  # fmt: skip
    parser.add_argument("--rollout-margin", type=float,
                        help="candidates within this fraction of the safest (default: the solver's own, 0.1)")
    parser.add_argument("--rollout-limit", type=int, help="at most this many candidates (default: the solver's, 12)")
    parser.add_argument("--rollout-race", type=float, default=0.0,
                        help="race the candidates: after each round of --rollout-batch layouts, drop those whose "
                             "paired lead over the leader is under minus this many standard errors (default 0: "
                             "every candidate on every layout)")  # fmt: skip
    parser.add_argument("--rollout-batch", type=int, default=100, help="layouts a round of the race (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the rollouts' positions and layouts")
    parser.add_argument("--json", type=Path, help="write the records and the summary here as JSON")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    try:
        suite = get_suite(args.suite or f"{args.preset}-opening-10k")
        if not 1 <= args.games <= suite.games:
            raise ValueError(f"--games must be between 1 and the suite's {suite.games}, got {args.games}")
        if suite.start != "agent":
            raise ValueError(f"suite {suite.name} opens a zero cell for the agent: use one where the agent opens")
        if args.rollout_positions < 0 or args.rollouts < 1:
            raise ValueError("--rollout-positions must be >= 0 and --rollouts >= 1")
        if args.rollout_race < 0 or args.rollout_batch < 1:
            raise ValueError("--rollout-race must be >= 0 and --rollout-batch >= 1")
        if not 0 <= (args.rollout_margin or 0) < 1 or (args.rollout_limit is not None and args.rollout_limit < 1):
            raise ValueError("--rollout-margin must lie in [0, 1) and --rollout-limit be at least 1")
        played = play_suite(suite, args.games, args.strength, not args.no_progress)
        targets = list(dict.fromkeys(args.rollout_at or ["fatal"])) if args.rollout_positions else []
        rollouts = [rollout_study(played.positions, suite.mines, target, args.rollout_positions, args.rollouts,
                                  args.strength, args.rollout_strength, args.seed, progress=not args.no_progress,
                                  margin=args.rollout_margin, limit=args.rollout_limit, race=args.rollout_race,
                                  batch=args.rollout_batch)
                    for target in targets]  # fmt: skip
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    summary = loss_summary(played.records, played.positions)
    print(markdown(summary, rollouts))
    if args.json:
        report = {"suite": suite.name, "games": args.games, "strength": args.strength, "summary": summary,
                  "rollout_seed": args.seed, "rollout_margin": args.rollout_margin,
                  "rollout_limit": args.rollout_limit, "rollout_race": args.rollout_race,
                  "rollout_batch": args.rollout_batch, "rollouts": [study.to_dict() for study in rollouts],
                  "won_back_per_game": [won_back(summary, study) for study in rollouts],
                  "records": [record_dict(record) for record in played.records]}  # fmt: skip
        args.json.write_text(report_json(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Learn a model's opening cell from the returns of its own games, and write it into the model's card.

The first move on an untouched board is one decision, taken in every game, whose return is the game's outcome
under the model's own play afterwards (:mod:`agents.opening` says why PPO learns it poorly). Here it is learnt as
a bandit over that one state: each candidate cell is played first in games of the model's own play (the model
opening on that cell, then choosing every move itself, as ``minesweeper eval`` plays it), and successive halving
spends the games where they decide something: every round plays fresh games (the round's own base seed) for the
candidates still in, twice as many a candidate as the round before, and keeps the better half by the win rate
of all their games so far. The model's own first cell is the reference: it plays every round and is never
dropped, and the last challenger left meets it in the rounds that remain; the opening is written only where it
beats the reference (a two-sided test on their games, ``--alpha``), since a first round of a few hundred games
drops good cells and keeps lucky ones by chance. The games of a round are logged as they finish
(:mod:`eval.game_log`), so a stopped run goes on where it was when run again.

Run: ``python -m eval.opening maskable-ppo-expert --symmetries 4 --sure 1e-5 --games 200 --seed 20261207
--write`` (the seeds must be others than those of the suite the opening will be measured on: the named suites'
base seed is ``eval.suites.SUITE_BASE_SEED``). Then ``minesweeper eval --model maskable-ppo-expert --symmetries 4
--sure 1e-5 --opening`` plays it.
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.model_card import ModelCard, model_paths
from agents.networks.player import load_model_agent, model_label
from agents.opening import CandidateReturns, LearntOpening
from eval.agent_specs import AgentSpec
from eval.runner import evaluate
from eval.stats import two_proportion_p
from eval.suites import SUITE_BASE_SEED, adhoc_suite, checked_cell
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec

Cell = tuple[int, int]


def corner_cells(rows: int, cols: int, reach: int) -> list[Cell]:
    """The cells within ``reach`` rows and columns of the top-left corner: the candidates by default (under the
    board's mirror images every cell has one of these as its image once ``reach`` covers half the board)."""
    return [(row, col) for row in range(min(reach + 1, rows)) for col in range(min(reach + 1, cols))]


def own_first_cell(path: str, spec: BoardSpec, symmetries: int, sure: float) -> Cell:
    """The cell the model's own scores pick on an untouched board."""
    agent = load_model_agent(path, spec, symmetries, sure)
    info = {"action_mask": np.ones(spec.rows * spec.cols, np.int8), "mines": spec.mines}
    action = agent.act(np.full((spec.rows, spec.cols), HIDDEN, np.int8), info)
    return divmod(action, spec.cols)


def _opening_on(path: str, spec: BoardSpec, symmetries: int, sure: float, cell: Cell, seed: int | None):
    """The model opening on ``cell`` and choosing every later move itself (built in the process that plays it)."""
    agent = load_model_agent(path, spec, symmetries, sure)
    agent.opening = cell[0] * spec.cols + cell[1]
    return agent


def candidate_spec(path: str, spec: BoardSpec, symmetries: int, sure: float, cell: Cell) -> AgentSpec:
    """A candidate as an agent of the evaluation, named by its cell."""
    build = functools.partial(_opening_on, path, spec, symmetries, sure, cell)
    return AgentSpec(f"{cell[0]},{cell[1]}", build, seeded=False)


def play_round(path: str, spec: BoardSpec, symmetries: int, sure: float, cells: Sequence[Cell], games: int,
               seed: int, workers: int | None, log: Path) -> dict[Cell, int]:  # fmt: skip
    """Games won by each candidate of ``games`` games of base seed ``seed`` (resumed from ``log`` when it holds
    some of them)."""
    suite = adhoc_suite(spec, games, seed)
    agents = [candidate_spec(path, spec, symmetries, sure, cell) for cell in cells]
    report = evaluate(agents, suite, workers=workers, oracle=False, progress=sys.stderr.isatty(), log=log,
                      resume=log.exists())  # fmt: skip
    return {cell: sum(record.won for record in report.records_of(f"{cell[0]},{cell[1]}")) for cell in cells}


def successive_halving(play, cells: Sequence[Cell], games: int, rounds: int, seed: int,
                       reference: Cell) -> list[CandidateReturns]:  # fmt: skip
    """Every candidate's games and wins after successive halving, the opening first.

    Args:
        play: ``play(round, cells, games, seed) -> {cell: won}``: one round's fresh games for the cells still in.
        cells: The candidates (distinct), ``reference`` among them.
        games: Games a candidate in the first round; doubled every round.
        rounds: The rounds played (fewer when no challenger is left); once one challenger is left, the rounds that
            remain are its and the reference's alone.
        seed: The first round's base seed; round ``r`` plays base seed ``seed + r``.
        reference: The model's own first cell: it plays every round and is never dropped, so the opening has to
            beat it on the same seeds and as many games; the other candidates halve.
    """
    totals = {cell: CandidateReturns(cell, 0, 0) for cell in cells}
    challengers = [cell for cell in cells if cell != reference]
    for round_index in range(rounds):
        if not challengers:
            break
        round_games = games * 2**round_index
        alive = [*challengers, reference]
        won = play(round_index, alive, round_games, seed + round_index)
        for cell in alive:
            before = totals[cell]
            totals[cell] = CandidateReturns(cell, before.games + round_games, before.won + won[cell])
        ranked = sorted(alive, key=lambda cell: (-totals[cell].win_rate, cells.index(cell)))
        print(round_table(round_index, round_games, [totals[cell] for cell in ranked], reference), flush=True)
        challengers = [cell for cell in ranked if cell != reference][: math.ceil(len(challengers) / 2)]
    best = max([*challengers, reference], key=lambda cell: (totals[cell].win_rate, cell == reference))
    return [totals[best], *sorted((item for cell, item in totals.items() if cell != best),
                                  key=lambda item: (-item.games, -item.win_rate))]  # fmt: skip


def round_table(round_index: int, games: int, ranked: Sequence[CandidateReturns], reference: Cell) -> str:
    """The candidates after a round, best first: their games and win rates so far."""
    lines = [f"round {round_index + 1}: {games} games a candidate", "| first cell | games | won | win rate |",
             "| --- | ---: | ---: | ---: |"]  # fmt: skip
    lines += [f"| ({item.cell[0]}, {item.cell[1]}){' (its own)' if item.cell == reference else ''} | {item.games} | "
              f"{item.won} | {item.win_rate:.1%} |" for item in ranked]  # fmt: skip
    return "\n".join(lines)


def learn_opening(path: str, spec: BoardSpec, symmetries: int, sure: float, cells: Sequence[Cell], reference: Cell,
                  games: int, rounds: int, seed: int, workers: int | None, log_dir: Path) -> LearntOpening:  # fmt: skip
    """The opening of the model ``path`` on ``spec`` by successive halving over ``cells`` against the model's own
    first cell ``reference`` (:func:`successive_halving`), each round's games logged in ``log_dir``."""
    log_dir.mkdir(parents=True, exist_ok=True)

    def play(round_index: int, alive: Sequence[Cell], round_games: int, round_seed: int) -> dict[Cell, int]:
        log = log_dir / f"round-{round_index + 1}-seed{round_seed}-games{round_games}.jsonl"
        return play_round(path, spec, symmetries, sure, alive, round_games, round_seed, workers, log)

    candidates = successive_halving(play, cells, games, rounds, seed, reference)
    return LearntOpening(candidates[0].cell, (spec.rows, spec.cols, spec.mines), spec.first_click, symmetries, sure,
                         seed, tuple(candidates))  # fmt: skip


def against_reference(opening: LearntOpening, reference: Cell) -> tuple[CandidateReturns, float]:
    """The reference's games and the two-sided p-value of the opening's win rate against it (1 when the opening
    is the reference): a selection's p-value, so an optimistic one."""
    own = next(item for item in opening.candidates if item.cell == reference)
    best = opening.candidates[0]
    if best.cell == reference:
        return own, 1.0
    return own, two_proportion_p(best.won, best.games, own.won, own.games)


def write_opening(path: str, opening: LearntOpening) -> Path:
    """Put ``opening`` into the model's card, in place; the card's path."""
    card = ModelCard.of_model(path)
    card_path = model_paths(path)[1]
    ModelCard.from_dict({**card.to_dict(), "opening": opening.to_dict()}).write(card_path)
    return card_path


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m eval.opening", description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="the model: its .pt or .zip, their stem, or a shipped model's name")
    parser.add_argument("--symmetries", type=int, default=1, help="play it averaged over this many images (1)")
    parser.add_argument("--sure", type=float, default=0.0, help="and gated at this mine chance (0: always)")
    parser.add_argument("--candidates", nargs="+", metavar="ROW,COL",
                        help="the candidate first cells (default: those within --reach of the top-left corner, "
                             "and the model's own)")  # fmt: skip
    parser.add_argument("--reach", type=int, default=4, help="rows and columns from the corner of the default "
                                                             "candidates (4: 25 cells)")  # fmt: skip
    parser.add_argument("--games", type=int, default=200, help="games a candidate in the first round (200)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds (4); a run goes on with more when run again "
                        "with a larger number")  # fmt: skip
    parser.add_argument("--seed", type=int, default=20261207, help="the first round's base seed")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    parser.add_argument("--log-dir", type=Path, help="where the rounds' games are logged (default: "
                                                     "runs/opening/<model>-sym<N>)")  # fmt: skip
    parser.add_argument("--write", action="store_true", help="write the opening into the model's card, when it "
                        "beats the model's own first cell at --alpha")  # fmt: skip
    parser.add_argument("--alpha", type=float, default=0.05, help="the two-sided p-value below which the opening "
                        "counts as beating the model's own cell (0.05; 1: whenever it leads)")  # fmt: skip
    return parser.parse_args(argv)


def candidate_cell(text: str, spec: BoardSpec) -> Cell:
    """``ROW,COL`` as a cell of the board; ValueError saying what is wrong."""
    try:
        cell = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"--candidates takes cells as ROW,COL (two integers), got {text!r}") from None
    return checked_cell(cell, spec.rows, spec.cols)


def check_args(args: argparse.Namespace, spec: BoardSpec, own: Cell) -> list[Cell]:
    """The candidate cells, the model's own cell ``own`` among them; ValueError for an option out of range."""
    if args.games < 1 or args.rounds < 1 or args.reach < 0:
        raise ValueError("--games and --rounds are at least 1, --reach at least 0")
    if not 0 < args.alpha <= 1:
        raise ValueError(f"--alpha is a p-value in (0, 1], got {args.alpha:g}")
    if args.seed < 0 or args.seed == SUITE_BASE_SEED:
        raise ValueError(f"--seed must be a non-negative integer other than the named suites' {SUITE_BASE_SEED}")
    if args.candidates:
        cells = [candidate_cell(text, spec) for text in args.candidates]
    else:
        cells = corner_cells(spec.rows, spec.cols, args.reach)
    if len(set(cells)) != len(cells):
        raise ValueError("--candidates repeats a cell")
    return cells if own in cells else [*cells, own]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        card = ModelCard.of_model(args.model)
        rows, cols = card.board
        spec = BoardSpec(rows, cols, int(card.env_kwargs.get("mines", 0)), str(card.env_kwargs.get("first_click")))
        own = own_first_cell(args.model, spec, args.symmetries, args.sure)  # the model and its settings checked
        cells = check_args(args, spec, own)
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    label = model_label(args.model, args.symmetries).replace("/", "-")
    log_dir = args.log_dir or Path("runs") / "opening" / label
    print(f"{model_label(args.model, args.symmetries, args.sure)} on {rows}x{cols} with {spec.mines} mines "
          f"({spec.first_click}): {len(cells)} candidates against its own first cell ({own[0]}, {own[1]}), games "
          f"logged in {log_dir}", flush=True)  # fmt: skip
    opening = learn_opening(args.model, spec, args.symmetries, args.sure, cells, own, args.games, args.rounds,
                            args.seed, args.workers, log_dir)  # fmt: skip
    best = opening.candidates[0]
    reference, p_value = against_reference(opening, own)
    print(f"opening: ({best.cell[0]}, {best.cell[1]}), {best.won} of {best.games} games won ({best.win_rate:.1%}); "
          f"its own ({own[0]}, {own[1]}) {reference.won} of {reference.games} ({reference.win_rate:.1%}), "
          f"p = {p_value:.2g}")  # fmt: skip
    if args.write and (best.cell == own or p_value >= args.alpha):
        print(f"not written: no cell beats the model's own at p < {args.alpha:g}")
    elif args.write:
        print(f"written into {write_opening(args.model, opening)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

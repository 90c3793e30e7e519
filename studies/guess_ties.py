"""What a network's guesses lack against the solver's: the exactly tied safest cells, and their look-ahead.

Every agent opens at the same cell of a named suite, so all of them play the very same boards, and the networks
play under the oracle's safe-cell mask (``minesweeper eval --safe-mask``): only their guesses are theirs. Three
parts, each printed as a table:

- ``solver``: the solver's settings, each adding one idea to the row above (``studies/solver_ablation.py``'s
  rows, played here through the runner at the fixed first cell, a fresh agent per game from its seed).
- ``ties``: at every guess of the masked network, how many hidden cells share the least exact mine chance, how far
  the network's chances spread over them (standard deviation over mean), and whether its pick is one of them.
- ``probes``: the network's guess rule with a part of it handed to the oracle. ``plain``: its safest cell.
  ``pooled`` (no oracle): its safest cell once the cells that touch no number share the mean of its chances over
  them (:func:`pooled_pick`).
  ``window-exact``: among its cells within ``--window`` (relative) of its safest, the highest exact blended score
  (:func:`agents.solver.outlook.look_ahead`). ``ties-plain``: its safest cell among the exact ties.
  ``ties-exact``: the exact ties ranked by the exact blended score (the solver's ``strong`` setting without its
  margin or endgame search). ``ties-net``: the exact ties ranked by the network's own look-ahead: each number a
  cell may show weighted by the chance of that many mines among its hidden neighbours taken one by one from the
  network's chances, each next position scored by the network as ``strong`` scores it ((4 x best + second best
  safety) / 5).

Usage::

    python studies/guess_ties.py --suite intermediate-opening-10k --first-cell 2,2 --model distill-intermediate
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from first_click import parse_cell
from solver_ablation import SETTINGS

from agents.base import Agent
from agents.networks.player import ModelAgent, load_model_agent
from agents.solver import SolverAgent
from agents.solver.outlook import TIE_TOLERANCE, look_ahead
from agents.wrappers import SafeCellsFirst
from eval.agent_specs import AgentSpec
from eval.runner import evaluate
from eval.suites import Suite, get_suite
from mine_env.analysis.counting import count_position
from mine_env.engine.constants import HIDDEN
from mine_env.engine.geometry import neighbours
from mine_env.engine.layout import neighbour_counts

PROBES = ("plain", "pooled", "window-exact", "ties-plain", "ties-exact", "ties-net")
MAX_CANDIDATES = 12
"""At most this many candidates a guess, safest by the network first (the solver's own cap)."""


def chance_of(safety_logits: np.ndarray) -> np.ndarray:
    """The mine chance a distilled network's safety logits stand for."""
    return 1.0 / (1.0 + np.exp(np.clip(safety_logits, -50.0, 50.0)))


def mine_chances(network: ModelAgent, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
    """The network's mine chance of every cell, infinity where the cell cannot be revealed."""
    return np.where(info["action_mask"].astype(bool), chance_of(network.action_scores(obs, info)), np.inf)


def exact_ties(flat: np.ndarray, rows: int, cols: int, mines: int, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cells of least exact mine chance (within the solver's relative tie tolerance), and every cell's exact
    chance."""
    _, probability, _, _ = count_position(flat, rows, cols, mines)
    chances = np.where(valid, probability, np.inf)
    least = chances.min()
    return np.flatnonzero(chances <= least + TIE_TOLERANCE * least), probability


def count_distribution(chances: list[float]) -> np.ndarray:
    """The distribution of how many of independent events of these chances happen (Poisson binomial)."""
    dist = np.zeros(len(chances) + 1)
    dist[0] = 1.0
    for chance in chances:
        dist[1:] = dist[1:] * (1.0 - chance) + dist[:-1] * chance
        dist[0] *= 1.0 - chance
    return dist


def network_outlook(network: ModelAgent, obs: np.ndarray, info: dict[str, Any], chances: np.ndarray,
                    cell: int) -> float:  # fmt: skip
    """The network's blended score of revealing ``cell``: its chance of being safe times, over each number it
    may show (weighted as :func:`count_distribution` of its hidden neighbours' chances), the next position's
    (4 x best + second best safety) / 5 by the network."""
    rows, cols = obs.shape
    flat = obs.ravel()
    hidden = [n for n in neighbours(cell, rows, cols) if flat[n] == HIDDEN]
    weights = count_distribution([float(chances[n]) for n in hidden])
    grids = np.repeat(obs[None], len(weights), axis=0)
    grids.reshape(len(weights), -1)[:, cell] = np.arange(len(weights))
    next_chances = chance_of(network.batch_scores(grids))
    score = 0.0
    for value, weight in enumerate(weights):
        still_hidden = grids[value].ravel() == HIDDEN
        safest = np.sort(1.0 - next_chances[value][still_hidden])[::-1]
        best = safest[0] if safest.size else 1.0
        second = safest[1] if safest.size > 1 else best
        score += weight * (4.0 * best + second) / 5.0
    return (1.0 - float(chances[cell])) * score


def pooled_pick(obs: np.ndarray, chances: np.ndarray) -> int:
    """The network's safest cell once the hidden cells that touch no number (whose exact chances are all equal, by
    the rules alone) are given the mean of its chances over them: the safest cell of the frontier if that is safer,
    else the interior cell of the network's least chance."""
    hidden = obs == HIDDEN
    touches = neighbour_counts(~hidden) > 0
    interior = np.flatnonzero((hidden & ~touches).ravel() & np.isfinite(chances))
    frontier = np.flatnonzero((hidden & touches).ravel() & np.isfinite(chances))
    if interior.size == 0 or (frontier.size and chances[frontier].min() < chances[interior].mean()):
        return int(frontier[chances[frontier].argmin()])
    return int(interior[chances[interior].argmin()])


class GuessProbe(Agent):
    """The network's guess with one part of the rule handed to the oracle (the module's ``probes``)."""

    def __init__(self, model: str, probe: str, window: float) -> None:
        self.network = load_model_agent(model)
        self.probe, self.window = probe, window
        self.name = f"{probe} ({window:g})" if probe == "window-exact" else probe
        self.tie_log: list[tuple[int, float, bool]] = []
        """The plain probe's guesses: how many cells tie, the spread of its chances over them, its pick among them."""

    def reset(self) -> None:
        self.network.reset()

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        chances = mine_chances(self.network, obs, info)
        pick = int(chances.argmin())
        if (obs == HIDDEN).all():
            return pick
        if self.probe == "pooled":
            return pooled_pick(obs, chances)
        rows, cols = obs.shape
        mines = int(info["mines"])
        flat = np.ascontiguousarray(obs, dtype=np.int8).ravel()
        ties, probability = exact_ties(flat, rows, cols, mines, np.isfinite(chances))
        if self.probe == "plain":
            self.tie_log.append((ties.size, float(chances[ties].std() / chances[ties].mean()), pick in ties))
            return pick
        if self.probe == "window-exact":
            order = np.argsort(chances)[:MAX_CANDIDATES]
            candidates = order[chances[order] <= chances[pick] * (1.0 + self.window)]
        else:
            candidates = ties[np.argsort(chances[ties])][:MAX_CANDIDATES]
        if self.probe == "ties-plain" or candidates.size == 1:
            return int(candidates[0])
        if self.probe == "ties-net":
            scores = [network_outlook(self.network, obs, info, chances, int(c)) for c in candidates]
        else:
            scores = [look_ahead(flat, rows, cols, mines, int(c), probability[c]).blended for c in candidates]
        return int(candidates[int(np.argmax(scores))])


def table(report: dict[str, Any], first: str) -> list[str]:
    """Rows of wins and the paired counts against ``first`` (only it won / only this won, McNemar p)."""
    lines = ["| agent | wins | win rate | 95% CI | only " + first + " / only this, p |", "|---|---:|---:|---|---|"]
    pairs = {pair["agents"][1]: pair for pair in report["paired"] if pair["agents"][0] == first}
    for result in report["results"]:
        pair = pairs.get(result["agent"])
        paired = (
            "" if pair is None else (f"{pair['only_first']} / {pair['only_second']}, p = {pair['p_value_exact']:.2g}")
        )
        lo, hi = result["ci95"]
        lines.append(f"| {result['agent']} | {result['wins']:,} | {result['win_rate']:.2%} | {lo:.2%} - {hi:.2%} "
                     f"| {paired} |")  # fmt: skip
    return lines


def solver_rows(suite: Suite) -> dict[str, Any]:
    """The solver's settings on the suite, each a fresh agent per game from the game's agent seed."""
    specs = [AgentSpec(label, functools.partial(SolverAgent, **settings)) for label, settings in SETTINGS]
    return evaluate(specs, suite, workers=1, oracle=False, progress=False).to_dict()


def probe_rows(suite: Suite, model: str, window: float) -> tuple[dict[str, Any], list[tuple[int, float, bool]]]:
    """``solver-fast`` and the probes on the suite, and the tie log of the ``plain`` probe's guesses."""
    probes = [GuessProbe(model, probe, window) for probe in PROBES]
    agents: list[Any] = ["solver-fast", *(AgentSpec.instance(SafeCellsFirst(probe)) for probe in probes)]
    report = evaluate(agents, suite, workers=1, oracle=False, progress=False).to_dict()
    return report, probes[0].tie_log


def tie_lines(log: list[tuple[int, float, bool]]) -> list[str]:
    """The tie statistics of the guesses in ``log``."""
    if not log:
        return ["guesses: none"]
    sizes = np.array([size for size, _, _ in log])
    spread = np.array([spread for size, spread, _ in log if size > 1] or [0.0])
    picked = np.mean([inside for _, _, inside in log])
    return [f"guesses: {sizes.size:,}; with two or more exactly tied safest cells: {np.mean(sizes > 1):.1%} "
            f"(mean {sizes.mean():.1f} cells); the network's chances over them spread by {np.median(spread):.0%} "
            f"of their mean (median); its pick among them: {picked:.1%}"]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default="intermediate-opening-10k")
    parser.add_argument("--first-cell", type=parse_cell, default=(2, 2))
    parser.add_argument("--games", type=int, help="the suite's first games only")
    parser.add_argument("--model", default="distill-intermediate", help="a distilled model (its scores are chances)")
    parser.add_argument("--window", type=float, default=0.3, help="window-exact's relative window")
    parser.add_argument("--json", type=Path, help="also write both reports here")
    args = parser.parse_args(argv)
    suite = get_suite(args.suite).with_first_cell(args.first_cell)
    if args.games:
        suite = replace(suite, games=min(args.games, suite.games))
    solver = solver_rows(suite)
    print("\n".join(table(solver, SETTINGS[0][0])), flush=True)
    probes, log = probe_rows(suite, args.model, args.window)
    print("\n" + "\n".join(table(probes, "solver-fast")))
    print("\n" + "\n".join(tie_lines(log)))
    if args.json:
        args.json.write_text(json.dumps({"solver": solver, "probes": probes}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

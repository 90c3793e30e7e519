"""Can a policy learnt from returns choose among the solver's own candidates better than the solver does?

Reads the chunks of a ``python -m train.distill.guess.value --player solver`` run: at each guess where the default
solver weighs two or more candidates, every candidate was revealed on a copy of the game and played on by the
solver, all on the position's one layout. A softmax policy over each position's candidates is fitted to maximise
its expected return on the training positions (the returns of every candidate are known, so the expected return
``sum_j pi_j R_j`` is exact for that layout and its gradient has no sampling noise beyond the layout's), starting
at the solver's own pick (a feature of weight ``--start``). Its greedy pick is then judged on the held-out positions
(the last ``--held-out`` share) against the solver's, paired on the candidates' returns.

Two policies: ``linear`` over what the solver saw in each candidate (its score, progress chance, alive and kept
flags, safety) and the share of the board still hidden, with products of the two; ``mlp``, a small network over
the guess-value head's features (the 7x7 neighbourhood, the mine chance, density, hidden share) and the solver's.
A policy that learns nothing stays at the solver's pick (gain 0, picks never differ); one that fits noise wins on
its training positions and loses on the held-out ones.

Usage::

    python studies/shortlist_policy.py --run runs/solver-value-expert --json docs/results/shortlist-policy-expert.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch as th

from agents.guess_value import FEATURES, candidate_features
from agents.solver_value import SOLVER_SCALARS
from train.distill.guess.returns import NO_CANDIDATE, GuessReturns, load_returns


def load_run(run: Path) -> GuessReturns:
    """Every finished chunk of a run, in order, as one set of positions."""
    files = sorted(path for path in (run / "rollouts").glob("chunk-*.npz") if ".partial" not in path.name)
    if not files:
        raise SystemExit(f"no chunks under {run / 'rollouts'}: run python -m train.distill.guess.value --player "
                         "solver first")  # fmt: skip
    chunks = [load_returns(path) for path in files]
    if chunks[0].scalars.shape[2] != SOLVER_SCALARS:
        raise SystemExit(f"{run} holds solver-fast's ties, not the solver's shortlist: a --player solver run is needed")
    return GuessReturns(*(np.concatenate(arrays) for arrays in zip(*chunks, strict=True)))


def linear_features(positions: GuessReturns) -> np.ndarray:
    """(N, K, 10): the solver's scalars, the safety, the hidden share and their products with it."""
    hidden = (positions.grids.reshape(len(positions.grids), -1) == -1).mean(axis=1)
    share = np.broadcast_to(hidden[:, None, None], (*positions.safety.shape, 1))
    safety = positions.safety[..., None]
    scalars = positions.scalars
    return np.concatenate([scalars, safety, share, scalars[..., :1] * share, safety * share, scalars[..., 2:3] * share],
                          axis=2).astype(np.float32)  # fmt: skip


def network_features(positions: GuessReturns, mines: int) -> np.ndarray:
    """(N, K, FEATURES + SOLVER_SCALARS): the guess-value head's features and the solver's scalars."""
    out = np.zeros((*positions.candidates.shape, FEATURES + SOLVER_SCALARS), np.float32)
    for p, row in enumerate(positions.candidates):
        count = int((row != NO_CANDIDATE).sum())
        cells = row[:count].astype(np.int64)
        out[p, :count, :FEATURES] = candidate_features(positions.grids[p], cells, 1.0 - positions.safety[p, :count],
                                                       mines)  # fmt: skip
        out[p, :count, FEATURES:] = positions.scalars[p, :count]
    return out


def judged(positions: GuessReturns, scores: np.ndarray) -> dict[str, float]:
    """The greedy pick of ``scores`` against the solver's, on the candidates' returns (paired, per position)."""
    count = len(scores)
    valid = positions.candidates != NO_CANDIDATE
    picks = np.where(valid, scores, -np.inf).argmax(axis=1)
    rows = np.arange(count)
    gain = positions.returns[rows, picks] - positions.returns[rows, positions.fast.astype(np.int64)]
    return {"positions": count, "gain": float(gain.mean()), "gain_se": float(gain.std(ddof=1) / np.sqrt(count)),
            "picks_differ": float((picks != positions.fast).mean())}  # fmt: skip


def fit(model: th.nn.Module, features: np.ndarray, positions: GuessReturns, train: slice, start: float,
        learning_rate: float, epochs: int, seed: int) -> list[np.ndarray]:  # fmt: skip
    """Fit ``model`` (its last layer zeroed, so that it starts at the solver's pick) plus the solver's pick at weight
    ``start`` (learnt too) to the expected return on ``train``; the scores of every position after each epoch."""
    last = [layer for layer in model.modules() if isinstance(layer, th.nn.Linear)][-1]
    with th.no_grad():
        last.weight.zero_()
    x = th.as_tensor(features)
    returns = th.as_tensor(positions.returns)
    valid = th.as_tensor(positions.candidates != NO_CANDIDATE)
    pick = th.zeros(returns.shape)
    pick[th.arange(len(pick)), th.as_tensor(positions.fast.astype(np.int64))] = 1.0
    pick_weight = th.tensor(start, requires_grad=True)
    optimiser = th.optim.Adam([*model.parameters(), pick_weight], learning_rate, weight_decay=1e-4)

    def scores(rows: th.Tensor | slice) -> th.Tensor:
        return (model(x[rows]).squeeze(-1) + pick_weight * pick[rows]).masked_fill(~valid[rows], -1e9)

    rng = np.random.default_rng(seed)
    history = []
    for _ in range(epochs):
        order = rng.permutation(np.arange(train.start or 0, train.stop))
        for batch in np.array_split(order, max(1, len(order) // 512)):
            rows = th.as_tensor(batch)
            loss = -(th.softmax(scores(rows), dim=1) * returns[rows]).sum(dim=1).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        with th.no_grad():
            history.append(scores(slice(None)).numpy())
    return history


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="a --player solver run directory")
    parser.add_argument("--mines", type=int, default=99, help="the board's mine count (expert: 99)")
    parser.add_argument("--held-out", type=float, default=0.2, help="share of the positions held out (the last)")
    parser.add_argument("--start", type=float, default=3.0, help="the solver's pick's starting weight")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    th.set_num_threads(1)
    positions = load_run(args.run)
    cut = int(len(positions.grids) * (1.0 - args.held_out))
    train, held = slice(0, cut), slice(cut, len(positions.grids))

    def part(rows: slice) -> GuessReturns:
        return GuessReturns(*(array[rows] for array in positions))

    solver_return = positions.returns[np.arange(len(positions.fast)), positions.fast.astype(np.int64)].mean()
    report: dict[str, object] = {"run": str(args.run), "positions": len(positions.grids), "train": cut,
                                 "solver_return": float(solver_return)}  # fmt: skip
    linear = linear_features(positions)
    linear = (linear - linear[:cut].mean(axis=(0, 1))) / (linear[:cut].std(axis=(0, 1)) + 1e-6)
    th.manual_seed(args.seed)
    models = {
        "linear": (th.nn.Linear(linear.shape[2], 1, bias=False), linear, 1e-2),
        "mlp": (th.nn.Sequential(th.nn.Linear(FEATURES + SOLVER_SCALARS, 64), th.nn.ReLU(), th.nn.Linear(64, 1)),
                network_features(positions, args.mines), 1e-3),
    }  # fmt: skip
    for name, (model, features, rate) in models.items():
        epochs = []
        fitted = fit(model, features, positions, train, args.start, rate, args.epochs, args.seed)
        for epoch, scores in enumerate(fitted):
            row = {"epoch": epoch + 1, "train": judged(part(train), scores[train]),
                   "held_out": judged(part(held), scores[held])}  # fmt: skip
            epochs.append(row)
            print(f"{name} epoch {epoch + 1}: " + ", ".join(
                f"{part} gain {row[part]['gain']:+.4f} ± {row[part]['gain_se']:.4f} (differ "
                f"{row[part]['picks_differ']:.3f})" for part in ("train", "held_out")), flush=True)  # fmt: skip
        report[name] = epochs
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Does the iterated trunk think longer? A distilled network on the weight-tied iterated trunk
(:class:`train.distill.iterated_trunk.IteratedFeatures`) judged at several pass counts on the same held-out positions.

The positions come from the oracle's play on fresh seeds and are labelled with their exact mine probabilities
(:mod:`train.distill.data`); for each pass count the study reports the mean absolute error of the mine chance
over the hidden cells, how often the pick is one of the oracle's safest cells, and how often it misses: a
position with a certainly safe cell where the pick is not one. A trunk that extrapolates in depth (Bansal et al.,
2022) keeps or improves these beyond the passes it was trained with; ``--preset`` judges it on another board than
its own (a trunk trained on small boards, judged on expert: does it extrapolate in size too?).

Run: ``python studies/iterated_passes.py --model runs/expert/iterated.zip --passes 6,9,12,16,20 --positions 2048``
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import numpy as np
import torch as th

from agents.model_card import ModelCard
from agents.networks.player import load_model_agent
from agents.networks.trunks import IteratedTrunk
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from train.distill.data import PositionCollector
from train.distill.labels import Labeller


def held_out_positions(spec: BoardSpec, positions: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Oracle-played positions of fresh games with their exact labels."""
    with Labeller(workers=1) as labeller:
        collector = PositionCollector(spec, 128, seed, labeller, explore=0.02)
        grids, labels, _ = collector.collect(positions, (1.0, 0.0, 0.0), None)
    return grids, labels.astype(np.float32)


def judge(network: th.nn.Module, grids: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """Error, safest-pick rate and misses of ``network``'s safety logits on labelled positions."""
    with th.no_grad():
        logits = np.concatenate([network(th.as_tensor(grids[i:i + 256])).numpy()
                                 for i in range(0, len(grids), 256)])  # fmt: skip
    flat = labels.reshape(len(labels), -1)
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    chance = 1.0 / (1.0 + np.exp(np.clip(logits, -60, 60)))
    pick = np.where(hidden, logits, -np.inf).argmax(axis=1)
    picked = flat[np.arange(len(pick)), pick]
    least = np.where(hidden, flat, np.inf).min(axis=1)
    has_safe = least == 0
    return {"error": float(np.abs(chance - flat)[hidden].mean()),
            "safest": float((picked <= least + 1e-3).mean()),
            "misses": float((has_safe & (picked > 0)).sum() / max(int(has_safe.sum()), 1))}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a distilled model on the iterated trunk (.zip)")
    parser.add_argument("--passes", default="6,9,12,16,20", help="pass counts to judge, comma-separated")
    parser.add_argument("--positions", type=int, default=2048, help="held-out positions")
    parser.add_argument("--seed", type=int, default=77_000_001, help="seed of the held-out games")
    parser.add_argument("--preset", help="judge on this board preset (beginner, intermediate, expert), not the "
                        "model's own board")  # fmt: skip
    parser.add_argument("--json", help="write the table here")
    args = parser.parse_args(argv)
    agent = load_model_agent(args.model)
    extractor = agent.network.trunk
    if not isinstance(extractor, IteratedTrunk):
        print(f"{args.model}: its network is not the iterated trunk", file=sys.stderr)
        return 2
    th.set_num_threads(2)
    if args.preset:
        try:
            spec = BoardSpec.from_options(args.preset, first_click="opening")
        except ValueError as error:
            print(f"--preset: {error}", file=sys.stderr)
            return 2
        extractor.set_mine_count(spec.mines)
    else:
        rows, cols = ModelCard.of_model(args.model).board
        spec = BoardSpec(rows, cols, extractor.mines, "opening")
    grids, labels = held_out_positions(spec, args.positions, args.seed)
    table = []
    for passes in (int(part) for part in args.passes.split(",")):
        extractor.set_passes(passes)
        row = {"passes": passes, **judge(agent.network, grids, labels)}
        table.append(row)
        print(" ".join(f"{key}={value:.4g}" for key, value in row.items()), flush=True)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"model": args.model, "board": [spec.rows, spec.cols, spec.mines], "positions": args.positions,
                       "seed": args.seed, "table": table}, handle)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

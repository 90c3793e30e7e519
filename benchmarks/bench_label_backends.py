"""The cost of Ray for the distillation labels: the same positions labelled on the local process pool and on
a private Ray instance, with the same workers, in one run.

The positions are those distillation labels (games of the oracle and of random moves on the batched engine,
:class:`train.distill.data.PositionCollector`), labelled the way ``minesweeper train distill`` does: one
:meth:`train.distill.labels.Labeller.label` call per step of the boards (``--batch`` positions, the
script's ``--boards``), each cut into chunks (``--chunk``, the script's ``--label-chunk``). Both labellers
are opened (``start_s``: the labeller and its first batch; a Ray instance starts, the workers start and
load the compiled counting kernel), then label every position in turns, ``--repeats`` passes each, local
then Ray, so that a change of load on a shared machine touches both; idle, neither takes CPU from the
other. Reported: the labels per second of each pass, the ratio Ray / local of each pair of passes and their
median, and whether every pass gave the labels of this process, position for position.

Usage::

    nice -n 10 python benchmarks/bench_label_backends.py --preset beginner --positions 32768 --workers 2 \\
        --json docs/results/scaling/labels-beginner-32k.json
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from mine_env.engine.constants import PRESETS
from mine_env.engine.spec import BoardSpec
from train.distill.data import PositionCollector
from train.distill.labels import Labeller

BACKENDS = ("local", "ray")


def positions_of(spec: BoardSpec, count: int, batch: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` positions of the collector's policy mix (oracle and random moves) and their labels, labelled
    in this process (the reference every pass is compared with)."""
    with Labeller(workers=1) as labeller:
        collector = PositionCollector(spec, boards=batch, seed=seed, labeller=labeller, explore=0.1)
        grids, labels, _ = collector.collect(count, (0.7, 0.0, 0.3), None)
    return grids, labels


def timed_pass(labeller: Labeller, batches: list[np.ndarray], spec: BoardSpec) -> tuple[float, np.ndarray]:
    """Every batch labelled once: the seconds it took and the labels."""
    start = time.perf_counter()
    labels = np.concatenate([labeller.label(batch, spec.mines, spec.first_click) for batch in batches])
    return time.perf_counter() - start, labels


def open_labeller(backend: str, batches: list[np.ndarray], spec: BoardSpec, args: argparse.Namespace) -> tuple:
    """A labeller on ``backend``, warmed by its first batch, and the seconds that took."""
    start = time.perf_counter()
    labeller = Labeller(args.workers, args.chunk, backend=backend)
    labeller.label(batches[0], spec.mines, spec.first_click)
    return labeller, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", choices=sorted(PRESETS), default="beginner")
    parser.add_argument("--first-click", choices=("safe", "opening"), default="opening")
    parser.add_argument("--positions", type=int, default=32768)
    parser.add_argument("--batch", type=int, default=256, help="positions per label call (distill's --boards)")
    parser.add_argument("--chunk", type=int, help="positions per chunk (default: the labeller's, the batch split "
                        "evenly over the workers, at least 64 each)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5, help="passes of each backend, in turns")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    spec = BoardSpec(*PRESETS[args.preset], args.first_click)
    grids, reference = positions_of(spec, args.positions, args.batch, args.seed)
    chunk = args.chunk or "default"
    print(f"{len(grids)} {args.preset} positions, batches of {args.batch}, chunks of {chunk}, {args.workers} workers; "
          f"load average before {os.getloadavg()[0]:.2f}", flush=True)  # fmt: skip
    batches = [grids[i : i + args.batch] for i in range(0, len(grids), args.batch)]
    labellers, starts = {}, {}
    try:
        for backend in BACKENDS:
            labellers[backend], starts[backend] = open_labeller(backend, batches, spec, args)
        passes, identical = [], True
        for repeat in range(args.repeats):
            for backend in BACKENDS:
                seconds, labels = timed_pass(labellers[backend], batches, spec)
                identical &= bool(np.array_equal(labels, reference))
                passes.append({"repeat": repeat, "backend": backend, "seconds": seconds,
                               "labels_per_s": len(grids) / seconds})  # fmt: skip
                print(f"pass {repeat} {backend}: {len(grids) / seconds:,.0f} labels/s", flush=True)
    finally:
        for labeller in labellers.values():
            labeller.close()
    rates = {backend: [p["labels_per_s"] for p in passes if p["backend"] == backend] for backend in BACKENDS}
    ratios = [ray / local for local, ray in zip(rates["local"], rates["ray"], strict=True)]
    summary = {"start_s": starts, "ray_over_local_per_pass": ratios,
               "ray_over_local_median": float(np.median(ratios)), "all_identical": identical,
               "load_average_after": os.getloadavg()[0]}  # fmt: skip
    print(json.dumps(summary), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "passes": passes,
                                         **summary}, indent=2) + "\n")  # fmt: skip
    if not summary["all_identical"]:
        raise SystemExit("the backends gave different labels")


if __name__ == "__main__":
    main()

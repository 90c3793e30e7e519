"""The cost of distillation on this machine: oracle labels per second (one process and a pool of two) and
training samples per second of the distillation network, on each preset.

Positions come from games of the safest-cell policy with 10% random moves on the batched engine, the kind
the collector labels. Run: ``python benchmarks/bench_distill.py [--positions 8192] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch as th

from mine_env.engine.constants import PRESETS
from mine_env.engine.spec import BoardSpec
from train.distill.data import Dataset, PositionCollector
from train.distill.labels import Labeller, label_positions
from train.distill.rounds.config import DistillConfig
from train.distill.rounds.run import new_distilled
from train.distill.rounds.trainer import Trainer


def positions_of(spec: BoardSpec, count: int) -> tuple[np.ndarray, np.ndarray]:
    with Labeller(workers=1) as labeller:
        collector = PositionCollector(spec, boards=256, seed=0, labeller=labeller, explore=0.1)
        grids, labels, _ = collector.collect(count, (1.0, 0.0, 0.0), None)
    return grids, labels


def labels_per_second(grids: np.ndarray, spec: BoardSpec, workers: int) -> float:
    with Labeller(workers=workers, chunk=256) as labeller:
        labeller.label(grids[:512], spec.mines, spec.first_click)  # warm the workers
        start = time.perf_counter()
        labeller.label(grids, spec.mines, spec.first_click)
        return len(grids) / (time.perf_counter() - start)


def samples_per_second(dataset: Dataset, batches: int, crop: tuple[int, int]) -> float:
    config = DistillConfig(rows=dataset.spec.rows, cols=dataset.spec.cols, mines=dataset.spec.mines,
                           crop_rows=crop[0], crop_cols=crop[1])  # fmt: skip
    trainer = Trainer(config, new_distilled(config, dataset.spec), batches)
    trainer.train(dataset, config.batch_size * 2, progress=False)  # warm-up
    return trainer.train(dataset, config.batch_size * batches, progress=False)["train_samples_per_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8192)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    th.set_num_threads(1)
    results = {}
    for preset, (rows, cols, mines) in PRESETS.items():
        spec = BoardSpec(rows, cols, mines, "opening")
        grids, labels = positions_of(spec, args.positions)
        label_positions(grids[:8], mines, "opening")
        row = {f"labels_per_s_{w}_workers": labels_per_second(grids, spec, w) for w in (1, 2)}
        dataset = Dataset(spec, grids, labels.astype(np.float16))
        row["train_samples_per_s"] = samples_per_second(dataset, args.batches, (0, 0))
        if preset == "expert":
            row["train_samples_per_s_crop_16x16"] = samples_per_second(dataset, args.batches, (16, 16))
        results[preset] = row
        print(preset, ", ".join(f"{k} {v:,.0f}" for k, v in row.items()), flush=True)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()

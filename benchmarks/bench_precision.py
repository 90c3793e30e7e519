"""Whether bf16 autocast or a larger batch pays for the trainers' networks on this CPU.

The RL trainers spend most of their time in their network's passes (benchmarks/bench_trainers.py: 70-100% of the
bound those passes set), so what speeds the passes speeds training. For each network the trainers use (the 3x32
trunk of the beginner runs, the residual 96-channel trunk sized for intermediate, the 128-channel one of the
distilled expert network), one training pass (forward, backward, an Adam step) on real positions is timed in each
variant, interleaved and repeated (the best of the repeats), and reported as samples per second and as a ratio
to the float32 pass at the same batch:

- ``float32``: the trainers' default (their trunks already turn their input channels-last, which oneDNN's
  small convolutions run about twice as fast);
- ``bf16``: ``torch.autocast("cpu", torch.bfloat16)`` around the passes. Worth it only on CPUs with bf16
  instructions (AMX: :func:`train.precision.native_bf16`; AVX512-BF16 is what this bench measures to decide);
  elsewhere torch emulates it. The table says which this CPU has.
- ``compiled`` (with ``--compile``): float32 through ``torch.compile`` of the trunk (inductor; its compilation,
  tens of seconds, happens in the round that warms up and is not timed).

Samples per second at several batches say whether a larger batch pays.

Run: ``python benchmarks/bench_precision.py --batches 256 1024 --repeats 5 --json bench_precision.json``
(``--boards expert``: only the expert network).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from torch import nn

from mine_env.engine.batch import BatchEngine
from mine_env.engine.constants import PRESETS
from mine_env.engine.spec import BoardSpec
from train.precision import cpu_bf16_flags
from train.sb3 import networks

NETWORKS: dict[str, tuple[str, Callable[[gym.spaces.Box], nn.Module]]] = {
    "3x32 (beginner runs)": (
        "beginner", lambda space: networks.CellFeatures(space, channels=32, layers=3)),
    "residual 96 ch x 9, pooled (intermediate)": (
        "intermediate", lambda space: networks.BoardFeatures(space, channels=96, dilations=(1, 1, 1, 2, 2, 4, 4, 1, 1),
                                                             mines=40, pooled=(4, 7))),
    "residual 128 ch x 12 (the anchor recipe, train.sb3.recipes)": (
        "intermediate", lambda space: networks.BoardFeatures(space, channels=128, dilations=(1,) * 12, mines=40)),
    "residual 128 ch x 9, pooled (the distilled expert network)": (
        "expert", lambda space: networks.BoardFeatures(space, channels=128, dilations=(1, 1, 1, 2, 2, 4, 4, 1, 1),
                                                       mines=99, pooled=(4, 7))),
}  # fmt: skip
VARIANTS = ("float32", "bf16", "compiled")


def grids_in_play(spec: BoardSpec, count: int, seed: int = 0) -> th.Tensor:
    """``count`` grids of games a few uniform moves in, int8 (count, rows, cols)."""
    engine = BatchEngine(spec, count)
    engine.reset(seed)
    rng = np.random.default_rng(seed)
    for _ in range(6):
        masks = engine.action_masks()
        engine.step(np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1))
    return th.as_tensor(engine.grids())


def training_pass(network: nn.Module, head: nn.Module, optimizer: th.optim.Optimizer, grids: th.Tensor) -> None:
    """One forward, backward and Adam step of the trunk and a 1x1 head on ``grids``."""
    optimizer.zero_grad(set_to_none=True)
    loss = head(network(grids)).float().square().mean()
    loss.backward()
    optimizer.step()


def time_variants(name: str, batch: int, repeats: int, compiled: bool = False) -> list[dict[str, Any]]:
    """Samples per second of each variant's training pass at ``batch``, the best of ``repeats`` interleaved
    (``compiled``: also through ``torch.compile``)."""
    preset, build = NETWORKS[name]
    spec = BoardSpec(*PRESETS[preset], "opening")
    space = gym.spaces.Box(-3, 8, (spec.rows, spec.cols), np.int8)
    th.manual_seed(0)
    network = build(space)
    head = nn.Conv2d(network.features_dim, 1, 1)
    optimizer = th.optim.Adam([*network.parameters(), *head.parameters()], lr=1e-4)
    grids = grids_in_play(spec, batch)
    variants = VARIANTS if compiled else VARIANTS[:2]
    passes = {variant: network for variant in variants}
    if compiled:
        passes["compiled"] = th.compile(network)  # the same weights, through inductor's kernels
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(repeats + 1):  # the first round warms every variant up (and compiles) and is not kept
        for variant in variants:
            with th.autocast("cpu", dtype=th.bfloat16, enabled=variant == "bf16"):
                began = time.perf_counter()
                training_pass(passes[variant], head, optimizer, grids)
            best[variant] = min(best[variant], time.perf_counter() - began)
    return [{"network": name, "batch": batch, "variant": variant, "samples_per_s": batch / best[variant],
             "ratio": best["float32"] / best[variant]} for variant in variants]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[256, 1024], help="Batch sizes to time.")
    parser.add_argument("--repeats", type=int, default=5, help="Timed rounds of each variant (the best is kept).")
    parser.add_argument("--torch-threads", type=int, default=1, help="torch CPU threads.")
    boards = sorted({preset for preset, _ in NETWORKS.values()})
    parser.add_argument("--boards", nargs="+", default=boards, choices=boards, help="Time these boards' networks.")
    parser.add_argument("--json", type=Path, default=None, help="Also write the rows here.")
    parser.add_argument("--compile", action="store_true", help="Also time the trunk through torch.compile.")
    parser.add_argument("--networks", nargs="+", default=None, metavar="WORD",
                        help="Only the networks whose name holds one of these words (e.g. anchor).")
    args = parser.parse_args(argv)
    if args.repeats < 1 or any(batch < 1 for batch in args.batches):
        parser.error("--repeats and every --batches value must be at least 1")
    th.set_num_threads(args.torch_threads)
    names = [name for name, (preset, _) in NETWORKS.items() if preset in args.boards
             and (args.networks is None or any(word in name for word in args.networks))]  # fmt: skip
    if not names:
        parser.error(f"no network matches --networks {' '.join(args.networks or [])}: {', '.join(NETWORKS)}")
    rows = [row for name in names for batch in args.batches
            for row in time_variants(name, batch, args.repeats, args.compile)]  # fmt: skip
    print(
        f"CPU: {platform.processor() or platform.machine()}; "
        f"bf16 instructions: {', '.join(cpu_bf16_flags()) or 'none'}; "
        f"torch {th.__version__}, {args.torch_threads} thread(s)\n"
    )
    print("| network | batch | variant | samples/s | x float32 |")
    print("| --- | ---: | --- | ---: | ---: |")
    for row in rows:
        print(
            f"| {row['network']} | {row['batch']} | {row['variant']} | {row['samples_per_s']:,.0f} | "
            f"{row['ratio']:.2f} |"
        )
    if args.json:
        args.json.write_text(json.dumps({"bf16_instructions": list(cpu_bf16_flags()), "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

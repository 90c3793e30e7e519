"""Which training env is faster: the batched engine adapter, or SB3's subprocess / in-process vector envs?

Each env plays uniform valid actions (masks fetched every step through ``env_method("action_masks")``, as
MaskablePPO does) for a fixed wall time; the figure is environment steps per second. It also times the
grid-to-planes conversion a planes observation would cost per step, which the networks here avoid by
one-hotting the int8 grid inside.

Run: ``python benchmarks/bench_vec_env.py --preset beginner --num-envs 16 --seconds 5``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv, to_planes
from train.sb3.dqn import random_valid_actions
from train.sb3.vec_env import BatchVecEnv


def steps_per_second(env: VecEnv, seconds: float, seed: int = 0) -> float:
    """Environment steps per second of uniform valid play on ``env`` for about ``seconds``."""
    rng = np.random.default_rng(seed)
    env.seed(seed)
    env.reset()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.step(random_valid_actions(get_action_masks(env), rng))
        steps += env.num_envs
    return steps / (time.perf_counter() - start)


def planes_seconds_per_step(spec: BoardSpec, num_envs: int, repeats: int = 50) -> float:
    """Seconds to turn one step's grids into float one-hot planes."""
    grids = np.full((num_envs, spec.rows, spec.cols), -1, dtype=np.int8)
    start = time.perf_counter()
    for _ in range(repeats):
        to_planes(grids)
    return (time.perf_counter() - start) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="beginner")
    parser.add_argument("--first-click", default="opening")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    spec = BoardSpec.from_options(args.preset, None, None, None, args.first_click)
    factory: Callable[[], MinesweeperEnv] = lambda: MinesweeperEnv(  # noqa: E731
        rows=spec.rows, cols=spec.cols, mines=spec.mines, first_click=spec.first_click
    )
    envs: dict[str, Callable[[], VecEnv]] = {
        "BatchVecEnv (native batched engine)": lambda: BatchVecEnv(spec, args.num_envs),
        "DummyVecEnv (one process)": lambda: DummyVecEnv([factory] * args.num_envs),
        "SubprocVecEnv (one process per env)": lambda: SubprocVecEnv([factory] * args.num_envs),
    }
    print(f"{spec.rows}x{spec.cols}/{spec.mines} {spec.first_click}, {args.num_envs} envs, {args.seconds:.0f} s each")
    for name, make in envs.items():
        env = make()
        print(f"{name:40s} {steps_per_second(env, args.seconds):>12,.0f} steps/s", flush=True)
        env.close()
    planes = planes_seconds_per_step(spec, args.num_envs)
    print(f"grid -> planes conversion per step: {planes * 1e6:.0f} us ({args.num_envs} boards)")


if __name__ == "__main__":
    main()

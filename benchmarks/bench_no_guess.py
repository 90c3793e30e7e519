"""No-guess boards: how fast they are made, against ms-toollib's ``laymine_solvable``, and what they cost an env.

Two tables, every figure measured in the same run (the engines take turns; each figure is the best of
``--repeats`` runs, by the process's CPU clock, which leaves out the time other jobs held the cores):

1. **boards per second** on each preset, the first click where the solver clicks ((2, 2); (3, 3) on
   expert): ours (:func:`mine_env.analysis.no_guess.no_guess_layouts`, one compiled call for the batch, as
   the vector env makes them; and one call per board, as the single env does) against ms-toollib's
   ``laymine_solvable(rows, cols, mines, row, col, max_times)`` (Rust; one call per board; it retries
   random layouts until its solver clears one, so ``max_times`` is set high enough that it never gives up),
   and the ratio of our time per board to ms-toollib's (at most 1: ours is no slower);
2. **env steps per second**, ``boards="no_guess"`` against ``"random"``: the single env (``gym.make``) and
   the native vector env (``gym.make_vec``, ``--num-envs`` boards), under two policies: ``random`` valid
   actions, which end most games within a few moves, so that a board is made every few steps (the worst
   case for no-guess boards, and how an untrained agent plays); and ``safe``, a random hidden cell without a
   mine (read from the engine's layout: a cheat, standing for an agent that wins every game), so games last
   until the board is cleared (how a good agent plays).

ms-toollib is optional (``pip install ms-toollib``, the ``bench`` extra); without it the first table has our
columns only.

Usage::

    nice -n 10 python benchmarks/bench_no_guess.py [--boards 2000 500 200] [--repeats 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import gymnasium as gym
import numpy as np

import mine_env  # noqa: F401  (registers the env ids)
from agents.solver import first_click_cell
from mine_env.analysis.no_guess import no_guess_layouts
from mine_env.engine.constants import PRESETS
from mine_env.engine.rng import KEY_LIMIT

try:
    import ms_toollib
except ImportError:  # the bench extra is not installed
    ms_toollib = None

PRESET_NAMES = ("beginner", "intermediate", "expert")
MS_TOOLLIB_TRIES = 1_000_000
"""``max_times`` for ``laymine_solvable``: random layouts it may try before it gives up."""
clock = time.process_time


def our_batch(rows: int, cols: int, mines: int, keys: np.ndarray, first_cell: int) -> float:
    """CPU seconds per board, all boards in one call."""
    start = clock()
    no_guess_layouts(rows, cols, mines, keys, np.full(keys.size, first_cell))
    return (clock() - start) / keys.size


def our_single(rows: int, cols: int, mines: int, keys: np.ndarray, first_cell: int) -> float:
    """CPU seconds per board, one call per board."""
    cells = np.array([first_cell])
    start = clock()
    for key in keys:
        no_guess_layouts(rows, cols, mines, key[None], cells)
    return (clock() - start) / keys.size


def theirs(rows: int, cols: int, mines: int, boards: int, row: int, col: int) -> float:
    """CPU seconds per board of ms-toollib's ``laymine_solvable``; fails loudly if it gives up on one."""
    start = clock()
    for _ in range(boards):
        _, solvable = ms_toollib.laymine_solvable(rows, cols, mines, row, col, MS_TOOLLIB_TRIES)
        if not solvable:
            raise RuntimeError("laymine_solvable gave up: raise MS_TOOLLIB_TRIES")
    return (clock() - start) / boards


def generation_table(boards: dict[str, int], repeats: int, seed: int) -> list[dict]:
    """Per preset: ms per board of each maker (best of the repeats) and the ratio ours / ms-toollib."""
    rows_out = []
    rng = np.random.default_rng(seed)
    for preset in PRESET_NAMES:
        rows, cols, mines = PRESETS[preset]
        r, c = first_click_cell(rows, cols, "opening")
        n = boards[preset]
        best: dict[str, float] = {}
        our_batch(rows, cols, mines, rng.integers(0, KEY_LIMIT, 2), r * cols + c)  # compiled before timing
        for _ in range(repeats):
            keys = rng.integers(0, KEY_LIMIT, n)
            timings = {
                "ours_batch_ms": our_batch(rows, cols, mines, keys, r * cols + c),
                "ours_single_ms": our_single(rows, cols, mines, keys[: max(n // 4, 1)], r * cols + c),
            }
            if ms_toollib is not None:
                timings["ms_toollib_ms"] = theirs(rows, cols, mines, n, r, c)
            for name, seconds in timings.items():
                best[name] = min(best.get(name, float("inf")), 1000 * seconds)
        row = {"preset": preset, "boards": n, **{name: round(ms, 4) for name, ms in best.items()}}
        if "ms_toollib_ms" in best:
            row["ratio_batch"] = round(best["ours_batch_ms"] / best["ms_toollib_ms"], 3)
            row["ratio_single"] = round(best["ours_single_ms"] / best["ms_toollib_ms"], 3)
        rows_out.append(row)
        print(json.dumps(row), flush=True)
    return rows_out


def single_env_rate(preset: str, boards: str, policy: str, steps: int, seed: int) -> float:
    """Steps per CPU second of one env under ``policy`` (resets included in the timed loop)."""
    env = gym.make(f"Minesweeper-{preset.capitalize()}-v0", boards=boards)
    board = env.unwrapped.board
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    start = clock()
    for _ in range(steps):
        mask = info["action_mask"] if policy == "random" else info["action_mask"] & ~board._mines.astype(bool)
        action = int((rng.random(mask.size) * mask).argmax())
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _, info = env.reset()
    return steps / (clock() - start)


def vector_env_rate(preset: str, boards: str, policy: str, steps: int, num_envs: int, seed: int) -> float:
    """Board-steps per CPU second of the native vector env under ``policy``."""
    env = gym.make_vec(f"Minesweeper-{preset.capitalize()}-v0", num_envs=num_envs,
                       vectorization_mode="vector_entry_point", boards=boards)  # fmt: skip
    mines = env.unwrapped.engine._boards.mines
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    start = clock()
    for _ in range(steps):
        mask = env.unwrapped.action_masks()
        if policy == "safe":
            mask &= mines == 0
        env.step((rng.random(mask.shape) * mask).argmax(axis=1))
    return steps * num_envs / (clock() - start)


def env_table(steps: int, vector_steps: int, num_envs: int, repeats: int, seed: int) -> list[dict]:
    """Per preset and env: steps/s with ordinary and no-guess boards (best of the repeats), and their ratio."""
    rows_out = []
    for preset in PRESET_NAMES:
        for kind in ("single", "vector"):
            for policy in ("random", "safe"):
                best = {"random": 0.0, "no_guess": 0.0}
                for repeat in range(repeats):
                    for boards in best:
                        rate = (single_env_rate(preset, boards, policy, steps, seed + repeat) if kind == "single"
                                else vector_env_rate(preset, boards, policy, vector_steps, num_envs, seed + repeat))
                        best[boards] = max(best[boards], rate)
                row = {"preset": preset, "env": kind, "policy": policy, "random_steps_s": round(best["random"]),
                       "no_guess_steps_s": round(best["no_guess"]),
                       "ratio": round(best["no_guess"] / best["random"], 3)}  # fmt: skip
                rows_out.append(row)
                print(json.dumps(row), flush=True)
    return rows_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, nargs=3, default=[2000, 500, 200], metavar=("BEG", "INT", "EXP"))
    parser.add_argument("--steps", type=int, default=5000, help="single-env steps per run")
    parser.add_argument("--vector-steps", type=int, default=400, help="vector-env steps per run")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--skip-env", action="store_true", help="the generation table only")
    parser.add_argument("--json", help="write both tables here")
    args = parser.parse_args()
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()}, "
          f"ms-toollib {'present' if ms_toollib else 'absent'}")  # fmt: skip
    result = {"generation": generation_table(dict(zip(PRESET_NAMES, args.boards, strict=True)), args.repeats,
                                             args.seed)}  # fmt: skip
    if not args.skip_env:
        result["env"] = env_table(args.steps, args.vector_steps, args.num_envs, args.repeats, args.seed)
    print(f"# load after {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump(result, file, indent=1)


if __name__ == "__main__":
    main()

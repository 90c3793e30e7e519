"""Env throughput: steps per second spent inside ``step()``, random valid actions, the ``opening`` rule.

The engines are timed on the classic boards in one run, so that their ratios are comparable:

- ``reference``: the plain pure-Python step loop, :class:`mine_env.engine.reference.ReferenceBoard`;
- ``single``: one env through ``gym.make`` with its default wrappers (observation, mask and info included);
- ``vector``: the native vector env of ``gym.make_vec(..., vectorization_mode="vector_entry_point")``,
  1024 boards by default, counting one step per board;
- ``gym-minesweeper`` 0.0.1, a peer, when it can be imported (it needs the old ``gym``; install both
  into a side folder and put it on PYTHONPATH, see docs/BENCHMARKS.md). Its rules differ: unsafe first
  click, no seeding, ``(row, col)`` actions.

Only the ``step()`` call sits inside the timed region: valid actions are drawn from the mask before it,
and resets between games of the single engines happen outside it (the vector env resets finished boards
inside its step, so that cost is counted there). Each figure is the best of a few runs, the engines taking
turns, timed twice: by the wall clock, and by the process's CPU clock, which leaves out the time other
jobs on a shared machine held the cores (but each of its reads costs ~1.7 us on a VM, which lowers the
CPU-clock figures of the single engines a little). The load average is printed before and after.

Usage:
    python benchmarks/bench_env.py [--steps 20000] [--vector-steps 300] [--num-envs 1024] [--repeats 3]
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

import mine_env
from mine_env.engine.constants import HIDDEN, PRESETS
from mine_env.engine.reference import ReferenceBoard
from mine_env.engine.rng import KEY_LIMIT
from mine_env.engine.spec import BoardSpec

BOARDS = ("beginner", "intermediate", "expert")
FIRST_CLICK = "opening"
VECTOR_TARGETS = {"beginner": 1_000_000, "intermediate": 400_000, "expert": 250_000}
"""Steps/s the vector env should reach with 1024 boards on the 2-core development machine."""
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}

Clock = Callable[[], float]


@dataclass
class Timing:
    """Steps played and the seconds spent inside ``step()``."""

    steps: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.steps / self.seconds


def random_valid(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly chosen valid action per row of a (..., n_actions) mask."""
    return (rng.random(mask.shape) * mask).argmax(axis=-1)


def time_reference(preset: str, steps: int, seed: int, clock: Clock) -> Timing:
    """The plain pure-Python loop: :meth:`ReferenceBoard.step`, a new game after each end (untimed)."""
    rng = np.random.default_rng(seed)
    board = ReferenceBoard(BoardSpec(*PRESETS[preset], FIRST_CLICK), int(rng.integers(KEY_LIMIT)))
    spent = 0.0
    for _ in range(steps):
        action = int(random_valid(rng, np.array(board.obs) == HIDDEN))
        start = clock()
        board.step(action, False)
        spent += clock() - start
        if board.is_over:
            board.new_game(int(rng.integers(KEY_LIMIT)))
    return Timing(steps, spent)


def time_single(preset: str, steps: int, seed: int, clock: Clock) -> Timing:
    """One ``gym.make`` env with its default wrappers; resets between games are not timed."""
    rng = np.random.default_rng(seed)
    env = gym.make("Minesweeper-v0", preset=preset, first_click=FIRST_CLICK)
    _, info = env.reset(seed=seed)
    spent = 0.0
    for _ in range(steps):
        action = int(random_valid(rng, info["action_mask"]))
        start = clock()
        _, _, terminated, truncated, info = env.step(action)
        spent += clock() - start
        if terminated or truncated:
            _, info = env.reset()
    env.close()
    return Timing(steps, spent)


def time_vector(preset: str, steps: int, seed: int, clock: Clock, num_envs: int) -> Timing:
    """The native vector env; ``steps`` batched steps, each counting ``num_envs`` board steps."""
    rng = np.random.default_rng(seed)
    envs = gym.make_vec(
        "Minesweeper-v0", num_envs=num_envs, vectorization_mode="vector_entry_point",
        preset=preset, first_click=FIRST_CLICK,
    )  # fmt: skip
    envs.reset(seed=seed)
    spent = 0.0
    for _ in range(steps):
        actions = random_valid(rng, envs.unwrapped.action_masks())
        start = clock()
        envs.step(actions)
        spent += clock() - start
    envs.close()
    return Timing(steps * num_envs, spent)


def time_gym_minesweeper(preset: str, steps: int, seed: int, clock: Clock) -> Timing:
    """The peer ``gym-minesweeper`` 0.0.1 (old gym API, ``(row, col)`` actions, its own unseeded mines).

    Its step checks the column against the height too, so a wide board is played transposed (the expert
    board as 30 rows x 16 columns: the same game).
    """
    from gym_minesweeper.envs.minesweeper import MinesweeperEnv as PeerEnv

    rng = np.random.default_rng(seed)
    rows, cols, mines = PRESETS[preset]
    rows, cols = max(rows, cols), min(rows, cols)
    env = PeerEnv(height=rows, width=cols, num_mines=mines)
    state = env.reset()
    spent = 0.0
    for _ in range(steps):
        cell = int(random_valid(rng, state.ravel() == -1))
        action = np.array(divmod(cell, cols))
        start = clock()
        state, _, done, _ = env.step(action)
        spent += clock() - start
        if done:
            state = env.reset()
    return Timing(steps, spent)


def peer_available() -> bool:
    try:
        import gym_minesweeper  # noqa: F401
    except ImportError:
        return False
    return True


def best_rates(repeats: int, measures: dict[str, Callable[..., Timing]], clock: Clock) -> dict[str, Timing]:
    """The fastest of a few runs of each engine, the engines taking turns so that they share the
    machine's quiet and busy moments alike (other jobs on a shared machine come and go)."""
    best: dict[str, Timing] = {}
    for _ in range(repeats):
        for name, measure in measures.items():
            timing = measure(clock=clock)
            if name not in best or timing.rate > best[name].rate:
                best[name] = timing
    return best


def machine_line() -> str:
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return f"{platform.machine()}, {os.cpu_count()} CPUs, load average {load}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="steps of each single engine per board")
    parser.add_argument("--vector-steps", type=int, default=300, help="batched steps of the vector env")
    parser.add_argument("--num-envs", type=int, default=1024, help="boards in the vector env")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the fastest is kept")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    print(f"mine_env from {os.path.dirname(mine_env.__file__)}; {machine_line()} (before)")
    time_single("beginner", 200, 1, time.perf_counter)  # compile or load every kernel before timing
    time_vector("beginner", 20, 1, time.perf_counter, num_envs=8)
    reference_name = "reference (pure Python)"
    engines: dict[str, Callable[..., Timing]] = {reference_name: time_reference}
    if peer_available():
        engines["gym-minesweeper 0.0.1 (peer, unsafe first click)"] = time_gym_minesweeper
    engines["single env (gym.make)"] = time_single
    vector_name = f"vector env ({args.num_envs} boards)"
    engines[vector_name] = functools.partial(time_vector, num_envs=args.num_envs)
    steps = {name: args.vector_steps if name == vector_name else args.steps for name in engines}

    print("| board | engine | steps/s (wall) | steps/s (CPU) | x reference (wall) | x reference (CPU) | target |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for preset in BOARDS:
        rows, cols, mines = PRESETS[preset]
        board = f"{preset} {cols}x{rows}/{mines}"
        runs = {name: functools.partial(measure, preset, steps[name], args.seed) for name, measure in engines.items()}
        timings = {clock: best_rates(args.repeats, runs, CLOCKS[clock]) for clock in CLOCKS}
        for name in engines:
            wall, cpu = timings["wall"][name], timings["cpu"][name]
            reference_wall, reference_cpu = timings["wall"][reference_name], timings["cpu"][reference_name]
            target = f"{VECTOR_TARGETS[preset]:,}" if name == vector_name else "-"
            print(
                f"| {board} | {name} | {wall.rate:,.0f} | {cpu.rate:,.0f} | {wall.rate / reference_wall.rate:.1f} "
                f"| {cpu.rate / reference_cpu.rate:.1f} | {target} |",
                flush=True,
            )
    print(f"{machine_line()} (after)")


if __name__ == "__main__":
    main()

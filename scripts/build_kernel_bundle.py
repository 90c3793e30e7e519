"""Compile every kernel a user's first hour calls, for a generic x86-64 CPU, into a bundle a release carries.

    python scripts/build_kernel_bundle.py build/kernel-bundle      # `make kernel-bundle`; `make wheel` runs it

setup.py puts the folder into the wheel as ``mine_env/kernel_bundle``; an install copies its entries into
numba's cache on the first import (:mod:`mine_env.engine.kernel_bundle`), so the first game loads its kernels
instead of compiling them. The compile runs in a child process with an empty ``NUMBA_CACHE_DIR`` and numba's
generic CPU, and plays what a new user plays: the solver's two paths and the battle AIs (``agents.warm_up``),
the env under every first-click rule with and without flags, the vector env, the exact probabilities, and one
evaluation game of the demo's agents, the distilled network and ``guess-value`` on each board (the shipped
networks' observation code included; ``guess-value``'s compiled games too).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def shipped_packages() -> list[str]:
    """The top-level packages a release ships (pyproject's ``packages.find``): the only folders whose kernels the
    bundle may hold, and the only ones walked (not a virtual environment or a build folder inside the checkout)."""
    table = r"^\[tool\.setuptools\.packages\.find\]\ninclude = \[(.*)\]$"
    found = re.search(table, (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    if found is None:  # Python 3.10 has no tomllib; the table's form is this project's own
        raise SystemExit("pyproject.toml has no one-line include = [...] under [tool.setuptools.packages.find]")
    return re.findall(r'"(\w+)\*"', found.group(1))


def exercise() -> None:
    """Call every kernel of a first hour (run in the child, under the generic CPU and the empty cache)."""
    import dataclasses

    import gymnasium as gym
    import numpy as np

    import mine_env  # noqa: F401  (registers Minesweeper-v0)
    from agents.warm_up import PATHS, warm_up
    from battle.players.warm_up import warm_up_battle
    from eval.demo import DEMO_AGENTS
    from eval.runner import evaluate
    from eval.suites import get_suite
    from mine_env.analysis.probability import mine_probabilities

    warm_up(PATHS)
    warm_up_battle()
    rng = np.random.default_rng(0)
    for rule in ("opening", "safe", "none"):
        for flags in (False, True):
            env = gym.make("Minesweeper-v0", preset="beginner", first_click=rule, flags=flags)
            for seed in range(3):
                _, info = env.reset(seed=seed)
                done = False
                while not done:
                    action = int(rng.choice(np.flatnonzero(info["action_mask"])))
                    _, _, terminated, truncated, info = env.step(action)
                    done = terminated or truncated
    for board in ("beginner", "intermediate", "expert"):
        envs = gym.make_vec("Minesweeper-v0", num_envs=8, vectorization_mode="vector_entry_point", preset=board)
        envs.reset(seed=0)
        for _ in range(20):
            envs.step(envs.unwrapped.action_masks().argmax(axis=1))
        env = gym.make("Minesweeper-v0", preset=board)
        obs, info = env.reset(seed=0)
        mine_probabilities(obs, info["mines"])
        suite = dataclasses.replace(get_suite(f"{board}-opening-1k"), games=2)
        agents = [agent for agent in DEMO_AGENTS if "-" not in agent or agent.endswith(board)]
        players = [*agents, f"distill-{board}", "guess-value"]
        evaluate([*dict.fromkeys(players)], suite, workers=1, progress=False)
        evaluate(["guess-value"], suite, workers=1, oracle=False, progress=False)  # its whole games, compiled


def build(out: Path) -> None:
    """Compile in a child process and collect its cache into ``out``."""
    import shutil

    from mine_env.engine.kernel_bundle import ENV_VAR, GENERIC_CPU, collect

    shutil.rmtree(out, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="kernel-bundle-") as cache:
        environment = {**os.environ, **GENERIC_CPU, "NUMBA_CACHE_DIR": cache, ENV_VAR: "0",
                       "MINESWEEPER_RL_COMPILE_AHEAD": "0", "PYTHONPATH": str(ROOT)}  # fmt: skip
        start = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--exercise"], env=environment, check=True, cwd=ROOT)
        manifest = collect(Path(cache), ROOT, shipped_packages(), out)
    print(f"{manifest['kernels']} kernels compiled for a generic CPU in {time.perf_counter() - start:.0f} s "
          f"into {out} (bundle {manifest['id']})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, help="the bundle folder to write (replaced)")
    parser.add_argument("--exercise", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.exercise:
        exercise()
    elif args.out is None:
        parser.error("say where the bundle goes, e.g. build/kernel-bundle")
    else:
        build(args.out)


if __name__ == "__main__":
    main()

"""Cold and warm start: how long a new user waits for numba the first time, and every time after.

Each scenario runs in a fresh Python process twice: first with an empty numba cache (``NUMBA_CACHE_DIR``
pointed at a new temporary directory: what a fresh install sees, since numba would otherwise cache next to
the sources), then again with the cache that first run left (what every later run sees). A scenario's time
is the whole process, interpreter start and imports included, as a user would wait for it; the CPU column
is the cold run's user + system time, steadier than the wall clock on a shared machine. ``notices`` counts
the compile notice's lines on stderr (:mod:`mine_env.engine.compilation`), cold / warm.

Usage::

    python benchmarks/cold_start.py                  # every scenario, this checkout
    python benchmarks/cold_start.py --tree ../main   # the same scenarios on another checkout
    python benchmarks/cold_start.py --python VENV/bin/python   # an installed wheel, run outside any checkout
    python benchmarks/cold_start.py --only solver-compiled probabilities --repeats 2

Prints a Markdown table, with the machine and the date (docs/COLD_START.md).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
NOTICE_PREFIX = "minesweeper-rl: compiling"

POSITION = """\
mines: 10
first_click: opening
. . 1 0 1 . . . .
2 2 1 0 1 . . . .
0 0 0 0 1 . . . .
1 2 3 2 2 . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""
"""A beginner position after the first click, for ``minesweeper solve``."""

_ENV_STEP = "import gymnasium as gym, mine_env; env = gym.make('Minesweeper-v0'); env.reset(seed=0); env.step(40)"
_VECTOR_STEP = (
    "import gymnasium as gym, numpy as np, mine_env; "
    "env = gym.make_vec('Minesweeper-v0', num_envs=16, vectorization_mode='vector_entry_point'); "
    "env.reset(seed=0); env.step(np.full(16, 40))"
)
_PROBABILITIES = (
    "import numpy as np; from agents.probability import mine_probabilities; "
    "grid = np.full((9, 9), -1, np.int8); grid[0, 0] = 1; mine_probabilities(grid, 10)"
)
_COMPILED_GAME = (
    "from agents.solver import SolverAgent; SolverAgent(seed=0).play_compiled(9, 9, 10, 'opening', [12345], [0])"
)
_BATTLE_MOVE = (
    "from mine_env.battle import env; from battle.players import make_battle_agent; "
    "game = env(); game.reset(seed=0); obs, _, _, _, info = game.last(); "
    "game.step(make_battle_agent('contest', 0).act(obs, info))"
)
_ENV_GAME = """
import gymnasium as gym
import mine_env
from agents.solver import SolverAgent
env, agent = gym.make("Minesweeper-v0", preset="{preset}"), SolverAgent(seed=0)
obs, info = env.reset(seed={seed})
done = False
while not done:
    obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
    done = terminated or truncated
"""


class Scenario(NamedTuple):
    """One thing a new user does first: a description and the arguments of ``python``."""

    description: str
    args: tuple[str, ...]


SCENARIOS: dict[str, Scenario] = {
    "env": Scenario("`import mine_env`, `gym.make`, reset and one step", ("-c", _ENV_STEP)),
    "vector-env": Scenario("the vector env (16 boards): make, reset and one step", ("-c", _VECTOR_STEP)),
    "probabilities": Scenario("`mine_probabilities` on one position", ("-c", _PROBABILITIES)),
    "solver-compiled": Scenario(
        "the first solver game, compiled (`SolverAgent.play_compiled`, as `eval --no-oracle` plays)",
        ("-c", _COMPILED_GAME),
    ),
    "solver-env": Scenario(
        "the first solver game through the env (`SolverAgent.act`, as the README's snippet plays), beginner, "
        "won without a guess (as 93% of beginner games are)",
        ("-c", _ENV_GAME.format(preset="beginner", seed=1)),
    ),
    "solver-env-guess": Scenario(
        "the same, a game that needs a guess (beginner, env seed 0)",
        ("-c", _ENV_GAME.format(preset="beginner", seed=0)),
    ),
    "solver-env-expert": Scenario(
        "the first expert solver game through the env (env seed 0: 214 moves, with guesses and the endgame search)",
        ("-c", _ENV_GAME.format(preset="expert", seed=0)),
    ),
    "battle-move": Scenario(
        "battle's first move: the contest AI on the battle env's default 16x16 board (PettingZoo)",
        ("-c", _BATTLE_MOVE),
    ),
    "solve": Scenario(
        "`minesweeper solve` on a beginner position with a certain move",
        ("-m", "minesweeper_cli.main", "solve", "{position}"),
    ),
}


class Timing(NamedTuple):
    """One run of a scenario."""

    wall: float
    cpu: float
    notices: int


class Install(NamedTuple):
    """What runs a scenario: an interpreter, the folder it runs in, and the sources on its path (none: the
    interpreter's installed package)."""

    python: str
    folder: Path
    sources: Path | None


def run_once(scenario: Scenario, install: Install, cache: Path, position: Path) -> Timing:
    """Run a scenario in a fresh process with numba's cache in ``cache``; fails loudly if it fails."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "MINESWEEPER_RL_COMPILE_NOTICE": "1"}
    env.pop("PYTHONPATH", None)
    if install.sources is not None:
        env["PYTHONPATH"] = str(install.sources)
    args = [arg.format(position=position) for arg in scenario.args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([install.python, *args], cwd=install.folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"scenario {args} failed with exit code {result.returncode}:\n{result.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    notices = sum(line.startswith(NOTICE_PREFIX) for line in result.stderr.splitlines())
    return Timing(wall, cpu, notices)


def measure(scenario: Scenario, install: Install, position: Path, repeats: int) -> tuple[Timing, Timing]:
    """(cold, warm): each the fastest of ``repeats`` runs, every cold run with a new empty cache."""
    colds, warms = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            colds.append(run_once(scenario, install, Path(cache), position))
            warms.append(run_once(scenario, install, Path(cache), position))
    return min(colds), min(warms)


def machine() -> str:
    """The machine in one line: CPU model and cores, Python and numba versions."""
    model = platform.processor() or "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if "model name" in line]
        model = names[0] if names else model
    import numba

    return f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, numba {numba.__version__}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument(
        "--python",
        help="an interpreter with minesweeper-rl installed (a wheel's virtual "
        "environment): the scenarios run with it, outside any checkout, instead of --tree",
    )
    parser.add_argument("--only", nargs="+", choices=sorted(SCENARIOS), help="run only these scenarios")
    parser.add_argument("--repeats", type=int, default=1, help="runs per scenario; the fastest counts")
    parser.add_argument(
        "--no-compile",
        action="store_true",
        help="exit 1 if a cold run compiled a kernel (a compile notice): a release's kernel bundle must cover them",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    if args.python is None and not (args.tree / "mine_env").is_dir():
        parser.error(f"--tree {args.tree} is not a minesweeper-rl checkout (no mine_env/ in it)")
    names = args.only or list(SCENARIOS)
    measured = f"the package installed for {args.python}" if args.python else f"tree {args.tree}"
    print(f"{datetime.date.today()}, {machine()}, load average {os.getloadavg()[0]:.1f}, {measured}")
    print()
    print("| first use | cold (s) | cold CPU (s) | warm (s) | notices cold / warm |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as scratch:
        position = Path(scratch) / "position.txt"
        position.write_text(POSITION)
        install = (
            Install(args.python, Path(scratch), None)
            if args.python
            else Install(sys.executable, args.tree.resolve(), args.tree.resolve())
        )
        compiled = []
        for name in names:
            cold, warm = measure(SCENARIOS[name], install, position, args.repeats)
            print(f"| {SCENARIOS[name].description} | {cold.wall:.1f} | {cold.cpu:.1f} | {warm.wall:.1f} | "
                  f"{cold.notices} / {warm.notices} |", flush=True)  # fmt: skip
            compiled += [name] * bool(cold.notices)
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")
    if args.no_compile and compiled:
        raise SystemExit(f"kernels compiled on an empty cache in: {', '.join(compiled)}")


if __name__ == "__main__":
    main()

"""How far one solver move takes a reader through the code: the files ``SolverAgent.act`` crosses, and its turn-backs.

A reader who follows a move through the calls opens each function once, at its first call, and goes back to
the caller when it returns. This script traces that walk over the project's own Python: it plays an expert
game with the solver (compiled, seeded) up to the first position where no cell is certainly safe, then, in a
child process with numba's JIT off (``NUMBA_DISABLE_JIT``, each kernel keeping the ``py_func`` the code
reads; so the compiled kernels run as the Python they are written in), calls
``SolverAgent.act`` on it once under :func:`sys.setprofile`. Each first call of a function moves the walk to
its file; its return moves the walk back to the file of the project frame that called it. Calls of a
function already seen move nothing (the reader knows it). Consecutive steps in one file are one step.

It prints the number of distinct files the walk crosses and its *turn-backs*: the steps into a file the walk
had already visited (``--walk`` prints the steps). Only the public API is used (``gym.make``,
``SolverAgent``, ``agents.probability``), so the same script measures any revision of the code.

Usage (from the repository root; ``PYTHONPATH=.`` when the installed package is another checkout)::

    python studies/call_walk.py [--seed 0] [--strength strong] [--walk]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

_ENTRY = "--trace-position"
"""The child's own argument: the .npz file of the position to trace."""


def guess_position(seed: int, strength: str) -> tuple[np.ndarray, int, int]:
    """The first position of an expert game (env seed ``seed``) at which the solver must guess, as it plays:
    (observation, mines, the number of moves before it)."""
    import gymnasium as gym

    from agents.probability import mine_probabilities
    from agents.solver import SolverAgent
    from mine_env import HIDDEN  # importing mine_env registers the env ids

    env = gym.make("Minesweeper-v0", preset="expert")
    agent = SolverAgent(seed=seed, strength=strength)
    obs, info = env.reset(seed=seed)
    for move in range(obs.size):
        hidden = obs == HIDDEN
        if hidden.any() and not hidden.all():
            chances = mine_probabilities(obs, int(info["mines"]))
            if not (chances[hidden] == 0.0).any():
                return obs, int(info["mines"]), move
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            break
    raise SystemExit(f"the expert game of seed {seed} ended without a guess; try another --seed")


class Walk:
    """The reader's walk over the project's files, from the profiler's call and return events."""

    def __init__(self, root: Path, skip: set[str]) -> None:
        self.root, self.skip = str(root) + os.sep, skip
        self.seen: set[Any] = set()
        self.first_frames: set[int] = set()
        self.steps: list[str] = []
        self._ours: dict[str, bool] = {}

    def ours(self, filename: str) -> bool:
        """Whether ``filename`` is a source file of the project (not a library's, not this script)."""
        if filename not in self._ours:
            inside = filename.startswith(self.root) and ".venv" not in filename and "site-packages" not in filename
            self._ours[filename] = inside and filename not in self.skip
        return self._ours[filename]

    def step(self, filename: str) -> None:
        """Move the walk to ``filename`` (nothing when it is there already)."""
        name = os.path.relpath(filename, self.root)
        if not self.steps or self.steps[-1] != name:
            self.steps.append(name)

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        code = frame.f_code
        if event not in ("call", "return") or not self.ours(code.co_filename):
            return
        if event == "call" and code not in self.seen:
            self.seen.add(code)
            self.first_frames.add(id(frame))
            self.step(code.co_filename)
        elif event == "return" and id(frame) in self.first_frames:
            self.first_frames.discard(id(frame))
            caller = frame.f_back
            while caller is not None and not self.ours(caller.f_code.co_filename):
                caller = caller.f_back
            if caller is not None:
                self.step(caller.f_code.co_filename)


def turn_backs(steps: list[str]) -> int:
    """Steps into a file visited earlier in the walk."""
    visited: set[str] = set()
    count = 0
    for name in steps:
        count += name in visited
        visited.add(name)
    return count


def _as_python(kernel: Any) -> Any:
    """``kernel`` left as the Python function it is, with the ``py_func`` a numba dispatcher would give."""
    kernel.py_func = kernel
    return kernel


def _python_njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit`` with the JIT off: each kernel stays Python and keeps ``py_func``, which the code reads."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return _as_python(args[0])
    return _as_python


def trace(position: Path, seed: int, strength: str) -> dict[str, Any]:
    """The walk of one ``SolverAgent.act`` on the saved position (run with the JIT off, in the child)."""
    import numba

    numba.njit = _python_njit  # before the project's modules import it; NUMBA_DISABLE_JIT turns the rest off
    import agents
    from agents.solver import SolverAgent
    from mine_env import HIDDEN

    saved = np.load(position)
    obs, mines = saved["obs"], int(saved["mines"])
    agent = SolverAgent(seed=seed, strength=strength)
    info = {"mines": mines, "action_mask": (obs == HIDDEN).ravel().astype(np.int8)}
    walk = Walk(Path(agents.__file__).resolve().parents[1], {str(Path(__file__).resolve())})  # the code imported
    sys.setprofile(walk)
    try:
        action = agent.act(obs, info)
    finally:
        sys.setprofile(None)
    return {"action": int(action), "files": len(set(walk.steps)), "turn_backs": turn_backs(walk.steps),
            "steps": walk.steps}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="the expert game's env seed and the solver's seed")
    parser.add_argument("--strength", default="strong", choices=("fast", "standard", "strong"))
    parser.add_argument("--walk", action="store_true", help="print the walk's steps too")
    parser.add_argument(_ENTRY, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.trace_position is not None:
        print(json.dumps(trace(args.trace_position, args.seed, args.strength)))
        return
    obs, mines, moves = guess_position(args.seed, args.strength)
    with tempfile.TemporaryDirectory() as folder:
        position = Path(folder) / "position.npz"
        np.savez(position, obs=obs, mines=mines)
        child = [sys.executable, __file__, "--seed", str(args.seed), "--strength", args.strength, _ENTRY, str(position)]
        env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
        done = subprocess.run(child, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the traced move failed:\n{done.stderr.strip()}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    hidden = int((obs == -1).sum())
    print(f"expert, env seed {args.seed}, {args.strength}: the guess after {moves} moves ({hidden} hidden cells)")
    print(f"SolverAgent.act -> cell {result['action']}: {result['files']} files, {result['turn_backs']} turn-backs")
    if args.walk:
        print(" -> ".join(result["steps"]))


if __name__ == "__main__":
    main()

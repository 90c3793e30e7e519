"""The solver's compile-ahead job compiles exactly the kernels, with the argument types, that a first guessing
game needs (a change of a call's types would make the game compile them again, and this test fail)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agents.solver import guess_ahead
from mine_env.engine.compile_ahead import ENV_VAR

ROOT = Path(__file__).resolve().parents[3]

GAME = """
import gymnasium as gym
from numba.core import event
import mine_env
from agents.solver import SolverAgent
from mine_env.engine import compile_ahead
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        compiled.append(f"{function.__module__}.{function.__qualname__}")
    def on_end(self, ev):
        pass
event.register("numba:compile", Listener())
env, agent = gym.make("Minesweeper-v0", preset="beginner"), SolverAgent(seed=0)
obs, info = env.reset(seed=0)
done, moves = False, []
while not done:
    moves.append(str(agent.act(obs, info)))
    obs, reward, terminated, truncated, info = env.step(int(moves[-1]))
    done = terminated or truncated
print(",".join(moves), len(compile_ahead._jobs), *compiled)
"""


def test_a_cold_first_guessing_game_loads_the_jobs_kernels_and_a_warm_one_starts_no_job(tmp_path: Path) -> None:
    """The first game that needs a guess (beginner, env seed 0) on an empty cache: the job starts, and this
    process compiles none of its kernels (their argument types are the game's); with the cache it left, no
    job starts, and the game is the same."""
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "MINESWEEPER_RL_COMPILE_NOTICE": "0",
    }
    env.pop(ENV_VAR, None)

    def play() -> list[str]:
        result = subprocess.run([sys.executable, "-c", GAME], env=env, capture_output=True, text=True, check=True)
        return result.stdout.split()

    moves, jobs, *compiled = play()
    assert jobs == "1"
    assert "agents.solver.guess.choose_guess" in compiled  # the game needed a guess
    assert set(guess_ahead.KERNELS).isdisjoint(compiled)
    assert play() == [moves, "0"]  # the same game from the cache, and no job

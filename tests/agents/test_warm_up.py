"""The warm-up compiles the kernels the solver's paths use, with the types they call them with."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest
from numba import typeof, types

import agents.solver.agent as agent_module
import mine_env  # noqa: F401  (registers the env ids)
import mine_env.analysis.deduction as deduction_module
import mine_env.analysis.probability as probability_module
from agents.probability import mine_probabilities
from agents.solver import SolverAgent
from agents.solver.guess import PRESETS
from agents.warm_up import warm_up, warm_up_in_background

FLAT = types.Array(types.int8, 1, "C")
SETTINGS = typeof(PRESETS["strong"])
# The types the compiled games pass on (their game's obs, Python ints, the count's probabilities, a uint64
# state), so each kernel is compiled once for both paths.
CALLEE_TYPES = {
    "local_safe": (FLAT, types.int64, types.int64),
    "choose_guess": (
        FLAT, types.int64, types.int64, types.int64, types.Array(types.float64, 1, "C"), types.float64, SETTINGS,
        types.uint64,
    ),
    "count_board": (FLAT, types.int64, types.int64, types.boolean, types.int64),
}  # fmt: skip


def _recording(kernel: Any, seen: set[tuple[types.Type, ...]]) -> Any:
    def call(*args: Any) -> Any:
        seen.add(tuple(kernel.typeof_pyval(arg) for arg in args))
        return kernel(*args)

    return call


def test_the_env_path_and_the_probabilities_call_the_kernels_with_the_compiled_games_types(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: dict[str, set[tuple[types.Type, ...]]] = {name: set() for name in CALLEE_TYPES}
    for module, name in (
        (deduction_module, "local_safe"), (deduction_module, "count_board"), (agent_module, "choose_guess"),
        (agent_module, "count_board"), (probability_module, "count_board"),
    ):  # fmt: skip
        monkeypatch.setattr(module, name, _recording(getattr(module, name), seen[name]))
    env, agent = gym.make("Minesweeper-v0", preset="expert"), SolverAgent(seed=1)
    obs, info = env.reset(seed=3)
    done = False
    while not done:
        mine_probabilities(obs, info["mines"])
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        done = terminated or truncated
    assert seen == {name: {signature} for name, signature in CALLEE_TYPES.items()}  # a guess included


def test_the_warm_up_names_the_paths_it_knows() -> None:
    with pytest.raises(ValueError, match=r"unknown paths \['gui'\]; expected some of env, compiled"):
        warm_up(["env", "gui"])


def test_the_battle_path_compiles_the_battle_ais_counting() -> None:
    from battle.players.search import contest_scores, lookahead_scores
    from battle.players.warm_up import warm_up_battle

    assert warm_up_battle() >= 0.0
    # what the contest and look-ahead agents call on every move, the stored count linked in: compiled here, or
    # loaded from the cache (reveal_counts_stored itself is then never loaded, so its signatures say nothing)
    assert contest_scores.signatures and lookahead_scores.signatures


def test_the_warm_up_returns_its_time_and_runs_in_a_daemon_thread_in_the_background() -> None:
    assert warm_up() >= 0.0
    assert warm_up(["env"]) >= 0.0
    thread = warm_up_in_background(["compiled"])
    assert thread.daemon
    thread.join(timeout=600)
    assert not thread.is_alive()

"""Fingerprints of everything a refactor must not change: games, env trajectories and probabilities.

A restructuring of the code must leave every game the same. This script plays, on fixed seeds,

* the solver at every strength on the first N games of each board and rule, in compiled code (the games of
  ``studies/solver_ablation.py``: game ``i`` of ``minesweeper eval --preset P --first-click R --seed S``);
* the solver, the rule agent and random play move by move through the env with the oracle metrics, on fewer
  games (the path ``minesweeper eval`` takes with the oracle on);
* random valid actions through the single env and the native vector env, flags off and on, hashing every
  observation, reward and end flag;
* the exact mine probabilities of positions reached in those games,

and writes a JSON file of win counts and SHA-256 digests. Two runs agree exactly when nothing observable
changed. Compare with ``--compare OLD.json``: it names each entry that differs.

Usage::

    python benchmarks/fingerprint.py --games 10000 --json /tmp/after.json --compare /tmp/before.json
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import gymnasium as gym
import numpy as np

import mine_env  # noqa: F401  (registers the env ids)
from agents.solver import SolverAgent
from eval.runner import evaluate
from eval.suites import adhoc_suite
from mine_env.analysis.probability import mine_probabilities
from mine_env.engine.board import layout_key
from mine_env.engine.constants import PRESETS
from mine_env.engine.spec import BoardSpec

RULES = ("opening", "safe")
STRENGTHS = ("fast", "standard", "strong")
SEED = 2026


def _digest(*arrays: Any) -> str:
    """SHA-256 of the arrays' bytes (dtype and shape included, so a change of either shows)."""
    h = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        h.update(str((array.dtype.str, array.shape)).encode())
        h.update(array.tobytes())
    return h.hexdigest()[:24]


def solver_games(task: tuple[str, str, str, int, int]) -> tuple[str, dict[str, Any]]:
    """One strength on games [lo, hi) of one board and rule, compiled."""
    preset, rule, strength, lo, hi = task
    suite = adhoc_suite(BoardSpec.from_options(preset=preset, first_click=rule), games=hi, seed=SEED)
    seeds = [suite.game_seeds(game) for game in range(lo, hi)]
    keys = np.array([layout_key(seed.env) for seed in seeds], dtype=np.int64)
    won, revealed, steps = SolverAgent(strength=strength).play_compiled(
        suite.rows, suite.cols, suite.mines, rule, keys, [seed.agent for seed in seeds]
    )
    return f"solver/{preset}/{rule}/{strength}", {"won": won, "revealed": revealed, "steps": steps}


def env_path_games(preset: str, rule: str, games: int) -> dict[str, Any]:
    """Solver, rules and random move by move through the env, oracle on: every record's outcome."""
    suite = adhoc_suite(BoardSpec.from_options(preset=preset, first_click=rule), games=games, seed=SEED)
    report = evaluate(["solver", "rules", "random"], suite, workers=1, oracle=True, progress=False)
    out = {}
    for result in report.to_dict()["results"]:
        records = report.records_of(result["agent"])
        outcome = [
            (r.won, r.steps, r.invalid_moves, r.safe_revealed, r.guesses, r.avoidable_loss, round(r.excess_risk, 12))
            for r in records
        ]
        out[f"env-eval/{preset}/{rule}/{result['agent']}"] = {
            "wins": int(sum(r.won for r in records)),
            "digest": hashlib.sha256(json.dumps(outcome).encode()).hexdigest()[:24],
        }
    return out


def env_rollouts(preset: str, rule: str, flags: bool, steps: int) -> dict[str, Any]:
    """Random valid actions through the single env and the vector env; digests of what they return."""
    out = {}
    env = gym.make("Minesweeper-v0", preset=preset, first_click=rule, flags=flags)
    rng = np.random.default_rng(7)
    trail, positions = [], []
    obs, info = env.reset(seed=11)
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        trail.append((obs.copy(), np.array([reward, terminated, truncated, info["is_success"]], dtype=np.float64)))
        if len(positions) < 40 and not (terminated or truncated) and (obs >= 0).any():
            positions.append(obs.copy())
        if terminated or truncated:
            obs, info = env.reset()
    out[f"env/{preset}/{rule}/flags={flags}"] = _digest(*[a for pair in trail for a in pair])
    probs = [mine_probabilities(p, PRESETS[preset][2]) for p in positions]
    out[f"probabilities/{preset}/{rule}/flags={flags}"] = _digest(*probs) if probs else "none"

    vec = gym.make_vec("Minesweeper-v0", num_envs=16, vectorization_mode="vector_entry_point", preset=preset,
                       first_click=rule, flags=flags)  # fmt: skip
    obs, info = vec.reset(seed=3)
    parts = []
    for _ in range(steps // 16):
        masks = vec.unwrapped.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, terminated, truncated, info = vec.step(actions)
        parts += [obs.copy(), rewards.astype(np.float64), terminated, truncated]
    out[f"vector/{preset}/{rule}/flags={flags}"] = _digest(*parts)
    return out


def fingerprint(games: int, env_games: int, workers: int) -> dict[str, Any]:
    """Every entry, keyed by what it fingerprints."""
    result: dict[str, Any] = {}
    chunks = max(1, workers * 4)
    tasks = []
    for preset in PRESETS:
        for rule in RULES:
            for strength in STRENGTHS:
                bounds = np.linspace(0, games, chunks + 1).astype(int)
                pairs = itertools.pairwise(bounds)
                tasks += [(preset, rule, strength, int(lo), int(hi)) for lo, hi in pairs if hi > lo]
    with ProcessPoolExecutor(workers) as pool:
        parts: dict[str, list[dict[str, Any]]] = {}
        for name, part in pool.map(solver_games, tasks):
            parts.setdefault(name, []).append(part)
    for name, chunk in parts.items():
        won = np.concatenate([c["won"] for c in chunk])
        revealed = np.concatenate([c["revealed"] for c in chunk]).astype(np.int64)
        steps = np.concatenate([c["steps"] for c in chunk]).astype(np.int64)
        result[name] = {"games": int(won.size), "wins": int(won.sum()), "digest": _digest(won, revealed, steps)}
    for preset in PRESETS:
        for rule in RULES:
            result.update(env_path_games(preset, rule, env_games))
            for flags in (False, True):
                result.update(env_rollouts(preset, rule, flags, steps=2000))
    return result


def compare(now: dict[str, Any], before: dict[str, Any]) -> list[str]:
    """The entries that differ between two fingerprints (or exist in only one)."""
    return [
        f"{key}: before {before.get(key)!r}, now {now.get(key)!r}"
        for key in sorted(set(now) | set(before))
        if now.get(key) != before.get(key)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="compiled solver games per board, rule, strength")
    parser.add_argument("--env-games", type=int, default=200, help="games through the env per board and rule")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", required=True, help="where to write the fingerprint")
    parser.add_argument("--compare", help="an earlier fingerprint to compare with")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    result = fingerprint(args.games, args.env_games, args.workers)
    with open(args.json, "w") as handle:
        json.dump(result, handle, indent=1, sort_keys=True)
    print(f"{len(result)} entries in {time.perf_counter() - start:.0f} s -> {args.json}")
    if args.compare:
        with open(args.compare) as handle:
            differences = compare(result, json.load(handle))
        print("\n".join(differences) if differences else "identical to " + args.compare)
        return 1 if differences else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

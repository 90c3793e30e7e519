"""What a PPO or MaskablePPO model's own rollouts hold: their positions by stage of the game, as its update sees them.

    python studies/rollout_stages.py RUN/checkpoints/latest.zip OTHER_RUN/checkpoints/latest.zip --steps 20480

The mine head's loss (:func:`train.sb3.mine_head.mine_head_loss`) averages over the hidden cells of every
position a rollout holds, and PPO's rollouts hold a position once more each time the policy picks a revealed cell
(a move that changes nothing). This plays each model's stochastic policy as training does (the batched training
env, 64 boards, masks for MaskablePPO; the run's own board, rule, rewards and step limit from its ``config.json``)
for ``--steps`` steps and counts, by stage of the game (the share of the safe cells still hidden, as
studies/loss_anatomy.py counts them): the share of the positions, the share of the hidden cells (the head loss's
weight), and how many moves picked a revealed cell.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch as th
from mine_head_vs_policy import STAGES
from policy_probe import check_files, load_policy

from mine_env.engine.constants import HIDDEN
from train.sb3 import maskable_ppo, ppo
from train.sb3.networks import MaskableConvActorCriticPolicy
from train.sb3.training import find_run_config, run_config
from train.sb3.vec_env import BatchVecEnv


def rollout_stages(model: str, steps: int, seed: int) -> dict[str, dict[str, float]]:
    """Each stage's share of the positions and of the hidden cells of ``steps`` steps of the model's own play."""
    policy = load_policy(model)
    masked = isinstance(policy, MaskableConvActorCriticPolicy)
    algorithm = maskable_ppo.ALGORITHM if masked else ppo.ALGORITHM
    try:
        config = run_config(algorithm, find_run_config(Path(model)))
    except (FileNotFoundError, ValueError) as error:
        raise SystemExit(f"{model}: {error}") from None
    env = BatchVecEnv(config.board_spec(), 64, config.reward_config(), config.max_steps, keep_layouts=True)
    env.seed(seed)
    obs = np.asarray(env.reset())
    th.manual_seed(seed)
    n_safe = config.board_spec().n_cells - config.board_spec().mines
    positions, cells, stalls = np.zeros(len(STAGES)), np.zeros(len(STAGES)), np.zeros(len(STAGES))
    for _ in range(steps // 64):
        masks = env.action_masks()
        with th.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            kwargs = {"action_masks": masks} if masked else {}
            actions, _, _ = policy(tensor, deterministic=False, **kwargs)
        actions = actions.numpy()
        grids = obs.reshape(len(obs), -1)
        hidden = grids == HIDDEN
        new_obs = np.asarray(env.step(actions)[0])
        mines, placed = env.layouts_before_step()
        for board in np.flatnonzero(placed):
            share = (hidden[board] & (mines[board] == 0)).sum() / n_safe
            stage = next(i for i, (_, low, high) in enumerate(STAGES) if low <= share < high)
            positions[stage] += 1
            cells[stage] += hidden[board].sum()
            stalls[stage] += not masks[board, actions[board]]
        obs = new_obs
    return {name: {"positions": float(positions[i] / positions.sum()), "hidden_cells": float(cells[i] / cells.sum()),
                   "revealed_picks": float(stalls[i] / max(positions[i], 1))}
            for i, (name, _, _) in enumerate(STAGES)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="PPO or MaskablePPO zips of train.sb3 runs")
    parser.add_argument("--steps", type=int, default=20_480, help="steps of play a model (64 boards at a time)")
    parser.add_argument("--seed", type=int, default=20_000_003, help="seed of the boards and of the sampled moves")
    parser.add_argument("--json", help="write every model's table here")
    args = parser.parse_args()
    if args.steps < 64:
        parser.error("--steps must be at least 64 (one step of the 64 boards)")
    check_files(parser, args.models)
    th.set_num_threads(1)
    tables = {model: rollout_stages(model, args.steps, args.seed) for model in args.models}
    print("| model | " + " | ".join(f"{name}: positions, hidden cells, revealed picks" for name, _, _ in STAGES) + " |")
    print("| --- |" + " ---: |" * len(STAGES))
    for model, table in tables.items():
        cells = " | ".join(f"{row['positions']:.3f}, {row['hidden_cells']:.3f}, {row['revealed_picks']:.3f}"
                           for row in table.values())  # fmt: skip
        print(f"| {model} | {cells} |")
    if args.json:
        Path(args.json).write_text(json.dumps(tables, indent=1) + "\n")


if __name__ == "__main__":
    main()

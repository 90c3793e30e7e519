"""A MaskablePPO run's policy against its own true-mine head, as players, on the same fixed games.

    python studies/mine_head_vs_policy.py RUN/checkpoints/latest.zip --games 2000

The policy plays the valid cell with the highest logit; the head plays the hidden cell with the lowest predicted
mine logit (docs/lab/2026-11-27-maskable-ppo-mine-head-beginner-cpu.md). Boards: beginner, opening rule, game i
seeded ``--seed + i`` (the training runs' evaluation set by default).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch as th

from mine_env.engine.batch import BatchEngine
from mine_env.engine.spec import BoardSpec
from train.sb3.maskable_ppo import MineMaskablePPO


def win_rate(policy, spec: BoardSpec, games: int, seed: int, by_mine_head: bool) -> float:
    """Win rate of greedy play by the policy's logits or by its mine head's (negated) logits."""
    engine = BatchEngine(spec, games)
    engine.reset(seed)
    finished, won = np.zeros(games, bool), np.zeros(games, bool)
    heads = policy.mlp_extractor
    while not finished.all():
        obs, _ = policy.obs_to_tensor(engine.grids())
        with th.no_grad():
            features = policy.extract_features(obs)
            features = features[0] if isinstance(features, tuple) else features
            scores = -heads.mine_head(features) if by_mine_head else heads.forward_actor(features)
        out = engine.step(np.where(engine.action_masks(), scores.numpy(), -np.inf).argmax(axis=1))
        ended = (out.terminated | out.truncated) & ~finished
        won[ended] = out.success[ended]
        finished |= ended
    return float(won.mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a MaskablePPO zip trained with --mine-coef above 0")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=10000019)
    args = parser.parse_args()
    th.set_num_threads(1)
    policy = MineMaskablePPO.load(args.model, device="cpu").policy
    policy.set_training_mode(False)
    if policy.mlp_extractor.mine_head is None:
        parser.error(f"{args.model} has no mine head (trained without --mine-coef)")
    spec = BoardSpec(9, 9, 10, "opening")
    policy_rate = win_rate(policy, spec, args.games, args.seed, by_mine_head=False)
    head_rate = win_rate(policy, spec, args.games, args.seed, by_mine_head=True)
    print(f"{args.model}: policy {policy_rate:.3f}, mine head {head_rate:.3f} ({args.games} games)")


if __name__ == "__main__":
    main()

"""A MaskablePPO or DQN run's policy against its own true-mine head, as players, on the same fixed games.

    python studies/mine_head_vs_policy.py RUN/checkpoints/latest.zip --games 2000
    python studies/mine_head_vs_policy.py DQN_RUN/best_model.zip --algo dqn --games 2000
    python studies/mine_head_vs_policy.py DQN_RUN/best_model.zip --algo dqn --preset intermediate --games 1000
    python studies/mine_head_vs_policy.py RUN/checkpoints/latest.zip --offsets   # what the policy head adds
    python studies/mine_head_vs_policy.py RUN/best_model.zip --preset intermediate --games 200 --calibration

The policy plays the valid cell with the highest logit (DQN: Q-value); the head plays the hidden cell with the
lowest predicted mine logit (docs/lab/2026-11-27-maskable-ppo-mine-head-beginner-cpu.md). Boards: ``--preset``
(beginner by default), opening rule, game i seeded ``--seed + i`` (the training runs' evaluation set by default),
played as the runs evaluate
(:func:`train.sb3.evaluation.evaluate_win_rate`). ``--offsets`` reads a ``--mine-prior`` policy: over the valid
cells of the first moves of ``--games`` games played by the head, the policy head's offsets (its logit before the
prior is subtracted) against the mine logits, by band of mine logit
(docs/lab/2026-11-27-detached-mine-prior-beginner-cpu.md). ``--calibration`` asks how far the head is from the
best a head can be: over every position of ``--games`` games the head plays, its cross-entropy against the true
mines of the hidden cells beside that of the exact mine probabilities (``mine_env.analysis``), the floor no head
goes below, by stage of the game (the share of the safe cells still hidden: early from a half, late under a tenth).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch as th

from mine_env.analysis.probability import mine_probabilities
from mine_env.engine.batch import BatchEngine
from mine_env.engine.constants import HIDDEN, PRESETS
from mine_env.engine.spec import BoardSpec
from train.sb3.dqn import MaskedDQN
from train.sb3.evaluation import evaluate_win_rate
from train.sb3.maskable_ppo import MineMaskablePPO

ALGORITHMS = {"maskable_ppo": MineMaskablePPO, "dqn": MaskedDQN}

BANDS = ((-np.inf, -6), (-6, -4), (-4, -2), (-2, 0), (0, np.inf))
STAGES = (("early", 0.5, 1.01), ("middle", 0.1, 0.5), ("late", 0.0, 0.1))
"""Stages by the share of the safe cells still hidden, as studies/loss_anatomy.py counts them."""


def heads_of(policy, grids: np.ndarray) -> tuple[th.Tensor, th.Tensor]:
    """(policy head logits or Q-values, mine head logits) of a batch of grids, each (N, cells)."""
    obs, _ = policy.obs_to_tensor(grids)
    with th.no_grad():
        if hasattr(policy, "q_net"):
            return policy.q_net.forward_with_mines(obs)
        features = policy.extract_features(obs)
        features = features[0] if isinstance(features, tuple) else features
        heads = policy.mlp_extractor
        return heads.policy_head(features), heads.mine_head(features)


def mine_head_scores(policy, grids: np.ndarray) -> th.Tensor:
    """The head as a player: the lowest predicted mine logit scores highest."""
    return -heads_of(policy, grids)[1]


def offsets(policy, spec: BoardSpec, games: int, seed: int, moves: int = 6) -> None:
    """Print the policy head's offsets against the mine logits over the valid cells of the first ``moves`` moves."""
    engine = BatchEngine(spec, games)
    engine.reset(seed)
    offset, mine = [], []
    for _ in range(moves):
        valid = engine.action_masks()
        policy_logits, mine_logits = (head.numpy() for head in heads_of(policy, engine.grids()))
        offset.append(policy_logits[valid])
        mine.append(mine_logits[valid])
        engine.step(np.where(valid, -mine_logits, -np.inf).argmax(axis=1))
    offset, mine = np.concatenate(offset), np.concatenate(mine)
    print(f"{len(offset)} valid cells: offset std {offset.std():.2f}, mine logit std {mine.std():.2f}, "
          f"correlation {np.corrcoef(offset, mine)[0, 1]:.2f}")
    for low, high in BANDS:
        band = (mine >= low) & (mine < high)
        print(f"mine logit in [{low}, {high}): {band.sum()} cells, mean offset {offset[band].mean():.2f}")


def cross_entropy(probabilities: np.ndarray, mines: np.ndarray) -> np.ndarray:
    """Each cell's binary cross-entropy (nats) of mine ``probabilities`` against the true ``mines``."""
    clipped = np.clip(probabilities, 1e-7, 1 - 1e-7)
    return -np.where(mines > 0, np.log(clipped), np.log1p(-clipped))


def calibration(policy, spec: BoardSpec, games: int, seed: int) -> None:
    """Print the head's cross-entropy against the true mines beside the exact probabilities', by stage, over the
    positions of the first game of each of ``games`` boards played by the head."""
    engine = BatchEngine(spec, games)
    engine.reset(seed)
    playing = np.ones(games, dtype=bool)
    totals = {stage: np.zeros(3) for stage, _, _ in STAGES}  # cells, the head's summed loss, the exact one's
    n_safe = spec.n_cells - spec.mines
    while playing.any():
        grids = engine.grids()
        mines, placed = engine.layouts()
        mine_logits = heads_of(policy, grids)[1].numpy()
        for board in np.flatnonzero(playing & placed):
            hidden = grids[board].reshape(-1) == HIDDEN
            share = (hidden & (mines[board] == 0)).sum() / n_safe
            stage = next(name for name, low, high in STAGES if low <= share < high)
            exact = mine_probabilities(grids[board], spec.mines).reshape(-1)[hidden]
            head = 1 / (1 + np.exp(-mine_logits[board][hidden].astype(np.float64)))
            truth = mines[board][hidden]
            totals[stage] += (hidden.sum(), cross_entropy(head, truth).sum(), cross_entropy(exact, truth).sum())
        valid = engine.action_masks()
        step = engine.step(np.where(valid, -mine_logits, -np.inf).argmax(axis=1))
        playing &= ~(step.terminated | step.truncated)
    print("| stage | hidden cells | head, nats a cell | exact, nats a cell | head - exact |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for stage, (cells, head_loss, exact_loss) in totals.items():
        print(f"| {stage} | {int(cells):,} | {head_loss / cells:.4f} | {exact_loss / cells:.4f} | "
              f"{(head_loss - exact_loss) / cells:.4f} |")  # fmt: skip
    cells, head_loss, exact_loss = sum(totals.values())
    print(f"| all | {int(cells):,} | {head_loss / cells:.4f} | {exact_loss / cells:.4f} | "
          f"{(head_loss - exact_loss) / cells:.4f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a MaskablePPO or DQN zip trained with --mine-coef above 0")
    parser.add_argument("--algo", choices=sorted(ALGORITHMS), default="maskable_ppo", help="the model's algorithm")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="beginner", help="the board played")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=10000019)
    parser.add_argument("--offsets", action="store_true", help="the policy head's offsets (a --mine-prior policy)")
    parser.add_argument("--calibration", action="store_true", help="the head's cross-entropy beside the exact one's")
    args = parser.parse_args()
    spec = BoardSpec(*PRESETS[args.preset], "opening")
    th.set_num_threads(1)
    policy = ALGORITHMS[args.algo].load(args.model, device="cpu").policy
    policy.set_training_mode(False)
    heads = policy.q_net if args.algo == "dqn" else policy.mlp_extractor
    if heads.mine_head is None:
        parser.error(f"{args.model} has no mine head (trained without --mine-coef)")
    if args.offsets:
        if not getattr(heads, "mine_prior", False):
            parser.error(f"{args.model} has no mine prior (trained without --mine-prior): its heads are not summed")
        offsets(policy, spec, args.games, args.seed)
        return
    if args.calibration:
        calibration(policy, spec, args.games, args.seed)
        return
    policy_rate = evaluate_win_rate(policy, spec, args.games, args.seed)
    head_rate = evaluate_win_rate(policy, spec, args.games, args.seed, mine_head_scores)
    print(f"{args.model}: policy {policy_rate:.3f}, mine head {head_rate:.3f} ({args.games} games)")


if __name__ == "__main__":
    main()

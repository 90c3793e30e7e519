"""PPO and MaskablePPO models read on the very same positions: how safe their picks are, and how good their mine heads.

    python studies/policy_probe.py RUN_A/final_model.zip RUN_B/final_model.zip --games 400
    python studies/policy_probe.py runs/masks/diag-std-s3-*/final_model.zip --json probe.json

Issue 81 asks why MaskablePPO learns more slowly than PPO early. Win rates mix everything a policy does; this reads
each model on one fixed set of positions instead: the positions of ``--games`` games (``--preset``, opening rule,
game i seeded ``--seed + i``) played by the exact probabilities (the hidden cell least likely a mine, the first of
equals), every position before a move. For each model and stage of the game (the share of the safe cells still
hidden, as studies/loss_anatomy.py counts them), over the hidden cells alone:

- ``pick_excess``: the exact mine probability of the policy's pick (its highest logit among the hidden cells) less
  the least among the hidden cells: 0 for a pick as safe as can be;
- ``sample_excess``: the same for a move sampled from the policy renormalised over the hidden cells;
- ``entropy``: of that renormalised policy, nats;
- ``revealed_mass``: the probability the policy gives the revealed cells (PPO's; MaskablePPO's logits there are
  never used nor trained, its masks remove them);
- ``head_pick_excess``: ``pick_excess`` of the mine head as a player (its lowest mine logit among the hidden
  cells), where the model has a head;
- ``head_excess``: the mine head's cross-entropy against the true mines less the exact probabilities', nats a
  hidden cell (0 for a head as good as can be), where the model has a head.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch as th
from mine_head_vs_policy import STAGES, cross_entropy, heads_of
from stable_baselines3.common.save_util import load_from_zip_file

from mine_env.analysis.probability import mine_probabilities
from mine_env.engine.batch import BatchEngine
from mine_env.engine.constants import HIDDEN, PRESETS
from mine_env.engine.spec import BoardSpec
from train.sb3.mine_head import MineMaskablePPO, MinePPO
from train.sb3.networks import ConvActorCriticPolicy, MaskableConvActorCriticPolicy

METRICS = ("pick_excess", "sample_excess", "entropy", "revealed_mass", "head_pick_excess", "head_excess")


def positions(spec: BoardSpec, games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(grids (P, rows, cols), exact mine probabilities (P, cells), true mines (P, cells), stage index (P,)) of every
    position of ``games`` games played by the exact probabilities."""
    engine = BatchEngine(spec, games)
    engine.reset(seed)
    playing = np.ones(games, dtype=bool)
    grids, probabilities, truths, stages = [], [], [], []
    n_safe = spec.n_cells - spec.mines
    while playing.any():
        grid_batch = engine.grids()
        mines, placed = engine.layouts()
        moves = np.zeros(games, dtype=np.int64)
        for board in np.flatnonzero(playing):
            grid = grid_batch[board].reshape(-1)
            exact = mine_probabilities(grid_batch[board], spec.mines).reshape(-1)
            hidden = grid == HIDDEN
            moves[board] = np.flatnonzero(hidden)[exact[hidden].argmin()]
            if not placed[board]:
                continue  # before the first click no position is informative
            share = (hidden & (mines[board] == 0)).sum() / n_safe
            grids.append(grid_batch[board].copy())
            probabilities.append(exact)
            truths.append(mines[board].copy())
            stages.append(next(i for i, (_, low, high) in enumerate(STAGES) if low <= share < high))
        step = engine.step(moves)
        playing &= ~(step.terminated | step.truncated)
    return np.array(grids), np.array(probabilities), np.array(truths), np.array(stages)


def load_policy(path: str):
    """The policy of a PPO or MaskablePPO zip of train.sb3 (the zip names its policy class)."""
    data, _, _ = load_from_zip_file(path, device="cpu", load_data=True)
    policy_class = (data or {}).get("policy_class")
    if policy_class not in (ConvActorCriticPolicy, MaskableConvActorCriticPolicy):
        raise SystemExit(f"{path}: not the zip of a PPO or MaskablePPO run of train.sb3 (its policy: {policy_class})")
    algorithm = MineMaskablePPO if policy_class is MaskableConvActorCriticPolicy else MinePPO
    policy = algorithm.load(path, device="cpu").policy
    policy.set_training_mode(False)
    return policy


def probe(policy, grids: np.ndarray, exact: np.ndarray, truths: np.ndarray, stages: np.ndarray,
          rng: np.random.Generator) -> dict[str, dict[str, float]]:  # fmt: skip
    """Each metric of the module's docstring, by stage and over all positions."""
    policy_logits, mine_logits = [], []
    for start in range(0, len(grids), 1024):
        batch_logits, batch_mines = heads_of(policy, grids[start:start + 1024])
        policy_logits.append(batch_logits.float().numpy())
        mine_logits.append(None if batch_mines is None else batch_mines.float().numpy())
    logits = np.concatenate(policy_logits).astype(np.float64)
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    full = np.exp(logits - logits.max(axis=1, keepdims=True))
    full /= full.sum(axis=1, keepdims=True)
    restricted = np.where(hidden, full, 0.0)
    revealed_mass = 1.0 - restricted.sum(axis=1)
    restricted /= restricted.sum(axis=1, keepdims=True)
    least = np.where(hidden, exact, np.inf).min(axis=1)
    rows = np.arange(len(grids))
    pick = np.where(hidden, logits, -np.inf).argmax(axis=1)
    sampled = (restricted.cumsum(axis=1) > rng.random((len(grids), 1))).argmax(axis=1)
    entropy = -(restricted * np.log(np.where(restricted > 0, restricted, 1.0))).sum(axis=1)
    values = {
        "pick_excess": exact[rows, pick] - least,
        "sample_excess": exact[rows, sampled] - least,
        "entropy": entropy,
        "revealed_mass": revealed_mass,
    }
    if mine_logits[0] is not None:
        mine_logits_all = np.concatenate(mine_logits).astype(np.float64)
        head_pick = np.where(hidden, mine_logits_all, np.inf).argmin(axis=1)
        values["head_pick_excess"] = exact[rows, head_pick] - least
        head = 1 / (1 + np.exp(-mine_logits_all))
        excess = np.where(hidden, cross_entropy(head, truths) - cross_entropy(exact, truths), 0.0)
        values["head_excess"] = excess.sum(axis=1) / hidden.sum(axis=1)
    table: dict[str, dict[str, float]] = {}
    for index, (stage, _, _) in [*enumerate(STAGES), (-1, ("all", 0, 0))]:
        chosen = stages == index if index >= 0 else np.ones(len(grids), dtype=bool)
        table[stage] = {name: float(value[chosen].mean()) for name, value in values.items()} if chosen.any() else {}
        table[stage]["positions"] = int(chosen.sum())
    return table


def check_files(parser: argparse.ArgumentParser, models: list[str]) -> None:
    """Stop with one line when a model file is missing."""
    missing = [model for model in models if not Path(model).is_file()]
    if missing:
        parser.error(f"no such model file: {missing[0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="PPO or MaskablePPO zips of train.sb3")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="beginner", help="the board of the positions")
    parser.add_argument("--games", type=int, default=400, help="games whose positions are read")
    parser.add_argument("--seed", type=int, default=20_000_003, help="seed of the first game (then + 1 each)")
    parser.add_argument("--json", help="write every model's table here")
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    check_files(parser, args.models)
    th.set_num_threads(1)
    spec = BoardSpec(*PRESETS[args.preset], "opening")
    policies = {model: load_policy(model) for model in args.models}
    grids, exact, truths, stages = positions(spec, args.games, args.seed)
    print(f"{len(grids):,} positions of {args.games} games on {args.preset}")
    tables = {}
    for model, policy in policies.items():
        tables[model] = probe(policy, grids, exact, truths, stages, np.random.default_rng(args.seed))
        print(f"\n{model}")
        print("| stage | positions | " + " | ".join(METRICS) + " |")
        print("| --- | ---: |" + " ---: |" * len(METRICS))
        for stage, row in tables[model].items():
            cells = " | ".join(f"{row[name]:.4f}" if name in row else "" for name in METRICS)
            print(f"| {stage} | {row['positions']:,} | {cells} |")
    if args.json:
        Path(args.json).write_text(json.dumps(tables, indent=1) + "\n")


if __name__ == "__main__":
    main()

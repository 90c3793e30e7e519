"""Training throughput of every trainer against the bound of its own network at its own batch sizes.

For each trainer (masked DQN, PPO, MaskablePPO under stable-baselines3; PPO under RLlib) and board, two figures:

- **trained**: environment steps per second of the real trainer, collection and updates together, after a
  warm-up (numba's compile, DQN's uniform start), over ``--seconds`` of wall time, stopped between two rounds;
- **bound**: environment steps per second if a round cost only its network's own passes, timed alone on real
  positions at the trainer's batch sizes: the rollout's forward passes (one per vector step, a batch of the
  trainer's boards) plus the update's forward and backward passes with the optimizer steps (PPO: ``n_epochs``
  passes over the rollout in minibatches; DQN: ``gradient_steps`` minibatches per vector step, with the target's
  forward passes; RLlib: the learner's value pass over the batch, then its epochs of minibatches).

``share`` = trained / bound: how much of the network's own speed the trainer keeps (the rest is the env, SB3's or
RLlib's bookkeeping and Python). The settings are the runs of docs/RESULTS.md (``SETTINGS``).

Run: ``python benchmarks/bench_trainers.py --seconds 8 --torch-threads 1 --json bench_trainers.json``
(``--trainers``/``--boards`` choose; ``--torch-threads 2`` to compare threads).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
import torch.nn.functional as F
from stable_baselines3.common.logger import configure

from mine_env.engine.batch import BatchEngine
from mine_env.engine.spec import BoardSpec
from train.sb3 import dqn, maskable_ppo, ppo
from train.sb3.checkpoints import RunClock, RunKeeper
from train.sb3.training import make_vec_env

SETTINGS: dict[str, dict[str, Any]] = {
    "dqn": {"num_envs": 16, "batch_size": 64, "gradient_steps": 1, "train_freq": 1, "learning_starts": 1024,
            "buffer_size": 100_000, "channels": 32, "layers": 3},
    "ppo": {"num_envs": 64, "n_steps": 32, "batch_size": 256, "n_epochs": 4, "channels": 32, "layers": 3},
    "maskable_ppo": {"num_envs": 64, "n_steps": 32, "batch_size": 256, "n_epochs": 4, "channels": 32, "layers": 3},
    "rllib_ppo": {"envs_per_runner": 64, "batch_size": 2048, "minibatch_size": 256, "epochs": 4, "channels": 32,
                  "layers": 3, "env_runners": 0},
}  # fmt: skip
"""Each trainer's settings: those of its run in docs/RESULTS.md (DQN starts learning sooner, to time learning)."""
SB3 = {"dqn": dqn.ALGORITHM, "ppo": ppo.ALGORITHM, "maskable_ppo": maskable_ppo.ALGORITHM}
BOARDS = ("beginner", "intermediate")


def positions(spec: BoardSpec, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` grids (count, rows, cols) of games in progress, from uniform valid play, and their masks."""
    engine = BatchEngine(spec, count)
    engine.reset(seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(1, 12))):
        masks = engine.action_masks()
        engine.step(np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1))
    return engine.grids(), engine.action_masks()


def best_time(run: Callable[[], None], repeats: int = 3) -> float:
    """The median of ``repeats`` timings of ``run`` (after one untimed call)."""
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def sb3_bound(algo: str, model: Any, spec: BoardSpec) -> float:
    """Steps/s of one round of ``model``'s network passes alone (see the module docstring)."""
    policy = model.policy
    settings = SETTINGS[algo]
    envs = settings["num_envs"]
    grids, masks = positions(spec, max(envs, settings["batch_size"]))
    obs = th.as_tensor(grids, dtype=th.float32, device=model.device)
    mask_tensor = th.as_tensor(masks, device=model.device)
    actions = th.as_tensor(np.where(masks, np.random.default_rng(1).random(masks.shape), -1).argmax(axis=1))
    batch = settings["batch_size"]
    if algo == "dqn":
        def forward() -> None:
            with th.no_grad():
                policy.q_net(obs[:envs])

        def update() -> None:
            with th.no_grad():
                target = policy.q_net_target(obs[:batch]).amax(dim=1) + policy.q_net(obs[:batch]).amax(dim=1)
            current = policy.q_net(obs[:batch]).gather(1, actions[:batch, None]).squeeze(1)
            loss = F.smooth_l1_loss(current, target)
            policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 10.0)
            policy.optimizer.step()

        per_round = envs * settings["train_freq"]
        return per_round / (best_time(forward) + settings["gradient_steps"] * best_time(update))
    masked = algo == "maskable_ppo"

    def forward() -> None:
        with th.no_grad():
            if masked:
                policy(obs[:envs], action_masks=mask_tensor[:envs])
            else:
                policy(obs[:envs])

    def update() -> None:
        values, log_prob, entropy, _ = policy.evaluate_with_mines(
            obs[:batch], actions[:batch], mask_tensor[:batch] if masked else None
        )
        loss = -log_prob.mean() + 0.5 * values.square().mean() - 0.01 * entropy.mean()
        policy.optimizer.zero_grad()
        loss.backward()
        th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
        policy.optimizer.step()

    rollout = envs * settings["n_steps"]
    minibatches = settings["n_epochs"] * -(-rollout // batch)
    return rollout / (settings["n_steps"] * best_time(forward) + minibatches * best_time(update))


def sb3_trained(algo: str, preset: str, seconds: float, threads: int) -> tuple[float, float]:
    """(trained, bound) steps/s of an SB3 trainer on a preset (see the module docstring)."""
    algorithm = SB3[algo]
    config = algorithm.config_class(preset=preset, first_click="opening", **SETTINGS[algo], eval_games=0,
                                    checkpoint_every=0, progress_bar=False, torch_threads=threads)  # fmt: skip
    th.set_num_threads(threads)
    model = algorithm.build(config, make_vec_env(config))
    model.set_logger(configure(None, [""]))
    warm_up = SETTINGS[algo].get("learning_starts", 0) + 2 * config.num_envs * SETTINGS[algo].get("n_steps", 16)
    model.learn(warm_up)
    start, began = model.num_timesteps, time.monotonic()
    model.learn(10**9, callback=RunKeeper(Path("."), 0, RunClock(began), seconds / 60), reset_num_timesteps=False)
    trained = (model.num_timesteps - start) / (time.monotonic() - began)
    return trained, sb3_bound(algo, model, config.board_spec())


def rllib_trained(preset: str, seconds: float, threads: int) -> tuple[float, float]:
    """(trained, bound) steps/s of RLlib PPO on a preset."""
    import ray
    from ray.rllib.core.columns import Columns

    from train.rllib import make_env, module_spec
    from train.rllib.ppo import RLlibPPOConfig, build_algorithm

    settings = SETTINGS["rllib_ppo"]
    config = RLlibPPOConfig(preset=preset, first_click="opening", torch_threads=threads, **settings)
    th.set_num_threads(threads)
    ray.init(address="local", num_cpus=1, include_dashboard=False, configure_logging=False, log_to_driver=False,
             object_store_memory=200 * 1024**2)  # fmt: skip
    try:
        algorithm = build_algorithm(config)
        algorithm.train()
        counted = "num_env_steps_sampled_lifetime"
        steps = [int(algorithm.train()[counted])]
        began = time.monotonic()
        while time.monotonic() - began < seconds:
            steps.append(int(algorithm.train()[counted]))
        trained = (steps[-1] - steps[0]) / (time.monotonic() - began)
        algorithm.stop()
    finally:
        ray.shutdown()
    env = make_env(config.board_kwargs())
    spec = module_spec({"channels": config.channels, "layers": config.layers})
    spec.observation_space, spec.action_space = env.observation_space, env.action_space
    module = spec.build()
    optimizer = th.optim.Adam(module.parameters(), lr=7e-4)
    grids, masks = positions(config.board_spec(), settings["batch_size"])
    obs = {"observation": th.as_tensor(grids), "action_mask": th.as_tensor(masks.astype(np.int8))}

    def rows(count: int) -> dict[str, Any]:
        return {Columns.OBS: {key: value[:count] for key, value in obs.items()}}

    envs, batch, minibatch = settings["envs_per_runner"], settings["batch_size"], settings["minibatch_size"]

    def forward() -> None:
        with th.no_grad():
            module.forward_exploration(rows(envs))

    def values() -> None:
        with th.no_grad():
            module.compute_values(rows(batch))

    def update() -> None:
        out = module.forward_train(rows(minibatch))
        logits = out[Columns.ACTION_DIST_INPUTS]
        value = module.compute_values(rows(minibatch), embeddings=out[Columns.EMBEDDINGS])  # one trunk pass
        loss = -th.log_softmax(logits, dim=1).amax(dim=1).mean() + value.square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    per_round = batch / (batch // envs * best_time(forward) + best_time(values)
                         + settings["epochs"] * -(-batch // minibatch) * best_time(update))  # fmt: skip
    return trained, per_round


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trainers", default=",".join(SETTINGS), help="comma list of " + ", ".join(SETTINGS))
    parser.add_argument("--boards", default=",".join(BOARDS), help="comma list of presets")
    parser.add_argument("--seconds", type=float, default=8.0, help="wall time of each trainer's timed stretch")
    parser.add_argument("--torch-threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    trainers = [name for name in args.trainers.split(",") if name]
    unknown = sorted(set(trainers) - set(SETTINGS))
    if unknown:
        parser.error(f"unknown trainers {', '.join(unknown)}; choose among {', '.join(SETTINGS)}")
    rows = []
    print(f"| trainer | board | trained steps/s | bound steps/s | share | torch threads {args.torch_threads} |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for board in args.boards.split(","):
        for name in trainers:
            if name == "rllib_ppo":
                trained, bound = rllib_trained(board, args.seconds, args.torch_threads)
            else:
                trained, bound = sb3_trained(name, board, args.seconds, args.torch_threads)
            rows.append({"trainer": name, "board": board, "trained": round(trained), "bound": round(bound),
                         "share": round(trained / bound, 3), "torch_threads": args.torch_threads,
                         "settings": SETTINGS[name]})  # fmt: skip
            print(f"| {name} | {board} | {trained:,.0f} | {bound:,.0f} | {trained / bound:.0%} | |", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"seconds": args.seconds, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

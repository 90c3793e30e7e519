"""Oracle distillation on a stream of positions, for a GPU beside many CPU cores, in a wall-clock budget.

:mod:`train.distill` alternates collecting and training on one machine's CPU. Here both run at once: worker
processes play and label positions without pause (:func:`train.distill.stream_data.produce`: the oracle's play), the
network in training plays boards of its own whose positions a process pool labels (:class:`LearnerPlay`), and
the training loop draws minibatches from a ring of recent positions on the device. One or several trunks
(``--trunks dilated,iterated``) train side by side on the very same minibatches, which makes them a measured
comparison: :class:`train.sb3.networks.BoardFeatures` (dilated residual layers, global pooling),
:class:`train.distill.iterated_trunk.IteratedFeatures` (one block applied ``--passes`` times, the loss at several
depths, and with ``--progressive SHARE`` that share of it taken after a random number of passes without gradient and
a random number with it, so that it learns to improve any state it is handed and can run more passes when it plays:
``python -m eval.batched --passes``; ``--state-norm``: its state normalised after every pass) and
:class:`train.sb3.networks.TaperedFeatures` (normalised residual blocks tapering over ``--widths``).

The learning rate follows a cosine over the run's wall-clock budget (``--minutes``), after a short warm-up.
``--bf16`` (the default) runs the passes under bfloat16 autocast where the device runs it natively
(:func:`train.precision.native_bf16`: CUDA, or a CPU with AMX, where the expert network's training pass runs four
to five times as fast). ``--ema DECAY`` keeps a moving average of each trunk's weights
(:mod:`train.distill.averaged`), judged in the progress log beside it and saved as ``RUN_DIR/<trunk>_ema.zip``.
Every ``--checkpoint-minutes`` the run writes ``checkpoint.pt`` (weights, optimisers, step, samples, seconds
trained, the RNG states, the positions taken from the stream), and a SIGTERM or Ctrl-C stops it after the step in
hand with a checkpoint and its models (:mod:`train.stop_signal`); ``--resume RUN_DIR`` continues it where it
stopped, with a budget that counts the time already trained, and its workers play fresh games (their seeds
follow the resume count; the ring of positions is refilled, not saved, while the progress log's held-out
positions stay those of the first start, ``RUN_DIR/held_out.npz``). At the end each trunk is written as a
distilled model, ``RUN_DIR/<trunk>.zip`` with its card, which ``minesweeper eval --model`` plays.

Four levers, off by default (:mod:`train.distill.levers`): ``--mine-range LO,HI`` (the oracle's games hold mine
counts drawn per game, the network told each position's own count through its density plane), ``--targets
mines|both`` (the per-cell loss against the layout's true mines, or the mean of that and the exact one),
``--scatter SHARE`` (that share of the workers' positions are scattered boards, :mod:`train.distill.scattered`) and
``--per-position``, which averages the cell terms within each position first, so that an endgame counts as much as
an opening.

Run: ``python -m train.distill.stream --preset expert --device cuda --minutes 6 --producers 8``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing as mp
import queue
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO

from mine_env.engine.spec import BoardSpec
from train.command_line import add_config_arguments, config_from_args, report_run
from train.distill.averaged import WeightAverage
from train.distill.config import DistillConfig
from train.distill.data import Dataset
from train.distill.held_out import HELD_OUT, HELD_OUT_FILE, judge, load_held_out, save_held_out, split_held_out
from train.distill.iterated_trunk import IteratedFeatures
from train.distill.levers import board_density, lever_loss, produce_varied
from train.distill.network import new_model, start_from
from train.distill.stream_config import StreamConfig, torch_device
from train.distill.stream_data import Batch, LearnerPlay, PositionBuffer, produce
from train.precision import native_bf16
from train.progress_log import log_row, progress_line
from train.sb3.evaluation import save_model
from train.sb3.networks import MaskableConvActorCriticPolicy, TaperedFeatures
from train.sb3.vec_env import BatchVecEnv
from train.stop_signal import StopSignal, ignore_stop_signals, run_ignoring_stop_signals

LOG_SECONDS = 30.0
"""Seconds between two rows of the progress log, at least."""
HELD_OUT_SHARE = 0.1
"""Share of the wall clock the held-out check of the progress log may take: where a check is slow (a wide trunk on a
CPU core), the rows come further apart than :data:`LOG_SECONDS`."""
HELD_OUT_CHUNKS = 8
"""Chunks per worker the held-out positions are drawn from: a chunk holds a few moves of each of a worker's boards,
so a worker's first chunk alone is the games' openings (423 of expert's 480 cells hidden on average, against about
300 over its first eight), where a network's picks agree with the oracle's far more often than in the games it
plays."""


def build_model(config: StreamConfig, trunk: str, spec: BoardSpec) -> MaskablePPO:
    """A MaskablePPO model on ``spec`` whose actor is the ``trunk`` network (its value head stays unused)."""
    if trunk == "dilated":
        distill = DistillConfig(seed=config.seed, channels=config.channels, dilations=config.dilations,
                                pooled=config.pooled, device=config.device)  # fmt: skip
        return new_model(distill, spec)
    extractor: tuple[type, dict[str, Any]] = (
        (TaperedFeatures, {"widths": config.width_list(), "mines": spec.mines, "norm": config.tapered_norm})
        if trunk == "tapered"
        else (IteratedFeatures, {"channels": config.iterated_channels, "passes": config.passes, "mines": spec.mines,
                                 "state_norm": config.state_norm}))
    policy_kwargs = {"features_extractor_class": extractor[0], "features_extractor_kwargs": extractor[1]}
    return MaskablePPO(MaskableConvActorCriticPolicy, BatchVecEnv(spec, 1), n_steps=8, batch_size=8,
                       seed=config.seed, device=config.device, policy_kwargs=policy_kwargs)  # fmt: skip


def compile_trunk(policy: MaskableConvActorCriticPolicy) -> None:
    """Compile the passes of ``policy``'s trunk (``torch.compile``, static shapes: a graph for each batch size and
    grad mode the run uses): the iterated trunk's block, the others' whole trunk. Its weights stay where they are
    (the state dict, the checkpoint and the saved model do not change)."""
    extractor = policy.features_extractor
    name = "step" if isinstance(extractor, IteratedFeatures) else "trunk"
    setattr(extractor, name, th.compile(getattr(extractor, name), dynamic=False))


def trunk_logits(policy: MaskableConvActorCriticPolicy, grids: th.Tensor, loss_passes: Sequence[int],
                 density: th.Tensor | None = None) -> list[th.Tensor]:  # fmt: skip
    """The safety logits (N, cells) the loss is taken on: the iterated trunk's at each of ``loss_passes``, the
    dilated trunk's once; ``density`` (N,) overrides the density plane (positions of other mine counts)."""
    extractor, head = policy.features_extractor, policy.mlp_extractor.policy_head
    planes = extractor.input_planes(grids, density)
    if isinstance(extractor, IteratedFeatures):
        return [head(features) for features in extractor.stages(planes, loss_passes)]
    return [head(extractor.trunk(planes))]


def progressive_logits(policy: MaskableConvActorCriticPolicy, grids: th.Tensor, most: int,
                       rng: np.random.Generator, density: th.Tensor | None = None) -> th.Tensor:  # fmt: skip
    """The iterated trunk's safety logits after a random number of passes without gradient and then a random
    number with it, ``most`` passes at most in all (:meth:`agents.networks.trunks.IteratedTrunk.progressive`)."""
    extractor, head = policy.features_extractor, policy.mlp_extractor.policy_head
    frozen = int(rng.integers(0, most))
    trained = int(rng.integers(1, most - frozen + 1))
    return head(extractor.progressive(extractor.input_planes(grids, density), frozen, trained))


def scheduled_rate(config: StreamConfig, step: int, seconds: float) -> float:
    """Linear warm-up over ``warmup_steps``, then a cosine over the wall-clock budget down to 5%."""
    progress = min(1.0, seconds / (config.minutes * 60.0))
    rate = config.learning_rate * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * progress)))
    return rate * min(1.0, (step + 1) / max(config.warmup_steps, 1))


class StreamRun:
    """One run: its directory, models, optimisers, counters and the files it writes."""

    def __init__(self, config: StreamConfig, run_dir: Path, resume: dict[str, Any] | None) -> None:
        self.config = config
        self.run_dir = run_dir
        self.spec = config.board_spec()
        self.device = torch_device(config.device)
        self.bf16 = config.bf16 and native_bf16(self.device)  # autocast only where the device runs it natively
        self.names = config.trunk_list()
        self.models = {name: build_model(config, name, self.spec) for name in self.names}
        self.optimizers = {name: th.optim.Adam(self.parameters(name), lr=config.learning_rate) for name in self.names}
        self.step, self.samples, self.seconds, self.taken, self.resumes = 0, 0, 0.0, 0, 0
        th.manual_seed(config.seed)
        if resume is not None:
            self.load(resume)
        elif config.init:
            start_from(self.models["dilated"].policy, config.init, self.spec.mines)
        saved = {} if resume is None else resume.get("averages", {})  # a run that kept none starts one here
        self.averages = {name: WeightAverage(self.models[name].policy, config.ema, saved.get(name, {}).get("weights"),
                                             saved.get(name, {}).get("updates", 0))
                         for name in self.names} if config.ema else {}  # fmt: skip
        if config.compile:
            for model in self.models.values():
                compile_trunk(model.policy)
        self.samples_at_start = self.samples  # trained before this start: the refilled ring counts from here
        self.generator = th.Generator(device=self.device)
        self.generator.manual_seed(config.seed * 1_000_003 + self.resumes)
        self.rng = np.random.default_rng([config.seed, self.resumes, 17])  # the progressive loss's pass counts

    def parameters(self, name: str) -> list[th.nn.Parameter]:
        policy = self.models[name].policy
        return [*policy.features_extractor.parameters(), *policy.mlp_extractor.policy_head.parameters()]

    def train_step(self, batch: Batch) -> dict[str, th.Tensor]:
        """One optimiser step of every trunk on the same minibatch; returns each trunk's loss (on the device)."""
        config = self.config
        rate = scheduled_rate(config, self.step, self.seconds)
        grids = batch.grids
        flat_grids, flat_labels = grids.flatten(1), batch.labels.flatten(1)
        flat_truth = None if batch.truth is None else batch.truth.flatten(1)
        density = None if batch.counts is None else board_density(grids, batch.counts)
        losses: dict[str, th.Tensor] = {}

        def loss_of(logits: th.Tensor) -> th.Tensor:
            return lever_loss(logits.float(), flat_grids, flat_labels, flat_truth, config.targets,
                              config.revealed_weight, config.choice_weight, config.log_odds_weight,
                              config.per_position)  # fmt: skip

        for name in self.names:
            policy = self.models[name].policy
            progressive = config.progressive if isinstance(policy.features_extractor, IteratedFeatures) else 0.0
            with th.autocast(self.device.type, dtype=th.bfloat16, enabled=self.bf16):
                logits = trunk_logits(policy, grids, config.loss_pass_list(), density)
                late = progressive_logits(policy, grids, max(config.loss_pass_list()), self.rng, density) \
                    if progressive else None
            loss = sum(loss_of(each) for each in logits) / len(logits)
            if late is not None:
                loss = (1.0 - progressive) * loss + progressive * loss_of(late)
            optimizer = self.optimizers[name]
            for group in optimizer.param_groups:
                group["lr"] = rate
            optimizer.zero_grad(set_to_none=True)
            loss.backward()  # type: ignore[union-attr]
            th.nn.utils.clip_grad_norm_(self.parameters(name), 1.0)
            optimizer.step()
            if name in self.averages:
                self.averages[name].update()
            losses[name] = loss.detach()  # type: ignore[union-attr]  (read at log time: no sync each step)
        self.step += 1
        self.samples += len(grids)
        return losses

    def drop_diverged(self, losses: dict[str, float]) -> None:
        """Stop training a trunk whose loss is no longer finite (the others go on); it is not saved."""
        for name, loss in losses.items():
            if not np.isfinite(loss) and len(self.names) > 1:
                print(f"{name}: loss {loss} at step {self.step}: dropped", flush=True)
                self.names = tuple(other for other in self.names if other != name)

    def scorer(self, name: str) -> Any:
        """The trunk's safety logits of a batch of numpy grids, as numpy: how it plays (the iterated trunk with
        its ``passes``); ``counts`` (N,), where given, are the grids' own mine counts."""
        policy = self.models[name].policy
        extractor, head = policy.features_extractor, policy.mlp_extractor.policy_head

        def scores(grids: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
            with th.no_grad(), th.autocast(self.device.type, dtype=th.bfloat16, enabled=self.bf16):
                grids_t = th.as_tensor(grids, device=self.device)
                density = None if counts is None else board_density(grids_t, th.as_tensor(counts, device=self.device))
                logits = head(extractor.trunk(extractor.input_planes(grids_t, density)))
            return logits.float().cpu().numpy()

        return scores

    def held_out(self, grids: np.ndarray, labels: np.ndarray, counts: np.ndarray | None = None) -> dict[str, float]:
        """Each trunk's mean absolute error of the mine chance over hidden cells, and how often its pick is one of
        the oracle's safest cells (``counts``: the positions' mine counts, where they vary)."""
        out: dict[str, float] = {}
        if not len(grids):
            return out
        for name in self.names:
            out.update(_named(name, judge(self.scorer(name), grids, labels, counts)))
            if name in self.averages:
                with self.averages[name].applied():
                    out.update(_named(f"{name}_ema", judge(self.scorer(name), grids, labels, counts)))
        return out

    def state(self) -> dict[str, Any]:
        return {"step": self.step, "samples": self.samples, "seconds": self.seconds, "taken": self.taken,
                "resumes": self.resumes, "config": dataclasses.asdict(self.config),
                "models": {name: self.models[name].policy.state_dict() for name in self.names},
                "optimizers": {name: self.optimizers[name].state_dict() for name in self.names},
                "torch_rng": th.get_rng_state(),
                "averages": {name: {"weights": average.state_dict(), "updates": average.updates}
                             for name, average in self.averages.items()}}  # fmt: skip

    def save_checkpoint(self) -> None:
        path = self.run_dir / "checkpoint.pt"
        partial = path.with_suffix(".partial")
        th.save(self.state(), partial)
        partial.replace(path)

    def load(self, state: dict[str, Any]) -> None:
        self.names = tuple(name for name in self.names if name in state["models"]) or self.names
        for name in self.names:
            if name not in state["models"]:
                raise ValueError(f"the checkpoint holds no {name!r} trunk (it has {', '.join(state['models'])})")
            self.models[name].policy.load_state_dict(state["models"][name])
            self.optimizers[name].load_state_dict(state["optimizers"][name])
        self.step, self.samples, self.seconds = state["step"], state["samples"], state["seconds"]
        self.taken, self.resumes = state["taken"], state["resumes"] + 1
        th.set_rng_state(state["torch_rng"])

    def save_models(self, evaluation: dict[str, float]) -> None:
        """Write each trunk as a distilled model, ``<trunk>.zip``, and its average as ``<trunk>_ema.zip`` where
        one is kept, each with its figures of ``evaluation`` (:meth:`held_out`) on its card."""
        for name in self.names:
            self._save_model(name, name, evaluation)
            if name in self.averages:
                with self.averages[name].applied():
                    self._save_model(name, f"{name}_ema", evaluation)

    def _save_model(self, name: str, saved: str, evaluation: dict[str, float]) -> None:
        model = self.models[name]
        model.num_timesteps = self.samples
        figures = {key: evaluation[key] for key in (f"{saved}_error", f"{saved}_safest") if key in evaluation}
        save_model(model, self.run_dir / f"{saved}.zip", "distill", self.config, {"held_out": figures})


def run(config: StreamConfig, resume: Path | None = None) -> Path:
    """Train as the module docstring says; returns the run directory."""
    config.validate()
    th.set_num_threads(config.torch_threads)
    state = None
    if resume is not None:
        state = th.load(resume / "checkpoint.pt", map_location="cpu", weights_only=False)
        run_dir = resume
    else:
        name = config.run_name or f"distill-stream-{config.board_spec().rows}x{config.board_spec().cols}-" \
                                  f"{config.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
        run_dir = Path(config.runs_dir) / name
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    context = mp.get_context("spawn")
    stop = context.Event()
    stream = context.Queue(maxsize=4 * max(config.producers, 1))
    seed_base = config.seed * 7919 + (0 if state is None else (state["resumes"] + 1) * 104_729)
    spec = config.board_spec()
    board = (spec.rows, spec.cols, spec.mines, spec.first_click)
    target, levers = oracle_worker(config)
    workers = [context.Process(target=run_ignoring_stop_signals,
                               args=(target, board, seed_base + i, config.producer_boards, config.explore,
                                     config.chunk, *levers, stream, stop), daemon=True)
               for i in range(config.producers)]  # fmt: skip
    for worker in workers:
        worker.start()
    pool = ProcessPoolExecutor(config.learner_workers, mp_context=context, initializer=ignore_stop_signals) \
        if config.learner_boards else None  # fmt: skip
    try:
        with StopSignal() as stop_signal:
            return _train(StreamRun(config, run_dir, state), stream, pool, seed_base, stop_signal)
    finally:
        stop.set()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.kill()  # it ignores SIGTERM


def oracle_worker(config: StreamConfig) -> tuple[Callable[..., None], tuple[Any, ...]]:
    """What the oracle's worker processes run, and the arguments the levers add: the plain worker
    (:func:`train.distill.stream_data.produce`) unless a lever is on (:func:`train.distill.levers.produce_varied`)."""
    mine_range, truth = config.mine_bounds(), config.targets != "exact"
    if mine_range or truth or config.scatter:
        return produce_varied, (mine_range, truth, config.scatter)
    return produce, ()


def _train(run: StreamRun, stream: Any, pool: ProcessPoolExecutor | None, seed_base: int,
           stop_signal: StopSignal) -> Path:
    config, spec = run.config, run.spec
    truth = config.targets != "exact"
    buffer = PositionBuffer(config.buffer, spec.rows, spec.cols, run.device, run.generator,
                            config.seed * 1_000_003 + run.resumes,  # a resume draws afresh: its ring is new too
                            truth, spec.mines if config.mine_bounds() else None)  # fmt: skip
    held: tuple[Any, ...]  # grids, labels and (where they vary) the mine counts of the positions held out
    if config.dataset:  # its last positions are held out; training starts on the rest while the workers warm up
        dataset = Dataset.load(config.dataset)
        dataset.check_board(spec, config.dataset)
        size = min(HELD_OUT, len(dataset) // 2)
        held = (dataset.grids[-size:], dataset.labels[-size:])
        buffer.add(dataset.grids[:-size], dataset.labels[:-size])
    else:
        held = _hold_out(run, buffer, stream)
    learner = LearnerPlay(spec, config.learner_boards, seed_base + 99_991, config.explore, pool,
                          config.mark_above or None, truth, config.learner_rescue) if pool else None  # fmt: skip
    while buffer.size < config.batch_size:
        buffer.add(*stream.get())
        run.taken += 1
    progress = run.run_dir / "progress.csv"
    began, last_checkpoint, last_log = time.perf_counter() - run.seconds, time.perf_counter(), 0.0
    log_every = LOG_SECONDS
    print(f"{run.run_dir}: training {', '.join(run.names)} on {run.device} for {config.minutes} min", flush=True)
    while run.seconds < config.minutes * 60.0 and not stop_signal.received:
        _feed(run, buffer, stream, learner)
        losses = run.train_step(buffer.sample(config.batch_size, marks=config.mark_above > 0))
        run.seconds = time.perf_counter() - began
        if run.seconds - last_log >= log_every or run.seconds >= config.minutes * 60.0:
            last_log, checked = run.seconds, time.perf_counter()
            values = {name: float(loss) for name, loss in losses.items()}
            row = {"step": run.step, "samples": run.samples, "seconds": round(run.seconds, 1),
                   "positions": buffer.added, **({"rescued": learner.rescued} if learner and learner.rescue else {}),
                   **{f"{n}_loss": v for n, v in values.items()},
                   **run.held_out(*held)}  # fmt: skip
            _log(progress, row)
            log_every = max(LOG_SECONDS, (time.perf_counter() - checked) / HELD_OUT_SHARE)
            run.drop_diverged(values)
        if time.perf_counter() - last_checkpoint >= config.checkpoint_minutes * 60.0:
            run.save_checkpoint()
            last_checkpoint = time.perf_counter()
    run.save_checkpoint()
    if stop_signal.received:
        print(f"step {run.step:,}: {stop_signal.received}; resume with --resume {run.run_dir}", flush=True)
    run.save_models(run.held_out(*held))
    return run.run_dir


def _named(name: str, figures: dict[str, float]) -> dict[str, float]:
    """``figures`` keyed as the progress log's columns: ``<name>_error``, ``<name>_safest``."""
    return {f"{name}_{key}": value for key, value in figures.items()}


def _hold_out(run: StreamRun, buffer: PositionBuffer, stream: Any) -> tuple[Any, ...]:
    """The run's held-out positions: those its first start saved in :data:`HELD_OUT_FILE`, or, at that first
    start, :data:`HELD_OUT` spread over the stream's first :data:`HELD_OUT_CHUNKS` chunks a worker, saved there (the
    chunks' other positions go to the ring)."""
    path = run.run_dir / HELD_OUT_FILE
    if path.exists():
        return load_held_out(path)
    chunks = [stream.get() for _ in range(HELD_OUT_CHUNKS * max(1, run.config.producers))]
    held, rest = split_held_out(chunks)
    save_held_out(path, held)
    buffer.add(*rest)
    run.taken += len(chunks)
    return held


def _feed(run: StreamRun, buffer: PositionBuffer, stream: Any, learner: LearnerPlay | None) -> None:
    """Take from the stream while the ring has given fewer than 1/reuse positions per sample trained since this
    start (a resumed run's ring starts empty), and move the learner's boards every ``learner_every`` steps."""
    config = run.config
    if learner is not None:
        if run.step % config.learner_every == 0:
            learner.step(run.scorer(run.names[0]))
        for chunk in learner.harvest():
            buffer.add(*chunk)
    while buffer.added * config.reuse < run.samples - run.samples_at_start + config.batch_size:
        try:
            chunk = stream.get(timeout=0.0 if buffer.size >= config.batch_size else 5.0)
        except queue.Empty:  # the workers are behind: train on what the ring holds
            return
        buffer.add(*chunk)
        run.taken += 1


def _log(path: Path, row: dict[str, float]) -> None:
    log_row(path, row)
    print(progress_line(row), flush=True)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog or "python -m train.distill.stream",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    add_config_arguments(parser, StreamConfig)
    parser.add_argument("--resume", type=Path, help="continue the run in this directory from its checkpoint.pt "
                                                    "(its config.json is the base the options given override)")
    args = parser.parse_args(argv)

    def start() -> Path:
        base = None
        if args.resume is not None:
            if not (args.resume / "checkpoint.pt").is_file():
                raise FileNotFoundError(f"--resume {args.resume}: no checkpoint.pt there")
            base = StreamConfig(**json.loads((args.resume / "config.json").read_text()))
        return run(config_from_args(StreamConfig, args, base), args.resume)

    return report_run(parser, start)


if __name__ == "__main__":
    sys.exit(main())

"""Oracle distillation on a stream of positions, for a GPU beside many CPU cores, in a wall-clock budget.

:mod:`train.distill.rounds` alternates collecting and training on one machine's CPU. Here both run at once: worker
processes play and label positions without pause (:func:`train.distill.stream.data.produce`: the oracle's play), the
network in training plays boards of its own whose positions a process pool labels (:class:`LearnerPlay`), and
the training loop draws minibatches from a ring of recent positions on the device
(:class:`train.distill.stream.trainer.StreamRun`). One or several trunks (``--trunks dilated,iterated``) train side
by side on the very same minibatches, which makes them a measured comparison: :class:`agents.networks.trunks.BoardTrunk`
(dilated residual layers, global pooling), :class:`agents.networks.trunks.IteratedTrunk` (one block applied
``--passes`` times, the loss at several depths, and with ``--progressive SHARE`` that share of it taken after a
random number of passes without gradient and a random number with it, so that it learns to improve any state it is
handed and can run more passes when it plays: ``python -m eval.batched --passes``; ``--state-norm``: its state
normalised after every pass) and :class:`agents.networks.trunks.TaperedTrunk` (normalised residual blocks tapering
over ``--widths``).

The learning rate follows a cosine over the run's wall-clock budget (``--minutes``), after a short warm-up.
``--bf16`` (the default) runs the passes under bfloat16 autocast where the device runs it natively
(:func:`train.precision.native_bf16`: CUDA, or a CPU with AMX or AVX512-BF16; with AMX the expert network's
training pass runs four to five times as fast). ``--ema DECAY`` keeps a moving average of each trunk's weights
(:mod:`train.weight_average`), judged in the progress log beside it and saved as ``RUN_DIR/<trunk>_ema``.
Every ``--checkpoint-minutes`` the run writes ``checkpoint.pt`` (weights, optimisers, step, samples, seconds
trained, the RNG states, the positions taken from the stream), and a SIGTERM or Ctrl-C stops it after the step in
hand with a checkpoint and its models (:mod:`train.stop_signal`); ``--resume RUN_DIR`` continues it where it
stopped, with a budget that counts the time already trained, and its workers play fresh games (their seeds
follow the resume count; the ring of positions is refilled, not saved, while the progress log's held-out
positions stay those of the first start, ``RUN_DIR/held_out.npz``). At the end each trunk is written as a
distilled model in the model format, ``RUN_DIR/<trunk>.pt`` with its card ``<trunk>.json``, which ``minesweeper
eval --model`` plays.

Four levers, off by default (:mod:`train.distill.stream.levers`): ``--mine-range LO,HI`` (the oracle's games hold
mine counts drawn per game, the network told each position's own count through its density plane), ``--targets
mines|both`` (the per-cell loss against the layout's true mines, or the mean of that and the exact one),
``--scatter SHARE`` (that share of the workers' positions are scattered boards,
:mod:`train.distill.stream.scattered`) and ``--per-position``, which averages the cell terms within each position
first, so that an endgame counts as much as an opening.

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

import torch as th

from train.command_line import add_config_arguments, config_from_args, report_run
from train.distill.data import Dataset
from train.distill.stream.config import StreamConfig
from train.distill.stream.data import LearnerPlay, PositionBuffer, produce
from train.distill.stream.held_out import HELD_OUT, HELD_OUT_FILE, load_held_out, save_held_out, split_held_out
from train.distill.stream.levers import produce_varied
from train.distill.stream.trainer import StreamRun
from train.progress_log import log_row, progress_line
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
    (:func:`train.distill.stream.data.produce`) unless a lever is on
    (:func:`train.distill.stream.levers.produce_varied`)."""
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

"""The design card's comparison: masked DQN, PPO and MaskablePPO trained from scratch on one board with one budget of
environment steps shared by the three, each run started or resumed here for a stretch of wall time.

Each board's settings (:data:`BOARDS`) are the budget and, per trainer, the options of a new run: a network sized for
the board, the same seed, the same fixed evaluation set and cadence, so the runs' learning curves (``eval/win_rate``
against steps and against ``time/wall_seconds``) compare on the same games. A call trains the runs still short of
the budget, the furthest behind first, ``--parallel`` at a time on one torch thread each (one per core), for
``--minutes``; every run checkpoints and resumes, so the comparison fills up over as many calls as the budget takes.
A run in training is locked (``RUN.lock`` beside its folder), so a second call beside the first trains the others.

A board with a smaller board below it (:attr:`Board.below`) also has curriculum runs, ``ALGO-from-BELOW``: DQN and
MaskablePPO started from the best model of the same algorithm on the board below (``--init``, its whole network:
:mod:`train.sb3.curriculum`), the curriculum run there if it has one (a chain: beginner, intermediate, expert),
and trained toward the same budget, so each curve shows what the smaller boards' steps buy. They start once that
model exists; PPO without masks is left out of them.

Run: ``python studies/rl_comparison.py --board intermediate --minutes 120`` (``--status`` shows where each run is,
``--curves comparison.png`` draws the board's learning curves).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fcntl
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from train.plot_curves import plot_runs
from train.progress_log import logged, read_log
from train.sb3.checkpoints import LATEST

EVALUATION = ["--eval-games", "500", "--eval-seed", "10000019", "--torch-threads", "1", "--first-click", "opening",
              "--bf16"]  # fmt: skip
"""Every run's fixed evaluation set, one torch thread (a core each), and bf16 where the CPU runs it natively (1.6
times the steps a second on AVX512-BF16: docs/lab/2026-12-05-masks-and-the-anchor-recipe.md; float32 elsewhere)."""

PPO_FAMILY = [
    "--seed", "1", "--channels", "32", "--mine-coef", "0.5", "--gamma", "0.75", "--gae-lambda", "0.9",
    "--ent-coef", "0.001", "--learning-rate", "5e-4", "--n-steps", "32", "--num-envs", "64", "--batch-size", "256",
    "--n-epochs", "4",
]  # fmt: skip
"""PPO and MaskablePPO alike (the masks are the difference): the true-mine head beside the policy, the shaped
return of the shipped MaskablePPO (gamma 0.75, 0.01 a revealed cell)."""

DQN = [
    "--seed", "1", "--channels", "32", "--num-envs", "16", "--batch-size", "64", "--gradient-steps", "1",
    "--learning-starts", "5000", "--buffer-size", "100000", "--learning-rate", "2.5e-4", "--exploration-fraction",
    "0.01", "--mine-coef", "0.5", "--mine-prior", "--advantage-bound", "0.05",
]  # fmt: skip
"""The shipped DQN's recipe (masked double DQN, one minibatch of 64 per step of 16 boards) with the true-mine head,
as the PPO family has it, its Q-values composed from the head (``--mine-prior``) and the return if safe held within
0.05 of its board mean (``--advantage-bound``)."""


RATE_DROPS = ((1 / 3, 5.0), (2 / 3, 10.0))
"""Every run's learning rate steps down late (``--lr-drops``): at each share of the board's budget, to its first rate
divided by the figure (DQN 2.5e-4, 5e-5, 2.5e-5; PPO 5e-4, 1e-4, 5e-5). The DQN runs rose each time their rate was
lowered by hand like this; the rate is a function of the step, so a run resumed before a drop takes it as if it had
been set from the start."""

CURRICULUM = {"dqn": ["--exploration-initial-eps", "0.1"], "maskable_ppo": []}
"""The algorithms of the curriculum runs, and what their options add to those of the run they start from: DQN's
exploration starts at 0.1 (a trained policy, not a random one, fills the first replay buffer)."""

FROM = "-from-"
"""Joins a curriculum run's algorithm and the board it starts from: ``dqn-from-beginner``."""


def algo_of(trainer: str) -> str:
    """The algorithm of a comparison run: ``dqn`` for ``dqn`` and for ``dqn-from-beginner``."""
    return trainer.split(FROM)[0]


@dataclasses.dataclass(frozen=True)
class Board:
    """One board's comparison: its step budget and, per trainer, the options of a new run."""

    budget: int
    runs: dict[str, list[str]]
    every: int
    """Steps between two evaluations (and checkpoints)."""
    below: str | None = None
    """The board whose models start this one's curriculum runs (None: no curriculum runs)."""

    @property
    def trainers(self) -> list[str]:
        """The runs compared: every algorithm from scratch, then the curriculum runs."""
        curriculum = [f"{algo}{FROM}{self.below}" for algo in CURRICULUM if self.below is not None]
        return [*self.runs, *curriculum]

    def options(self, trainer: str, preset: str, run_dir: Path) -> list[str]:
        """The command-line options of a new run of ``trainer``; ValueError when a curriculum run's model on the
        board below does not exist yet."""
        cadence = ["--eval-every", str(self.every), "--checkpoint-every", str(min(self.every, 100_000))]
        place = ["--runs-dir", str(run_dir.parent), "--run-name", run_dir.name]
        start = [] if trainer == algo_of(trainer) else self.curriculum_options(trainer, run_dir.parent)
        return ["--preset", preset, "--steps", str(self.budget), *self.network_options(trainer), *start,
                "--lr-drops", self.lr_drops(trainer), *EVALUATION, *cadence, *place]  # fmt: skip

    def lr_drops(self, trainer: str) -> str:
        """``trainer``'s ``--lr-drops`` on this board: :data:`RATE_DROPS` of its first rate and this budget."""
        options = self.network_options(trainer)
        rate = float(options[options.index("--learning-rate") + 1])
        return ",".join(f"{round(self.budget * share)}:{rate / divisor:g}" for share, divisor in RATE_DROPS)

    def network_options(self, trainer: str) -> list[str]:
        """The options of ``trainer``'s network (and recipe): its own from scratch, its source's in a curriculum."""
        algo = algo_of(trainer)
        if trainer == algo:
            return self.runs[algo]
        assert self.below is not None
        return BOARDS[self.below].network_options(self.source_trainer(algo))

    def source_trainer(self, algo: str) -> str:
        """The run on the board below that this board's ``algo`` curriculum run starts from: the board below's own
        curriculum run where it has one (beginner, intermediate, expert in a chain), else its run from scratch."""
        assert self.below is not None
        below = BOARDS[self.below].below
        return algo if below is None else f"{algo}{FROM}{below}"

    def source(self, trainer: str, runs_dir: Path) -> Path | None:
        """The model a curriculum run starts from (None for a run from scratch)."""
        algo = algo_of(trainer)
        if trainer == algo or self.below is None:
            return None
        return run_folder(runs_dir, self.below, self.source_trainer(algo)) / "best_model.zip"

    def curriculum_options(self, trainer: str, runs_dir: Path) -> list[str]:
        """What a curriculum run adds: ``--init`` its source's best model, and :data:`CURRICULUM`'s options."""
        source = self.source(trainer, runs_dir)
        assert source is not None
        if not source.is_file():
            raise ValueError(f"{trainer} starts from {source}, which does not exist yet: train the {self.below} "
                             f"runs first (--board {self.below})")  # fmt: skip
        return ["--init", str(source), *CURRICULUM[algo_of(trainer)]]


BOARDS: dict[str, Board] = {
    "beginner": Board(3_000_000, {"dqn": [*DQN, "--layers", "5"], "ppo": [*PPO_FAMILY, "--layers", "4"],
                                  "maskable_ppo": [*PPO_FAMILY, "--layers", "4"]}, every=250_000),
    "intermediate": Board(3_000_000, {"dqn": [*DQN, "--layers", "5"], "ppo": [*PPO_FAMILY, "--layers", "5"],
                                      "maskable_ppo": [*PPO_FAMILY, "--layers", "5"]}, every=100_000,
                          below="beginner"),
    "expert": Board(1_000_000, {"dqn": [*DQN, "--layers", "6"], "ppo": [*PPO_FAMILY, "--layers", "6"],
                                "maskable_ppo": [*PPO_FAMILY, "--layers", "6"]}, every=50_000,
                    below="intermediate"),
}  # fmt: skip
"""The budget per board (as much as two shared cores give over a few days of sessions: millions of steps where
the board's games are short) and the networks: a 3x3 trunk whose view widens with the board, 32 channels (a
curriculum run keeps the network of the run it starts from)."""


@dataclasses.dataclass(frozen=True)
class RunState:
    """Where one run of the comparison stands, from its files."""

    trainer: str
    """The run's name on its board: an algorithm (from scratch) or a curriculum run, ``dqn-from-beginner``."""
    folder: Path
    steps: int
    win_rate: float | None
    """The last ``eval/win_rate`` logged (None before the first evaluation)."""
    safe_fraction: float | None = None
    """The last ``eval/safe_fraction`` logged (None before the first, or in a log from before it was logged)."""
    busy: bool = False
    """Another call is training it now."""

    @property
    def algo(self) -> str:
        return algo_of(self.trainer)

    @property
    def started(self) -> bool:
        return (self.folder / LATEST).is_file()


def run_folder(runs_dir: Path, preset: str, trainer: str) -> Path:
    return runs_dir / f"{preset}-{trainer}"


def read_state(runs_dir: Path, preset: str, trainer: str) -> RunState:
    """A run's steps and last evaluation, from its log (rows past the checkpoint are dropped when it resumes)."""
    folder = run_folder(runs_dir, preset, trainer)
    rows = read_log(folder / "logs" / "progress.csv")
    steps = int(max(logged(rows, "time/total_timesteps"), default=0))
    win_rate = (logged(rows, "eval/win_rate") or [None])[-1]
    safe_fraction = (logged(rows, "eval/safe_fraction") or [None])[-1]
    return RunState(trainer, folder, steps, win_rate, safe_fraction, busy=is_locked(folder))


def lock_file(folder: Path) -> Path:
    return folder.with_name(f"{folder.name}.lock")


def try_lock(folder: Path) -> IO[str] | None:
    """Take the run's lock (held while the returned file stays open), or None if another process holds it."""
    handle = lock_file(folder).open("a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


def is_locked(folder: Path) -> bool:
    if not lock_file(folder).is_file():
        return False
    handle = try_lock(folder)
    if handle is not None:
        handle.close()
    return handle is None


def to_train(states: list[RunState], budget: int, parallel: int) -> list[RunState]:
    """The runs a call trains: those short of the budget and not in training elsewhere, the furthest behind
    first, at most ``parallel``."""
    short = [state for state in states if state.steps < budget and not state.busy]
    return sorted(short, key=lambda state: (state.steps, state.trainer))[:parallel]


@contextlib.contextmanager
def locked(folders: list[Path]) -> Iterator[list[Path]]:
    """Hold the locks of the runs of ``folders`` that no other call holds; yields those folders."""
    with contextlib.ExitStack() as stack:
        held = []
        for folder in folders:
            folder.parent.mkdir(parents=True, exist_ok=True)
            handle = try_lock(folder)
            if handle is not None:
                stack.callback(handle.close)
                held.append(folder)
        yield held


def command(state: RunState, board: Board, preset: str, minutes: float) -> list[str]:
    """The trainer's command line: a new run, or the run's resume toward the budget."""
    trainer = [sys.executable, "-m", f"train.sb3.{state.algo}"]
    if state.started:
        return [*trainer, "--resume", str(state.folder), "--steps", str(board.budget),
                "--lr-drops", board.lr_drops(state.trainer), "--minutes", str(minutes)]  # fmt: skip
    if state.folder.exists() and any(state.folder.iterdir()):
        raise ValueError(f"{state.folder} holds a run without a checkpoint: move it aside, then call again")
    return [*trainer, *board.options(state.trainer, preset, state.folder), "--minutes", str(minutes)]


def can_start(board: Board, state: RunState, runs_dir: Path) -> bool:
    """Whether a new run of ``state`` can start: from scratch always, a curriculum run once its model exists."""
    source = board.source(state.trainer, runs_dir)
    return source is None or source.is_file()


def train_stretch(commands: dict[Path, list[str]]) -> int:
    """Run the trainers side by side, each writing to ``RUN.log`` beside its folder; SIGTERM is passed on to them
    (each stops with a checkpoint). The worst exit status."""
    processes = []
    for folder, line in commands.items():
        with folder.with_suffix(".log").open("a") as log:
            processes.append(subprocess.Popen(line, stdout=log, stderr=subprocess.STDOUT))
    previous = signal.signal(signal.SIGTERM, lambda number, frame: [p.send_signal(number) for p in processes])
    try:
        return max((process.wait() for process in processes), default=0)
    except KeyboardInterrupt:  # Ctrl-C reached the trainers too: each stops with a checkpoint
        return max((process.wait() for process in processes), default=0)
    finally:
        signal.signal(signal.SIGTERM, previous)


def status_table(states: list[RunState], budget: int) -> str:
    lines = [f"| trainer | steps of {budget:,} | last evaluation | folder |", "| --- | ---: | ---: | --- |"]
    for state in states:
        rate = "-" if state.win_rate is None else f"{state.win_rate:.1%}"
        rate += "" if state.safe_fraction is None else f" ({state.safe_fraction:.1%} of the safe cells)"
        folder = f"{state.folder} (in training)" if state.busy else str(state.folder)
        lines.append(f"| {state.trainer} | {state.steps:,} | {rate} | {folder} |")
    return "\n".join(lines)


def draw_curves(states: list[RunState], out: Path, parser: argparse.ArgumentParser) -> None:
    """The learning curves of the runs that have logged (:func:`train.plot_curves.plot_runs`), in the board's order."""
    logged_runs = [state.folder for state in states if state.steps > 0]
    if not logged_runs:
        parser.error(f"no run of this board has logged a step yet under {states[0].folder.parent}: train first")
    plot_runs(logged_runs, out)
    print(f"wrote {out}: {', '.join(folder.name for folder in logged_runs)}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", choices=sorted(BOARDS), required=True, help="the preset compared on")
    parser.add_argument("--minutes", type=float, default=60.0, help="wall time of this stretch of every run trained")
    parser.add_argument("--parallel", type=int, default=2, help="runs trained at once, one core each")
    parser.add_argument("--runs-dir", type=Path, default=Path("runs/comparison"), help="where the runs live")
    parser.add_argument("--status", action="store_true", help="only show where each run stands")
    curves_help = "draw the board's runs' learning curves to this PNG (before training anything)"
    parser.add_argument("--curves", type=Path, metavar="PNG", help=curves_help)
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.parallel < 1:
        parser.error("--minutes must be above 0 and --parallel at least 1")
    board = BOARDS[args.board]
    states = [read_state(args.runs_dir, args.board, trainer) for trainer in board.trainers]
    print(status_table(states, board.budget), flush=True)
    if args.curves is not None:
        draw_curves(states, args.curves, parser)
    waiting = [state for state in states if not state.started and not can_start(board, state, args.runs_dir)]
    for state in waiting:
        print(f"{state.trainer} waits for {board.source(state.trainer, args.runs_dir)} (--board {board.below})")
    ready = [state for state in states if state not in waiting]
    chosen = [] if args.status else to_train(ready, board.budget, args.parallel)
    if not chosen:
        return 0
    with locked([state.folder for state in chosen]) as held:
        try:
            commands = {state.folder: command(state, board, args.board, args.minutes)
                        for state in chosen if state.folder in held}  # fmt: skip
        except ValueError as error:
            parser.error(str(error))
        print(f"training {', '.join(state.trainer for state in chosen if state.folder in held)} for "
              f"{args.minutes:g} minutes", flush=True)  # fmt: skip
        status = train_stretch(commands)
    print(status_table([read_state(args.runs_dir, args.board, trainer) for trainer in board.trainers], board.budget))
    return status


if __name__ == "__main__":
    sys.exit(main())

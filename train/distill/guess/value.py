"""Train the guess-value head (:mod:`agents.guess_value`) by reinforcement, from Monte-Carlo returns.

The returns come from :func:`train.distill.guess.returns.rollout_guesses` at the tie margin: at each true guess of
a ``solver-fast`` game every tied safest cell (at most ``--max-candidates``, ``solver-fast``'s pick always among
them) is revealed on a copy of the game, which ``solver-fast`` plays on to its end; its return is 1 when that copy
is won. The head learns, for the candidates that were safe on the position's layout, the chance that the game is
then won (binary cross-entropy on those returns): a mine candidate teaches nothing about what a cell leads to, and
its chance of being a mine is the same for every tied cell. The copies of one position share its layout, so its
candidates' returns are a paired comparison; a second loss (``--rank-weight``) uses it: of two safe candidates of
one position whose games ended apart, the won one is to score above the lost one.

With ``--player solver`` the same is done over the default solver: its games and, at each guess where it weighs
two or more candidates, every cell of its shortlist played out by it
(:func:`train.distill.guess.returns.rollout_shortlist`); the head also reads what the solver saw in each
candidate. That is the head of the ``solver-value`` agent (:mod:`agents.solver_value`), which weighs each
candidate's learnt value by its exact chance of being safe.

The games are played in chunks of ``--chunk-games``, each saved under the run directory as it is done, by
``--workers`` processes; ``--resume`` keeps the chunks already there (refused when their games were made with
other settings), so an interrupted run collects only the rest. Training the head is then a few minutes on a CPU;
the head is written as ``head.npz`` (the agent's format) and its held-out loss and share of held-out won-lost
pairs ordered right, per epoch, to ``progress.csv``; then how its picks fare on the held-out positions against
the playing policy's, judged by the candidates' own returns (:func:`held_out_picks`, printed and kept in the
head's ``about``).

With ``--mix RUN,RUN,...`` no game is played: one head is trained on the chunks of several finished runs, each of its
own board (a head for every board), each run holding out its own last positions and judged on them apart. The head's
card, ``head.json`` beside ``head.npz``, says what it was trained on and how its held-out picks fared.

Usage::

    python -m train.distill.guess.value --preset intermediate --games 1200000 --workers 2 \\
        --run-name guess-value-intermediate
    python -m train.distill.guess.value --player solver --preset expert --games 100000 --chunk-games 2000 \\
        --workers 1 --run-name solver-value-expert
    python -m train.distill.guess.value --mix runs/gv-beginner,runs/gv-intermediate,runs/gv-expert \\
        --run-name guess-value-mix
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch as th
import torch.nn.functional as F

from agents.guess_value import FEATURES, ValueHead, candidate_features
from agents.solver.guess import MAX_CANDIDATES
from agents.solver.outlook import TIE_TOLERANCE
from mine_env.engine.spec import BoardSpec
from train.command_line import config_script
from train.distill.guess.returns import NO_CANDIDATE, GuessReturns, load_returns, rollout_guesses, rollout_shortlist
from train.options import BoardOptions, at_least, option
from train.progress_log import log_row, progress_line

PLAYERS = ("fast", "solver")
"""Whose guesses a run plays out (``--player``)."""


@dataclass
class GuessValueConfig(BoardOptions):
    """Settings of a guess-value run (``--option-name`` on the command line)."""

    player: str = option(
        "fast",
        "Whose guesses are played out: fast (solver-fast's, every tied safest cell, the guess-value head) or "
        "solver (the default solver's, every cell of its shortlist, played on by it: the solver-value head).",
    )
    games: int = option(1_200_000, "Games whose true guesses are played out.")
    chunk_games: int = option(50_000, "Games a saved chunk (the unit a resumed run skips).")
    workers: int = option(2, "Processes playing the chunks.")
    max_candidates: int = option(
        8,
        "fast: at most this many tied cells played out a guess (solver-fast's pick and a uniform draw of the "
        "others); solver: unused, the solver's whole shortlist is played out.",
    )
    hidden: str = option("256,128", "Widths of the head's hidden layers.")
    epochs: int = option(3, "Passes over the safe candidates.")
    batch_size: int = option(2048, "Minibatch rows.")
    learning_rate: float = option(1e-3, "Adam learning rate at the start, decaying linearly to 1%% of it.")
    rank_weight: float = option(
        0.0,
        "Weight of the pair loss: in each position, the safe candidate whose game was "
        "won scored above the one whose game was lost (0: the per-cell loss alone).",
    )
    mix: str = option(
        "",
        "Run directories of finished collections, separated by commas: train one head on all their chunks (each of "
        "its own board) and play no game; the board and game settings are then the runs' own.",
    )
    held_out: float = option(0.1, "Share of the positions (the last chunks') held out to measure the loss.")
    seed: int = option(0, "Seed of the games, the candidates drawn, the head's weights and the minibatches.")
    torch_threads: int = option(2, "Torch CPU threads for the training.")
    runs_dir: str = option("runs", "Folder holding the run directories.")
    run_name: str = option("", "Name of the run directory (default: guess-value-board-seed).")
    resume: bool = option(False, "Keep the chunks already in the run directory and play only the rest.")

    def validate(self) -> None:
        """Raise ValueError with a message when the settings cannot run."""
        self.board_spec()
        if self.player not in PLAYERS:
            raise ValueError(f"player is one of {', '.join(PLAYERS)}, got {self.player!r}")
        at_least(self, 1, "games", "chunk_games", "workers", "epochs", "batch_size", "torch_threads")
        at_least(self, 2, "max_candidates")
        if not 0 < self.held_out < 1:
            raise ValueError(f"held_out is a share of the positions in (0, 1), got {self.held_out}")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be above 0, got {self.learning_rate}")
        if self.rank_weight < 0:
            raise ValueError(f"rank_weight must be 0 or more, got {self.rank_weight}")
        self.widths()
        if self.mix and self.resume:
            raise ValueError("--mix plays no game, so there is nothing to --resume: finish each mixed run first")

    def chunks(self) -> int:
        """How many chunks the run's games make."""
        return -(-self.games // self.chunk_games)

    def mix_dirs(self) -> list[Path]:
        """The run directories of ``--mix`` (empty when it is not given)."""
        return [Path(part.strip()) for part in self.mix.split(",") if part.strip()]

    def widths(self) -> list[int]:
        """The hidden layers' widths (ValueError unless positive integers separated by commas)."""
        try:
            widths = [int(width) for width in self.hidden.split(",")]
        except ValueError:
            widths = []
        if not widths or min(widths) < 1:
            raise ValueError(f"hidden is a list of positive widths such as 256,128, got {self.hidden!r}")
        return widths


def chunk_path(run_dir: Path, index: int) -> Path:
    """Where chunk ``index`` of a run is saved."""
    return run_dir / "rollouts" / f"chunk-{index:04d}.npz"


def play_chunk(spec: BoardSpec, games: int, seed: int, max_candidates: int, path: Path, player: str = "fast") -> int:
    """Play one chunk's games (``fast``: :func:`rollout_guesses` at the tie margin; ``solver``:
    :func:`rollout_shortlist`) and save them at ``path``; returns how many guess positions it holds."""
    if player == "solver":
        positions = rollout_shortlist(spec, games, seed, max_candidates=MAX_CANDIDATES)
    else:
        positions = rollout_guesses(spec, games, seed, margin=TIE_TOLERANCE, max_candidates=max_candidates)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npz")
    np.savez(partial, **positions._asdict())
    partial.replace(path)
    return len(positions.grids)


def collect(config: GuessValueConfig, run_dir: Path) -> list[GuessReturns]:
    """Every chunk of the run, played where it is missing (``--workers`` processes) and loaded in order."""
    spec = config.board_spec()
    chunks = config.chunks()
    sizes = [min(config.chunk_games, config.games - i * config.chunk_games) for i in range(chunks)]
    missing = [i for i in range(chunks) if not chunk_path(run_dir, i).is_file()]
    with ProcessPoolExecutor(config.workers) as pool:
        jobs = {i: pool.submit(play_chunk, spec, sizes[i], config.seed * 1_000_003 + i, config.max_candidates,
                               chunk_path(run_dir, i), config.player) for i in missing}  # fmt: skip
        for i, job in jobs.items():
            print(f"chunk {i + 1}/{chunks}: {job.result()} guess positions", flush=True)
    return [load_returns(chunk_path(run_dir, i)) for i in range(chunks)]


class SafeCandidates(NamedTuple):
    """The training rows: one safe candidate of a guess position each, and its return."""

    grids: np.ndarray
    """int8 (positions, rows, cols)."""
    position: np.ndarray
    """int64 (N,): the row's position in ``grids``."""
    cell: np.ndarray
    """int64 (N,): the candidate's flat cell."""
    chance: np.ndarray
    """float32 (N,): its exact mine chance."""
    won: np.ndarray
    """float32 (N,): 1 when its game was won."""
    scalars: np.ndarray
    """float32 (N, S): what the playing policy saw in it (S = 0 for ``solver-fast``'s ties)."""


def safe_candidates(chunks: Sequence[GuessReturns]) -> SafeCandidates:
    """The safe candidates of every position of ``chunks``, positions in chunk order."""
    grids = np.concatenate([chunk.grids for chunk in chunks])
    candidates = np.concatenate([chunk.candidates for chunk in chunks]).astype(np.int64)
    safe = np.concatenate([chunk.safe for chunk in chunks]) & (candidates != NO_CANDIDATE)
    position, column = np.nonzero(safe)
    chance = 1.0 - np.concatenate([chunk.safety for chunk in chunks])[position, column]
    won = np.concatenate([chunk.returns for chunk in chunks])[position, column]
    scalars = np.concatenate([chunk.scalars for chunk in chunks])[position, column]
    return SafeCandidates(grids, position, candidates[position, column], chance.astype(np.float32),
                          won.astype(np.float32), scalars.astype(np.float32))  # fmt: skip


def batch_features(rows: SafeCandidates, indices: np.ndarray, mines: int) -> np.ndarray:
    """Feature rows of ``indices``, grouped by position so each position's neighbourhoods are cut once."""
    order = np.argsort(rows.position[indices], kind="stable")
    indices = indices[order]
    out = np.empty((len(indices), FEATURES + rows.scalars.shape[1]), np.float32)
    positions = rows.position[indices]
    starts = np.flatnonzero(np.r_[True, positions[1:] != positions[:-1]])
    for start, stop in zip(starts, np.r_[starts[1:], len(indices)], strict=True):
        chosen = indices[start:stop]
        out[start:stop, :FEATURES] = candidate_features(
            rows.grids[positions[start]], rows.cell[chosen], rows.chance[chosen], mines
        )
        out[start:stop, FEATURES:] = rows.scalars[chosen]
    restore = np.empty_like(order)
    restore[order] = np.arange(len(order))
    return out[restore]


class TrainingSet:
    """The safe candidates of one run, or of several runs of other boards (``--mix``), as one set of training rows:
    each part keeps its own grids and mine count, and holds out its own last ``held_out`` share of positions."""

    def __init__(self, parts: Sequence[tuple[SafeCandidates, int]], held_out: float) -> None:
        widths = {rows.scalars.shape[1] for rows, _ in parts}
        if len(widths) != 1:
            raise ValueError("the runs mixed saw different numbers in their candidates: mix runs of one --player")
        self.parts = list(parts)
        self.scalars_width = widths.pop()
        self.starts = np.cumsum([0] + [len(rows.won) for rows, _ in parts])
        firsts = np.cumsum([0] + [len(rows.grids) for rows, _ in parts])
        self.position = np.concatenate(
            [rows.position + first for (rows, _), first in zip(parts, firsts[:-1], strict=True)]
        )
        self.won = np.concatenate([rows.won for rows, _ in parts])
        self.held = np.concatenate([rows.position >= int(len(rows.grids) * (1.0 - held_out)) for rows, _ in parts])
        self.positions = int(firsts[-1])

    def features(self, indices: np.ndarray) -> np.ndarray:
        """Feature rows of ``indices`` (rows of the whole set), each cut from its own part's grid and mine count."""
        out = np.empty((len(indices), FEATURES + self.scalars_width), np.float32)
        part = np.searchsorted(self.starts, indices, side="right") - 1
        for p, (rows, mines) in enumerate(self.parts):
            chosen = np.flatnonzero(part == p)
            if chosen.size:
                out[chosen] = batch_features(rows, indices[chosen] - self.starts[p], mines)
        return out


def spread(indices: np.ndarray, limit: int) -> np.ndarray:
    """At most ``limit`` of ``indices``, evenly spaced over them (every part of a mix measured, not the first)."""
    if len(indices) <= limit:
        return indices
    return indices[np.linspace(0, len(indices) - 1, limit).astype(np.int64)]


def winner_loser_pairs(rows: SafeCandidates | TrainingSet) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of safe candidates of one position whose games ended apart: (the won one's rows, the lost one's
    rows). Their layout is shared, so the pair says which of the two cells led to the win."""
    starts = np.flatnonzero(np.r_[True, rows.position[1:] != rows.position[:-1]])
    group = np.cumsum(np.r_[True, rows.position[1:] != rows.position[:-1]]) - 1
    slot = np.arange(len(rows.position)) - starts[group]
    table = np.full((len(starts), slot.max() + 1 if len(slot) else 0), -1, np.int64)
    table[group, slot] = np.arange(len(rows.position))
    won = np.r_[rows.won, 0.0]  # table's padding (-1) reads the appended 0
    winners, losers = [], []
    for first in range(table.shape[1]):
        for second in range(table.shape[1]):
            a, b = table[:, first], table[:, second]
            keep = (a >= 0) & (b >= 0) & (won[a] == 1) & (won[b] == 0)
            winners.append(a[keep])
            losers.append(b[keep])
    return np.concatenate(winners), np.concatenate(losers)


def value_network(widths: Sequence[int]) -> th.nn.Sequential:
    """A fresh head: Linear layers of ``widths`` (features first, 1 last) with ReLUs between them."""
    layers: list[th.nn.Module] = []
    for width_in, width_out in itertools.pairwise(widths):
        layers += [th.nn.Linear(width_in, width_out), th.nn.ReLU()]
    return th.nn.Sequential(*layers[:-1])


def train_head(rows: TrainingSet, config: GuessValueConfig, log: Path) -> ValueHead:
    """Fit the head's logits to the safe candidates' returns (binary cross-entropy) plus, weighted by
    ``rank_weight``, a logistic loss on each position's won-lost pairs (:func:`winner_loser_pairs`); each part's
    last positions held out, one progress row an epoch."""
    th.set_num_threads(config.torch_threads)
    th.manual_seed(config.seed)
    features_count = FEATURES + rows.scalars_width
    network = value_network([features_count, *config.widths(), 1])
    optimiser = th.optim.Adam(network.parameters(), config.learning_rate)
    loss_of = th.nn.BCEWithLogitsLoss()
    train, held = np.flatnonzero(~rows.held), np.flatnonzero(rows.held)
    winners, losers = winner_loser_pairs(rows)
    train_pairs, held_pairs = np.flatnonzero(~rows.held[winners]), np.flatnonzero(rows.held[winners])
    if not len(train) or not len(held) or not len(train_pairs) or not len(held_pairs):
        raise ValueError(
            f"{rows.positions} guess positions are too few to learn and hold some out: play more (--games)"
        )

    def features(indices: np.ndarray) -> th.Tensor:
        return th.as_tensor(rows.features(indices))

    def logits(indices: np.ndarray) -> th.Tensor:
        return network(features(indices)).squeeze(1)

    rng = np.random.default_rng(config.seed)
    held, held_pairs = spread(held, 50_000), spread(held_pairs, 50_000)
    held_x, held_y = features(held), th.as_tensor(rows.won[held])  # cut once, measured every epoch
    held_won, held_lost = features(winners[held_pairs]), features(losers[held_pairs])
    batches = -(-len(train) // config.batch_size)
    pair_batch = -(-len(train_pairs) // batches)
    start = time.perf_counter()
    for epoch in range(config.epochs):
        rng.shuffle(train)
        if config.rank_weight:
            rng.shuffle(train_pairs)
        for batch in range(batches):
            for group in optimiser.param_groups:
                group["lr"] = config.learning_rate * (
                    1.0 - 0.99 * (epoch * batches + batch) / (config.epochs * batches)
                )
            chosen = train[batch * config.batch_size : (batch + 1) * config.batch_size]
            loss = loss_of(logits(chosen), th.as_tensor(rows.won[chosen]))
            pairs = train_pairs[batch * pair_batch : (batch + 1) * pair_batch]
            if config.rank_weight and len(pairs):
                loss = loss + config.rank_weight * F.softplus(logits(losers[pairs]) - logits(winners[pairs])).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        with th.no_grad():
            held_loss = float(loss_of(network(held_x).squeeze(1), held_y))
            ordered = float((network(held_won) > network(held_lost)).float().mean())
        row = {"epoch": epoch + 1, "rows": len(train), "pairs": len(train_pairs), "held_out_loss": held_loss,
               "held_out_pairs_ordered": ordered, "seconds": time.perf_counter() - start}  # fmt: skip
        log_row(log, row)
        print(progress_line(row), flush=True)
    linear = [layer for layer in network if isinstance(layer, th.nn.Linear)]
    return ValueHead([layer.weight.detach().numpy().T.copy() for layer in linear],
                     [layer.bias.detach().numpy().copy() for layer in linear], features_count)  # fmt: skip


def head_values(head: ValueHead, positions: GuessReturns, mines: int) -> np.ndarray:
    """float64 (N, K): each candidate's chance of being safe times the head's chance that its game is then won,
    the score the agents play (-inf in the padding)."""
    values = np.full(positions.candidates.shape, -np.inf)
    for p, (grid, row) in enumerate(zip(positions.grids, positions.candidates, strict=True)):
        count = int((row != NO_CANDIDATE).sum())
        cells = row[:count].astype(np.int64)
        safety = positions.safety[p, :count]
        features = np.concatenate(
            [candidate_features(grid, cells, 1.0 - safety, mines), positions.scalars[p, :count]], axis=1
        )
        values[p, :count] = safety / (1.0 + np.exp(-head.logits(features)))
    return values


def held_out_picks(chunks: Sequence[GuessReturns], held_out: float, head: ValueHead, mines: int,
                   limit: int = 20_000) -> dict[str, float]:  # fmt: skip
    """How the head's picks fare on the held-out positions (the last ``held_out`` share, at most ``limit``), judged
    by the candidates' own returns on each position's layout: the mean return of its pick and of the playing
    policy's, their paired difference with its standard error, and how often the two picks differ. The returns of
    one position's candidates share its layout, so the difference is a paired comparison of the two policies at
    those positions, one step ahead and then both played on alike."""
    fields = {name: np.concatenate([getattr(chunk, name) for chunk in chunks]) for name in GuessReturns._fields}
    cut = int(len(fields["grids"]) * (1.0 - held_out))
    positions = GuessReturns(**{name: array[cut : cut + limit] for name, array in fields.items()})
    count = len(positions.grids)
    if not count:
        return {"positions": 0}
    picks = head_values(head, positions, mines).argmax(axis=1)
    mine = positions.returns[np.arange(count), picks]
    theirs = positions.returns[np.arange(count), positions.fast.astype(np.int64)]
    gain = mine - theirs
    return {"positions": count, "head_return": float(mine.mean()), "policy_return": float(theirs.mean()),
            "gain": float(gain.mean()), "gain_se": float(gain.std(ddof=1) / np.sqrt(count)) if count > 1 else 0.0,
            "picks_differ": float((picks != positions.fast).mean())}  # fmt: skip


GAME_SETTINGS = ("player", "preset", "rows", "cols", "mines", "first_click", "chunk_games", "max_candidates", "seed")
"""The settings a chunk's games depend on: a resumed run must keep them, or its old chunks would be other games."""


RUN_GAMES = frozenset(GAME_SETTINGS).union({"games", "workers"}) - {"seed"}
"""The settings a ``--mix`` head takes from its runs, not from its own command (its seed still seeds the head)."""


def check_resumable(config: GuessValueConfig, run_dir: Path) -> None:
    """ValueError when ``run_dir`` holds chunks of games other settings made (its ``config.json``)."""
    saved_path = run_dir / "config.json"
    if not saved_path.is_file():
        return
    saved = json.loads(saved_path.read_text())
    defaults = {"player": "fast"}  # a run saved before the setting existed played solver-fast's guesses
    changed = [name for name in GAME_SETTINGS if saved.get(name, defaults.get(name)) != getattr(config, name)]
    if changed:
        raise ValueError(f"run directory {run_dir} holds games of other settings ({', '.join(changed)}): resume it "
                         "with its own, or start another --run-name")  # fmt: skip


def mixed_runs(config: GuessValueConfig) -> list[tuple[Path, GuessValueConfig]]:
    """Each ``--mix`` run directory with the settings its games were made with; ValueError for one that is no
    finished guess-value run, or runs of different players."""
    runs = []
    fields = {field.name for field in dataclasses.fields(GuessValueConfig)}
    for run_dir in config.mix_dirs():
        saved = run_dir / "config.json"
        if not saved.is_file():
            raise ValueError(f"{run_dir} is no guess-value run (no config.json): collect its returns first, "
                             "python -m train.distill.guess.value --preset BOARD --run-name NAME")  # fmt: skip
        settings = {name: value for name, value in json.loads(saved.read_text()).items() if name in fields}
        run_config = GuessValueConfig(**{"player": "fast", **settings})  # saved before --player: fast
        chunks = run_config.chunks()
        done = sum(chunk_path(run_dir, i).is_file() for i in range(chunks))
        if done < chunks:
            raise ValueError(f"{run_dir} holds {done} of its {chunks} chunks: finish it with its own command and "
                             "--resume before mixing it")  # fmt: skip
        runs.append((run_dir, run_config))
    if len({run_config.player for _, run_config in runs}) > 1:
        raise ValueError("the runs mixed played out different players' guesses: mix runs of one --player")
    return runs


BoardRun = tuple[Path, GuessValueConfig, list[GuessReturns]]
"""One board's run: its directory, the settings its games were made with, and its chunks."""


def gather(config: GuessValueConfig, run_dir: Path) -> list[BoardRun]:
    """The runs a head learns from: the ``--mix`` runs as saved, or this run, its chunks played where missing."""
    if not config.mix:
        return [(run_dir, config, collect(config, run_dir))]
    return [(source, settings, [load_returns(chunk_path(source, i)) for i in range(settings.chunks())])
            for source, settings in mixed_runs(config)]  # fmt: skip


def head_card(config: GuessValueConfig, boards: Sequence[BoardRun], head: ValueHead) -> dict[str, object]:
    """What a head was trained on, board by board, and how its picks fared on each board's held-out positions."""
    trained_on = {}
    for source, settings, chunks in boards:
        board = settings.board_spec()
        picks = held_out_picks(chunks, config.held_out, head, board.mines)
        print(f"{source.name}: held-out picks: " + ", ".join(f"{name} {value:.4g}" for name, value in picks.items()),
              flush=True)  # fmt: skip
        rows = safe_candidates(chunks)
        trained_on[str(source)] = {"board": f"{board.rows}x{board.cols} with {board.mines} mines, {board.first_click}",
                                   "player": settings.player, "games": settings.games, "seed": settings.seed,
                                   "positions": len(rows.grids), "safe_candidates": len(rows.won),
                                   "held_out_picks": picks}  # fmt: skip
    own = dataclasses.asdict(config)
    if config.mix:  # the boards and their games are the mixed runs' own, in trained_on
        own = {name: value for name, value in own.items() if name not in RUN_GAMES}
    return {"trained_by": "python -m train.distill.guess.value", "config": own, "trained_on": trained_on}


def run(config: GuessValueConfig) -> Path:
    """Collect the returns (what is missing) and train the head, or with ``--mix`` train one head on several
    finished runs; returns the run directory."""
    config.validate()
    if config.mix:
        mixed_runs(config)  # refused before anything is written
    spec = config.board_spec()
    default_name = f"guess-value-mix-s{config.seed}" if config.mix else \
        f"guess-value-{spec.rows}x{spec.cols}x{spec.mines}-s{config.seed}"  # fmt: skip
    run_dir = Path(config.runs_dir) / (config.run_name or default_name)
    if run_dir.exists() and any(run_dir.iterdir()) and not config.resume:
        raise ValueError(f"run directory {run_dir} exists: give --resume to continue it, or another --run-name")
    check_resumable(config, run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    start = time.perf_counter()
    boards = gather(config, run_dir)
    rows = TrainingSet([(safe_candidates(chunks), settings.board_spec().mines) for _, settings, chunks in boards],
                       config.held_out)  # fmt: skip
    print(f"{rows.positions} guess positions, {len(rows.won)} safe candidates ({time.perf_counter() - start:.0f} s)",
          flush=True)  # fmt: skip
    log = run_dir / "progress.csv"
    log.unlink(missing_ok=True)
    head = train_head(rows, config, log)
    card = head_card(config, boards, head)
    head.save(run_dir / "head.npz", json.dumps(card))
    (run_dir / "head.json").write_text(json.dumps(card, indent=2) + "\n")
    return run_dir


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """``python -m train.distill.guess.value [options]`` (and ``minesweeper train guess_value``)."""
    description = "Learn which tied safest cell to guess from the returns of played-out games."
    return config_script(argv, prog or "python -m train.distill.guess.value", description, GuessValueConfig, run)


if __name__ == "__main__":
    sys.exit(main())

"""The held-out positions of a streamed run's progress log, and saved networks judged on them.

A run of :mod:`train.distill.stream.run` keeps :data:`HELD_OUT` positions of the oracle's first games apart, writes
them to ``RUN_DIR/held_out.npz`` at its first start and judges every row of its progress log on them, resumes too:
each trunk's mean absolute error of the mine chance over hidden cells, and how often its pick is one of the
oracle's safest cells (:func:`judge`).

``python -m train.distill.stream.held_out RUN_DIR MODEL [MODEL ...]`` judges saved distilled models on the same
positions: the run's network beside the one it started from, on the same footing, before their win rates are measured.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mine_env.engine.constants import HIDDEN

HELD_OUT = 2048
"""Positions kept apart for the progress log: the dataset's last ones, or spread over the stream's first chunks."""
HELD_OUT_FILE = "held_out.npz"
"""Where a run keeps its held-out positions: its first start draws them from the stream, every resume judges on the
same ones, so the progress log's curve is one curve across resumes, not a new sample's noise at each."""
PARTS = ("grids", "labels", "counts")
"""The arrays of a held-out set, in the order :func:`judge` takes them; the counts only where the mine count
varies."""
SCORE_BATCH = 1024
"""Positions scored in one pass."""

Scores = Callable[[np.ndarray, "np.ndarray | None"], np.ndarray]
"""Safety logits (N, cells) of grids (N, rows, cols) whose mine counts (N,) are given where they vary."""


def split_held_out(chunks: Sequence[tuple[Any, ...]]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """:data:`HELD_OUT` positions spread evenly over ``chunks`` of the stream (their grids, labels and, where the
    chunks carry them, mine counts: the true mines are not needed to judge the exact chances), and a chunk of the
    other positions, to train on."""
    joined = [None if chunks[0][index] is None else np.concatenate([chunk[index] for chunk in chunks])
              for index in range(len(chunks[0]))]  # fmt: skip
    size = len(joined[0])
    picked = np.zeros(size, dtype=bool)
    picked[np.linspace(0, size - 1, min(HELD_OUT, size)).astype(int)] = True
    held = tuple(None if part is None else part[picked] for index, part in enumerate(joined) if index != 2)
    return held, tuple(None if part is None else part[~picked] for part in joined)


def save_held_out(path: Path, held: tuple[Any, ...]) -> None:
    """Write held-out positions (grids, labels and, where they vary, mine counts) to ``path`` (.npz)."""
    np.savez(path, **{name: part for name, part in zip(PARTS, held, strict=False) if part is not None})


def load_held_out(path: Path) -> tuple[Any, ...]:
    """The held-out positions :func:`save_held_out` wrote to ``path``."""
    with np.load(path) as saved:
        return tuple(saved[name] for name in PARTS if name in saved.files)


def judge(scores: Scores, grids: np.ndarray, labels: np.ndarray, counts: np.ndarray | None = None) -> dict[str, float]:
    """``scores``' mean absolute error of the mine chance over the hidden cells of the positions (``error``), and
    the share of them where its pick, the highest logit, is one of the oracle's safest cells (``safest``)."""
    flat_labels = labels.reshape(len(labels), -1).astype(np.float32)
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    least = np.where(hidden, flat_labels, np.inf).min(axis=1)
    logits = np.concatenate([scores(grids[i:i + SCORE_BATCH], None if counts is None else counts[i:i + SCORE_BATCH])
                             for i in range(0, len(grids), SCORE_BATCH)])  # fmt: skip
    chance = 1.0 / (1.0 + np.exp(np.clip(logits, -60, 60)))
    pick = np.where(hidden, logits, -np.inf).argmax(axis=1)
    return {"error": float(np.abs(chance - flat_labels)[hidden].mean()),
            "safest": float((flat_labels[np.arange(len(pick)), pick] <= least + 1e-3).mean())}  # fmt: skip


def saved_model_scores(model: str, mines: int) -> Scores:
    """A saved distilled model's safety logits on the CPU, told each position's mine count (``mines`` where the
    positions carry none).

    Raises:
        ValueError: the model is not a distilled network (its scores are no mine chances).
    """
    import torch as th

    from agents.model_card import ModelCard, model_paths
    from agents.networks.saved import load_network
    from agents.networks.trunks import set_mine_count

    card = ModelCard.of_model(model)
    if card.algo != "distill":
        raise ValueError(f"{model}: a {card.algo} model; only a distilled network's scores are mine chances to judge")
    if card.network_spec is None:
        raise ValueError(f"{model}: its card has no network section (a model saved before the model format)")
    network = load_network(card.network_spec, model_paths(model)[1].parent).eval()

    def scores(grids: np.ndarray, counts: np.ndarray | None) -> np.ndarray:
        out = np.empty((len(grids), grids[0].size), dtype=np.float32)
        counts = np.full(len(grids), mines) if counts is None else counts
        with th.no_grad():
            for count in np.unique(counts):
                same = counts == count
                set_mine_count(network, int(count))
                out[same] = network(th.as_tensor(grids[same])).numpy()
        return out

    return scores


def run_mines(run_dir: Path) -> int:
    """The mine count of the board ``run_dir``'s stream played (its config.json)."""
    from train.distill.stream.config import StreamConfig

    return StreamConfig(**json.loads((run_dir / "config.json").read_text())).board_spec().mines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.distill.stream.held_out",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    parser.add_argument("run_dir", type=Path, help="a streamed run's directory (its held_out.npz and config.json)")
    parser.add_argument("models", nargs="+", help="saved distilled models (a card's stem, or a shipped model's "
                                                       "short name)")
    args = parser.parse_args(argv)
    path = args.run_dir / HELD_OUT_FILE
    if not path.is_file() or not (args.run_dir / "config.json").is_file():
        parser.error(f"{args.run_dir}: no {HELD_OUT_FILE} and config.json there (a run keeps them from its first "
                     "start on; an older run draws them at its next resume)")  # fmt: skip
    held, mines = load_held_out(path), run_mines(args.run_dir)
    print(f"{len(held[0]):,} held-out positions of {args.run_dir}")
    for model in args.models:
        try:
            figures = judge(saved_model_scores(model, mines), *held)
        except (FileNotFoundError, ValueError) as error:
            parser.error(str(error))
        print(f"{model}: error {figures['error']:.5f}, safest {figures['safest']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

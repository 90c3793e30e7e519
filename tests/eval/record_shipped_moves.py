"""Record every shipped model's moves on a fixed set of seeded positions: the fixture that pins them.

Each position comes from a seeded game on a classic board (opening rule): the first click, then a random number of
random safe reveals, so the set covers openings, mid-games and near-finished boards. Every shipped model plays every
position of every board (the networks are fully convolutional; a distilled one is told the board's mine count), and
the fixture keeps what it chose: the cell, and for a distilled network the mine chance it gives that cell and the
mean and largest mine chance over the covered cells (a checksum of all its outputs, to about 1e-6).

``tests/eval/test_shipped_moves.py`` asserts the loader reproduces them; this recorder sits beside it, with the
tests, as the fixture is theirs. Re-record only when a shipped model is replaced on purpose:
``PYTHONPATH=$PWD python3 tests/eval/record_shipped_moves.py``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.networks.player import load_model_agent
from agents.shipped_models import SHIPPED_MODELS
from mine_env.engine.board import Board
from mine_env.engine.constants import HIDDEN, PRESETS
from mine_env.engine.spec import BoardSpec

FIXTURE = Path(__file__).resolve().with_name("data") / "shipped_moves.npz"
POSITIONS = {"beginner": 120, "intermediate": 100, "expert": 80}
"""Positions recorded per board."""
SEED = 20261127


def seeded_positions(preset: str, count: int, seed: int) -> np.ndarray:
    """``count`` grids (count, rows, cols) int8 of seeded games on ``preset``, opening rule, at random stages."""
    rows, cols, mines = PRESETS[preset]
    rng = np.random.default_rng([seed, rows, cols, mines])
    grids = []
    game = 0
    while len(grids) < count:
        board = Board(BoardSpec(rows, cols, mines, "opening"), key=int(rng.integers(2**62)))
        board.step(int(rng.integers(rows * cols)), flags=False)
        layout = np.asarray(board.layout).reshape(-1)
        for _ in range(int(rng.integers(0, 3 * mines))):
            safe = np.flatnonzero((board.grid.reshape(-1) == HIDDEN) & (layout == 0))
            if board.is_over or safe.size == 0:
                break
            board.step(int(rng.choice(safe)), flags=False)
        if not board.is_over:
            grids.append(board.grid.copy())
        game += 1
    return np.stack(grids).astype(np.int8)


def model_moves(name: str, preset: str, grids: np.ndarray) -> dict[str, np.ndarray]:
    """What shipped model ``name`` plays on each grid of ``preset``: the cell, and the distilled mine chances."""
    rows, cols, mines = PRESETS[preset]
    agent = load_model_agent(name, BoardSpec(rows, cols, mines, "opening"))
    actions, chosen, mean, largest = [], [], [], []
    for grid in grids:
        mask = (grid.reshape(-1) == HIDDEN).astype(np.int8)
        scores = agent.action_scores(grid, {"action_mask": mask, "mines": mines}).astype(np.float64)
        action = int(np.where(mask.astype(bool), scores, -np.inf).argmax())
        chances = 1.0 / (1.0 + np.exp(scores[mask.astype(bool)]))  # a distilled logit is the cell's safety logit
        actions.append(action)
        chosen.append(1.0 / (1.0 + np.exp(scores[action])))
        mean.append(chances.mean())
        largest.append(chances.max())
    moves = {"action": np.array(actions, dtype=np.int16)}
    if name.startswith("distill-"):
        moves |= {"chosen": np.array(chosen), "mean": np.array(mean), "largest": np.array(largest)}
    return moves


def record(path: Path) -> None:
    """Write the fixture: the positions of every board and every shipped model's moves on them."""
    arrays: dict[str, np.ndarray] = {}
    for preset, count in POSITIONS.items():
        grids = seeded_positions(preset, count, SEED)
        arrays[f"{preset}/grids"] = grids
        for name in SHIPPED_MODELS:
            for key, values in model_moves(name, preset, grids).items():
                arrays[f"{preset}/{name}/{key}"] = values
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]
    print(f"{path}: {sum(POSITIONS.values())} positions, {len(SHIPPED_MODELS)} models, {path.stat().st_size} bytes")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=FIXTURE, help="where to write the fixture (.npz)")
    args = parser.parse_args(argv)
    record(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Training the guess-value head: the rows it learns from, a whole small run, its resumption and its refusals."""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from agents.guess_value import GuessValueAgent, candidate_features
from mine_env.engine.spec import BoardSpec
from train.distill.guess.returns import NO_CANDIDATE, rollout_guesses
from train.distill.guess.value import (
    GuessValueConfig,
    SafeCandidates,
    batch_features,
    chunk_path,
    main,
    run,
    safe_candidates,
    winner_loser_pairs,
)

BEGINNER = BoardSpec(9, 9, 10, "opening")


def test_the_rows_are_the_safe_candidates_with_their_returns() -> None:
    chunks = [rollout_guesses(BEGINNER, 150, seed=seed, margin=1e-9) for seed in (1, 2)]
    rows = safe_candidates(chunks)
    grids = np.concatenate([chunk.grids for chunk in chunks])
    assert len(rows.grids) == len(grids)
    fields = {
        name: np.concatenate([getattr(c, name) for c in chunks]) for name in ("candidates", "safety", "returns", "safe")
    }
    expected = [
        (p, int(cell), 1.0 - fields["safety"][p, k], fields["returns"][p, k])
        for p, k in zip(*np.nonzero(fields["safe"]), strict=True)
        if (cell := fields["candidates"][p, k]) != NO_CANDIDATE
    ]
    got = list(zip(rows.position, rows.cell, rows.chance, rows.won, strict=True))
    assert len(got) == len(expected) > 0
    for (p, cell, chance, won), (ep, ecell, echance, ewon) in zip(got, expected, strict=True):
        assert (p, cell, won) == (ep, ecell, ewon) and chance == pytest.approx(echance, abs=1e-6)
    picked = np.array([5, 0, len(rows.won) - 1, 3])
    features = batch_features(rows, picked, BEGINNER.mines)
    for row, i in zip(features, picked, strict=True):
        plain = candidate_features(rows.grids[rows.position[i]], rows.cell[[i]], rows.chance[[i]], BEGINNER.mines)
        np.testing.assert_array_equal(row, plain[0])


def test_a_small_run_trains_a_head_the_agent_plays_and_resumes_from_its_chunks(tmp_path: Path) -> None:
    options = ["--preset", "beginner", "--mines", "14", "--games", "600", "--chunk-games", "300", "--workers", "1",
               "--epochs", "2", "--hidden", "16", "--runs-dir", str(tmp_path), "--run-name", "small"]  # fmt: skip
    assert main(options) == 0
    run_dir = tmp_path / "small"
    with (run_dir / "progress.csv").open() as handle:
        epochs = list(csv.DictReader(handle))
    assert [row["epoch"] for row in epochs] == ["1", "2"] and float(epochs[-1]["held_out_loss"]) < 0.7
    assert 0 <= float(epochs[-1]["held_out_pairs_ordered"]) <= 1
    GuessValueAgent(head=run_dir / "head.npz")
    stamps = [chunk_path(run_dir, i).stat().st_mtime_ns for i in range(2)]
    with pytest.raises(ValueError, match="give --resume"):
        run(GuessValueConfig(preset="beginner", mines=14, games=600, chunk_games=300, runs_dir=str(tmp_path),
                             run_name="small"))  # fmt: skip
    config = GuessValueConfig(preset="beginner", mines=14, games=900, chunk_games=300, workers=1, epochs=1, hidden="16",
                              runs_dir=str(tmp_path), run_name="small", resume=True)  # fmt: skip
    run(config)
    assert [chunk_path(run_dir, i).stat().st_mtime_ns for i in range(2)] == stamps  # kept, not played again
    assert chunk_path(run_dir, 2).is_file()
    with pytest.raises(ValueError, match="other settings \\(chunk_games\\)"):
        run(dataclasses.replace(config, chunk_games=450))


@pytest.mark.parametrize(("field", "value", "message"), [
    ("hidden", "wide", "positive widths"), ("held_out", 1.0, "held_out"), ("max_candidates", 1, "max_candidates"),
])  # fmt: skip
def test_settings_that_cannot_run_are_refused(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GuessValueConfig(**{field: value}).validate()


def test_the_pairs_are_every_won_and_lost_candidate_of_one_position() -> None:
    position = np.array([0, 0, 0, 1, 1, 3, 3, 3, 3])
    won = np.array([1, 0, 0, 1, 1, 0, 1, 1, 0], np.float32)
    rows = SafeCandidates(np.zeros((4, 2, 2), np.int8), position, np.arange(9), np.zeros(9, np.float32), won,
                          np.zeros((9, 0), np.float32))
    winners, losers = winner_loser_pairs(rows)
    plain = {(a, b) for a in range(9) for b in range(9) if position[a] == position[b] and won[a] == 1 and won[b] == 0}
    assert sorted(zip(winners.tolist(), losers.tolist(), strict=True)) == sorted(plain)

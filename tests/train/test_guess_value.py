"""Training the guess-value head: the rows it learns from, a whole small run, its resumption and its refusals."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from agents.guess_value import GuessValueAgent, candidate_features
from mine_env.engine.spec import BoardSpec
from train.distill.guess.returns import NO_CANDIDATE, rollout_guesses
from train.distill.guess.value import (
    GuessValueConfig,
    SafeCandidates,
    TrainingSet,
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
    rows = SafeCandidates(
        np.zeros((4, 2, 2), np.int8), position, np.arange(9), np.zeros(9, np.float32), won, np.zeros((9, 0), np.float32)
    )
    winners, losers = winner_loser_pairs(rows)
    plain = {(a, b) for a in range(9) for b in range(9) if position[a] == position[b] and won[a] == 1 and won[b] == 0}
    assert sorted(zip(winners.tolist(), losers.tolist(), strict=True)) == sorted(plain)


def test_a_mixed_set_cuts_each_row_from_its_own_board_and_holds_out_each_boards_last_positions() -> None:
    wider = BoardSpec(12, 14, 30, "opening")
    parts = [(safe_candidates([rollout_guesses(spec, 200, seed=3, margin=1e-9)]), spec.mines)
             for spec in (BEGINNER, wider)]  # fmt: skip
    mixed = TrainingSet(parts, held_out=0.25)
    sizes = [len(rows.won) for rows, _ in parts]
    assert len(mixed.won) == sum(sizes) and mixed.positions == sum(len(rows.grids) for rows, _ in parts)
    picked = np.array([0, sizes[0] + 1, sizes[0] - 1, sum(sizes) - 1, 2])
    local = [(0, 0), (1, 1), (0, sizes[0] - 1), (1, sizes[1] - 1), (0, 2)]
    for row, (part, i) in zip(mixed.features(picked), local, strict=True):
        rows, mines = parts[part]
        np.testing.assert_array_equal(row, batch_features(rows, np.array([i]), mines)[0])
    for part, (rows, _) in enumerate(parts):
        held = mixed.held[sum(sizes[:part]) : sum(sizes[: part + 1])]
        np.testing.assert_array_equal(held, rows.position >= int(len(rows.grids) * 0.75))
        assert held.any() and not held.all()


def test_a_mix_trains_one_head_on_finished_runs_of_other_boards_and_refuses_unfinished_ones(tmp_path: Path) -> None:
    small = ["--games", "500", "--chunk-games", "250", "--workers", "1", "--epochs", "1", "--hidden", "16",
             "--runs-dir", str(tmp_path)]  # fmt: skip
    assert main([*small, "--preset", "beginner", "--mines", "14", "--run-name", "nine"]) == 0
    assert main([*small, "--rows", "12", "--cols", "14", "--mines", "30", "--run-name", "wide"]) == 0
    sources = f"{tmp_path / 'nine'},{tmp_path / 'wide'}"
    mix = ["--mix", sources, "--epochs", "1", "--hidden", "16", "--runs-dir", str(tmp_path)]
    assert main([*mix, "--run-name", "mix"]) == 0
    card = json.loads((tmp_path / "mix" / "head.json").read_text())
    assert "preset" not in card["config"] and card["config"]["mix"] == sources  # the boards are the runs' own
    assert list(card["trained_on"]) == [str(tmp_path / "nine"), str(tmp_path / "wide")]
    assert [board["board"] for board in card["trained_on"].values()] == [
        "9x9 with 14 mines, opening", "12x14 with 30 mines, opening"]  # fmt: skip
    assert all(board["held_out_picks"]["positions"] > 0 for board in card["trained_on"].values())
    GuessValueAgent(head=tmp_path / "mix" / "head.npz")
    with pytest.raises(ValueError, match="nothing to --resume"):
        run(GuessValueConfig(mix=sources, resume=True))
    with pytest.raises(ValueError, match="is no guess-value run"):
        run(GuessValueConfig(mix=str(tmp_path / "none"), runs_dir=str(tmp_path), run_name="mix-none"))
    chunk_path(tmp_path / "wide", 1).unlink()
    with pytest.raises(ValueError, match="holds 1 of its 2 chunks"):
        run(GuessValueConfig(mix=sources, runs_dir=str(tmp_path), run_name="mix-unfinished"))

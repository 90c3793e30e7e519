"""The held-out positions of a streamed run (train.distill.stream.held_out): split, saved, judged, and the command that
judges saved models on them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from mine_env.engine.constants import HIDDEN
from train.distill.labels import label_positions
from train.distill.stream import held_out
from train.distill.stream.config import StreamConfig
from train.distill.stream.held_out import HELD_OUT, HELD_OUT_FILE, judge, load_held_out, save_held_out, split_held_out


def beginner_positions(count: int) -> tuple[np.ndarray, np.ndarray]:
    """Grids of beginner games just after their opening, with their exact mine chances."""
    env = gym.make("Minesweeper-v0", rows=9, cols=9, mines=10, first_click="opening")
    grids = []
    for seed in range(count):
        env.reset(seed=seed)
        grids.append(env.step(40)[0])
    stacked = np.stack(grids).astype(np.int8)
    return stacked, label_positions(stacked, 10, "opening")


def test_held_out_positions_span_every_chunk_and_the_others_are_trained_on() -> None:
    chunks = [(np.full((1000, 2, 2), index, np.int8), np.full((1000, 2, 2), index / 10, np.float16),
               np.zeros((1000, 2, 2), np.float16), np.full(1000, 40 + index, np.int16)) for index in range(8)]
    (grids, labels, counts), rest = split_held_out(chunks)
    assert len(grids) == len(labels) == len(counts) == HELD_OUT
    taken = np.bincount(grids[:, 0, 0], minlength=8)
    assert taken.min() >= HELD_OUT // 8 - 1  # an even share of each chunk, the first no more than the last
    assert (counts == 40 + grids[:, 0, 0]).all() and np.allclose(labels[:, 0, 0], grids[:, 0, 0] / 10, atol=1e-3)
    assert len(rest) == 4 and all(len(part) == 8000 - HELD_OUT for part in rest)
    assert (rest[3] == 40 + rest[0][:, 0, 0]).all()
    (plain_grids, plain_labels), plain_rest = split_held_out([chunk[:2] for chunk in chunks])
    assert len(plain_grids) == len(plain_labels) == HELD_OUT and len(plain_rest) == 2


def test_saved_positions_load_as_they_were_with_or_without_counts(tmp_path: Path) -> None:
    grids, labels = beginner_positions(4)
    save_held_out(tmp_path / "plain.npz", (grids, labels, None))
    plain = load_held_out(tmp_path / "plain.npz")
    assert len(plain) == 2 and np.array_equal(plain[0], grids) and np.array_equal(plain[1], labels)
    counts = np.arange(4, dtype=np.int16) + 9
    save_held_out(tmp_path / "counted.npz", (grids, labels, counts))
    assert np.array_equal(load_held_out(tmp_path / "counted.npz")[2], counts)


def test_judge_finds_the_exact_chances_perfect_and_the_reversed_ones_wrong() -> None:
    grids, labels = beginner_positions(16)
    chance = np.clip(labels.reshape(16, -1), 1e-6, 1 - 1e-6)

    def exact(batch: np.ndarray, counts: np.ndarray | None) -> np.ndarray:
        return np.log((1 - chance) / chance)[: len(batch)]

    def reversed_(batch: np.ndarray, counts: np.ndarray | None) -> np.ndarray:
        return -exact(batch, counts)

    perfect = judge(exact, grids, labels)
    assert perfect["error"] < 1e-5 and perfect["safest"] == 1.0
    wrong = judge(reversed_, grids, labels)
    hidden = grids.reshape(16, -1) == HIDDEN
    assert wrong["error"] > 0.1 and wrong["safest"] < 0.5 and hidden.any(axis=1).all()


def write_run(run_dir: Path, positions: int) -> tuple[np.ndarray, np.ndarray]:
    run_dir.mkdir()
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(StreamConfig(preset="beginner"))))
    grids, labels = beginner_positions(positions)
    save_held_out(run_dir / HELD_OUT_FILE, (grids, labels))
    return grids, labels


def test_the_command_judges_a_saved_network_as_the_function_does(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    grids, labels = write_run(tmp_path / "run", 24)
    figures = judge(held_out.saved_model_scores("distill-beginner", 10), grids, labels)
    assert figures["error"] < 0.05 and figures["safest"] > 0.7  # the shipped network knows beginner's openings
    assert held_out.main([str(tmp_path / "run"), "distill-beginner"]) == 0
    printed = capsys.readouterr().out
    assert "24 held-out positions" in printed
    assert f"distill-beginner: error {figures['error']:.5f}, safest {figures['safest']:.4f}" in printed


def test_the_command_refuses_a_run_without_positions_and_a_network_without_chances(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    (tmp_path / "bare").mkdir()
    with pytest.raises(SystemExit) as stopped:
        held_out.main([str(tmp_path / "bare"), "distill-beginner"])
    assert stopped.value.code == 2 and "no held_out.npz" in capsys.readouterr().err
    write_run(tmp_path / "run", 2)
    with pytest.raises(SystemExit):
        held_out.main([str(tmp_path / "run"), "dqn-beginner"])
    assert "only a distilled network's scores are mine chances" in capsys.readouterr().err

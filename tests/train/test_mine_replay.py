"""The mine replay (``--mine-replay``): it keeps the newest labelled positions, draws from its own generator, comes
back whole from a saved file, and a run asks for both its halves (its extra steps: tests/train/test_mine_head.py; a
resumed run with it: tests/train/test_checkpoints.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from train.sb3 import maskable_ppo
from train.sb3.mine_replay import MineReplay

pytestmark = pytest.mark.train


def positions(first: int, count: int, cells: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """``count`` distinguishable positions: board row i is filled with first + i, its mines with its parity."""
    values = np.arange(first, first + count)
    return np.repeat(values[:, None], cells, axis=1).astype(np.int8), np.repeat(values[:, None] % 2, cells, axis=1)


def test_the_replay_keeps_the_newest_labelled_positions_oldest_first() -> None:
    replay = MineReplay(5, 3, seed=0)
    replay.add(*positions(0, 4), np.array([True, False, True, True]))  # the second game had no mines yet
    replay.add(*positions(10, 4), np.ones(4, dtype=bool))
    boards, mines = replay.chronological()
    assert boards[:, 0].tolist() == [3, 10, 11, 12, 13] and mines[:, 0].tolist() == [1, 0, 1, 0, 1]
    replay.add(*positions(20, 9), np.ones(9, dtype=bool))  # more than it holds at once: the last five
    assert replay.chronological()[0][:, 0].tolist() == [24, 25, 26, 27, 28]
    assert replay.resized(2).chronological()[0][:, 0].tolist() == [27, 28]


def test_a_saved_replay_draws_on_exactly_as_the_one_it_was(tmp_path: Path) -> None:
    replay = MineReplay(6, 3, seed=7)
    replay.add(*positions(0, 8), np.ones(8, dtype=bool))
    replay.sample(4)
    replay.save(tmp_path / "replay.npz")
    again = MineReplay.load(tmp_path / "replay.npz", 6)
    for ours, theirs in zip(replay.sample(10), again.sample(10), strict=True):
        np.testing.assert_array_equal(ours, theirs)
    assert (again.pos, again.size) == (replay.pos, replay.size)
    smaller = MineReplay.load(tmp_path / "replay.npz", 3)
    assert smaller.chronological()[0][:, 0].tolist() == [5, 6, 7]


def test_late_positions_are_drawn_as_often_as_their_weight_says(tmp_path: Path) -> None:
    """A position is late under a tenth of its safe cells still hidden (a flag covers a cell as a hidden one does);
    with weight W a late one is drawn W times as often as another, and a saved replay draws on the same."""
    from mine_env.engine.constants import FLAG, HIDDEN

    mines = np.zeros((2, 20), dtype=np.uint8)
    mines[:, :4] = 1  # 16 safe cells a board
    early = np.where(mines[0] == 1, HIDDEN, 1).astype(np.int8)
    early[4:8] = HIDDEN  # 4 of 16 safe cells hidden: not late
    late = np.where(mines[1] == 1, FLAG, 1).astype(np.int8)
    late[4] = HIDDEN  # 1 of 16 hidden: late
    replay = MineReplay(10, 20, seed=3, late_weight=9.0)
    replay.add(np.stack([early, late]), mines, np.ones(2, dtype=bool))
    drawn = replay.sample(20_000)[0]
    assert float((drawn[:, 5] == 1).mean()) == pytest.approx(0.9, abs=0.01)  # the late board alone shows cell 5
    replay.save(tmp_path / "replay.npz")
    again = MineReplay.load(tmp_path / "replay.npz", 10)
    again.late_weight = replay.late_weight
    for ours, theirs in zip(replay.sample(50), again.sample(50), strict=True):
        np.testing.assert_array_equal(ours, theirs)
    uniform = MineReplay(10, 20, seed=3)
    uniform.add(np.stack([early, late]), mines, np.ones(2, dtype=bool))
    assert float((uniform.sample(20_000)[0][:, 5] == 1).mean()) == pytest.approx(0.5, abs=0.02)


def test_mirrored_draws_show_each_position_under_every_image_alike(tmp_path: Path) -> None:
    """With 4 images a draw is its stored position under one of the board's 4 symmetries, its mines moved with it,
    each image about a quarter of the draws; a saved replay set to mirror draws on the same."""
    from mine_env.engine.symmetry import SYMMETRIES

    board = np.arange(6, dtype=np.int8).reshape(1, 6)  # a 2x3 board whose every image differs
    mines = (np.arange(6) % 4 == 1).astype(np.uint8).reshape(1, 6)
    replay = MineReplay(4, 6, seed=5)
    replay.add(board, mines, np.ones(1, dtype=bool))
    replay.mirror(4, 2, 3)
    boards, drawn_mines = replay.sample(4_000)
    images = [forward(board.reshape(2, 3)).reshape(-1) for forward, _ in SYMMETRIES[:4]]
    seen = np.array([[np.array_equal(b, image) for image in images] for b in boards])
    assert seen.sum(axis=1).tolist() == [1] * 4_000  # every draw is one of the images
    assert seen.mean(axis=0) == pytest.approx([0.25] * 4, abs=0.03)
    for b, m in zip(boards, drawn_mines, strict=True):  # the mines moved with their cells: under values 1 and 5
        assert sorted(b[m == 1].tolist()) == [1, 5]
    replay.save(tmp_path / "replay.npz")
    again = MineReplay.load(tmp_path / "replay.npz", 4)
    again.mirror(4, 2, 3)
    for ours, theirs in zip(replay.sample(20), again.sample(20), strict=True):
        np.testing.assert_array_equal(ours, theirs)


def test_a_replay_without_mirroring_draws_as_before() -> None:
    """One image makes no draw of its own: a run without the option draws the very positions it always did."""
    plain, mirrored_once = MineReplay(8, 3, seed=2), MineReplay(8, 3, seed=2)
    for replay in (plain, mirrored_once):
        replay.add(*positions(0, 8), np.ones(8, dtype=bool))
    mirrored_once.mirror(1, 1, 3)
    for ours, theirs in zip(plain.sample(30), mirrored_once.sample(30), strict=True):
        np.testing.assert_array_equal(ours, theirs)
    with pytest.raises(ValueError, match="not 2x2"):
        plain.mirror(4, 2, 2)


def test_drawing_from_an_empty_replay_says_so() -> None:
    with pytest.raises(ValueError, match="empty"):
        MineReplay(4, 3, seed=0).sample(1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mine_coef": 0.5, "mine_replay": 100}, "give both above 0, or neither"),
        ({"mine_coef": 0.5, "mine_replay_steps": 2}, "give both above 0, or neither"),
        ({"mine_replay": 100, "mine_replay_steps": 2}, "give --mine-coef above 0"),
        ({"mine_coef": 0.5, "mine_replay_late": 4.0}, "give --mine-replay too"),
        ({"mine_coef": 0.5, "mine_replay": 100, "mine_replay_steps": 2, "mine_replay_late": 0.0}, "a weight above 0"),
        ({"mine_coef": 0.5, "mine_replay_mirror": 4}, "give --mine-replay too"),
        ({"mine_coef": 0.5, "mine_replay": 100, "mine_replay_steps": 2, "mine_replay_mirror": 3}, "one of 1, 2, 4, 8"),
        ({"preset": "expert", "mine_coef": 0.5, "mine_replay": 100, "mine_replay_steps": 2, "mine_replay_mirror": 8},
         "has 4"),
    ],
)  # fmt: skip
def test_a_replay_without_its_other_half_is_refused_in_one_line(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        maskable_ppo.MaskablePPOConfig(**options).validate()

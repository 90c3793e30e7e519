"""The levers of streamed distillation (train.distill.stream.levers): varied mine counts and true-mine targets, each
off by default with the stream unchanged, on tiny boards on the CPU."""

from __future__ import annotations

import json
import queue
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch as th

import train.distill.stream.run as distill_stream
from agents.networks.saved import CellScorer
from agents.networks.trunks import BoardTrunk
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from train.distill.data import PositionCollector
from train.distill.labels import Labeller
from train.distill.losses import distill_loss, log_odds_loss
from train.distill.stream.data import LearnerPlay, PositionBuffer, produce
from train.distill.stream.levers import OracleBoards, board_density, lever_loss, produce_varied, scattered_positions
from train.distill.stream.run import StreamConfig, main, oracle_worker
from train.distill.stream.scattered import scattered_boards
from train.distill.stream.trainer import trunk_logits

BEGINNER = BoardSpec(9, 9, 10, "opening")


class StopAfter:
    """An event that is set after ``checks`` looks: a worker's loop that ends by itself."""

    def __init__(self, checks: int) -> None:
        self.checks = checks

    def is_set(self) -> bool:
        self.checks -= 1
        return self.checks < 0


def started(grids: np.ndarray) -> np.ndarray:
    return ~(grids == HIDDEN).all(axis=(1, 2))


def test_defaults_keep_the_plain_worker_and_its_chunks() -> None:
    config = StreamConfig()
    assert config.mine_bounds() is None and config.targets == "exact"
    assert oracle_worker(config) == (produce, ())
    out: queue.Queue[Any] = queue.Queue()
    produce((9, 9, 10, "opening"), 5, 8, 0.02, 300, out, StopAfter(2))
    chunk = out.get_nowait()
    with Labeller(workers=1) as labeller:
        grids, labels, _ = PositionCollector(BEGINNER, 8, 5, labeller, 0.02).collect(300, (1.0, 0.0, 0.0), None)
    assert len(chunk) == 2 and np.array_equal(chunk[0], grids)
    assert np.array_equal(chunk[1], labels.astype(np.float16))
    varied = oracle_worker(StreamConfig(mine_range="5,20", targets="mines"))
    assert varied == (produce_varied, ((5, 20), True, 0.0))
    assert oracle_worker(StreamConfig(scatter=0.25)) == (produce_varied, (None, False, 0.25))


def test_scattered_boards_open_only_safe_cells_with_their_numbers_and_are_labelled_exactly() -> None:
    spec = BoardSpec(16, 30, 99, "opening")
    counts = np.array([99, 40, 160, 99], dtype=np.int16)
    grids, mines = scattered_boards(spec, counts, np.random.default_rng(2))
    again, _ = scattered_boards(spec, counts, np.random.default_rng(2))
    assert np.array_equal(grids, again)  # every draw from the generator
    assert (mines.sum(axis=(1, 2)) == counts).all()
    revealed = grids != HIDDEN
    assert not (revealed & (mines > 0)).any()  # never a mine opened
    padded = np.pad(mines, ((0, 0), (1, 1), (1, 1)))
    around = sum(padded[:, 1 + dr:17 + dr, 1 + dc:31 + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    assert np.array_equal(grids[revealed], around[revealed].astype(np.int8))  # each number the mines around it
    opened = revealed.mean(axis=(1, 2))
    assert opened.min() > 0.02 and opened.max() < 0.95 and len(set(opened.round(3))) == 4  # rates drawn per board
    grids, labels, truth, kept = scattered_positions(spec, 6, np.random.default_rng(3), (40, 60))
    assert ((kept >= 40) & (kept <= 60)).all() and (truth.sum(axis=(1, 2)) == kept).all()
    assert np.allclose(labels[grids != HIDDEN], 0.0)  # an opened cell is no mine
    assert np.all(labels[truth == 1] > 0) and np.all(labels[(truth == 0) & (grids == HIDDEN)] < 1)
    with pytest.raises(ValueError, match="mine counts must lie"):
        scattered_boards(spec, np.array([480], dtype=np.int16), np.random.default_rng(0))


def test_the_buffer_draws_the_same_batches_whatever_it_keeps_beside_them() -> None:
    rng = np.random.default_rng(0)
    grids = rng.integers(-1, 3, (50, 4, 4)).astype(np.int8)
    labels = rng.random((50, 4, 4)).astype(np.float16)
    truth = (rng.random((50, 4, 4)) < 0.3).astype(np.float16)
    batches = []
    for keeps in ((False, None), (True, 10)):
        buffer = PositionBuffer(64, 4, 4, th.device("cpu"), th.Generator().manual_seed(3), 4, *keeps)
        buffer.add(grids[:20], labels[:20], truth[:20], np.arange(30, 50, dtype=np.int16))
        buffer.add(grids[20:], labels[20:])  # a chunk without them: its labels, the default count
        batches.append([buffer.sample(40, marks=True) for _ in range(4)])
    for plain, kept in zip(*batches, strict=True):
        assert plain.truth is None and plain.counts is None
        assert th.equal(plain.grids, kept.grids) and th.equal(plain.labels, kept.labels)
        assert kept.truth is not None and kept.counts is not None
        from_labels = kept.counts == 10
        assert th.equal(kept.truth[from_labels], kept.labels[from_labels])  # flipped alike
        assert set(kept.counts[~from_labels].tolist()) <= set(range(30, 50))
        assert not th.equal(kept.truth[~from_labels], kept.labels[~from_labels])


def test_mine_range_varies_the_counts_within_it_from_the_seed() -> None:
    grids, labels, truth, counts = OracleBoards(BEGINNER, 16, 7, 0.02, (5, 20)).collect(800)
    assert counts.min() >= 5 and counts.max() <= 20 and len(np.unique(counts)) > 8
    again = OracleBoards(BEGINNER, 16, 7, 0.02, (5, 20)).collect(800)
    assert all(np.array_equal(a, b) for a, b in zip((grids, labels, truth, counts), again, strict=True))
    assert not np.array_equal(OracleBoards(BEGINNER, 16, 8, 0.02, (5, 20)).collect(800)[3], counts)
    # each position is labelled with its own board's count: the chances of its hidden cells add up to it
    hidden = grids == HIDDEN
    on = started(grids)
    assert np.allclose(np.where(hidden, labels, 0).sum(axis=(1, 2))[on], counts[on], atol=1e-3)
    fixed = OracleBoards(BEGINNER, 16, 7, 0.02, None).collect(300)[3]
    assert (fixed == 10).all()


def test_true_mine_targets_are_the_layouts_mines() -> None:
    grids, labels, truth, counts = OracleBoards(BEGINNER, 16, 2, 0.02, (8, 14)).collect(600)
    on, hidden = started(grids), grids == HIDDEN
    assert on.sum() > 400
    assert np.isin(truth[on], (0.0, 1.0)).all()  # 0 or 1 once the game has its layout
    assert (truth[on][~hidden[on]] == 0).all()  # a revealed cell holds no mine
    assert np.array_equal(truth[on].sum(axis=(1, 2)), counts[on])  # the board's mines, all of them hidden
    certain = hidden & ((labels == 0) | (labels == 1))
    assert np.array_equal(truth[certain], labels[certain])  # where the oracle is sure, it agrees
    assert np.array_equal(truth[~on], labels[~on])  # no layout yet: the exact label stands in
    layout_boards = OracleBoards(BEGINNER, 4, 2, 0.0, None)
    layout_boards.collect(10)
    playing = layout_boards.boards.truth(np.zeros((4, 9, 9)))
    board_grids = layout_boards.boards.grids()
    mines = layout_boards.boards.mines.reshape(4, 9, 9)
    assert np.array_equal(playing[started(board_grids)], mines[started(board_grids)])


def test_the_learners_boards_carry_their_true_mines() -> None:
    with ThreadPoolExecutor(1) as pool:
        learner = LearnerPlay(BEGINNER, 8, 1, 0.0, pool, truth=True)
        for _ in range(6):
            learner.step(lambda grids: np.random.default_rng(0).random((len(grids), 81)))
        pool.shutdown(wait=True)
        chunks = learner.harvest()
    assert len(chunks) == 6
    for grids, labels, truth, counts in chunks:
        on = started(grids)
        assert counts is None and np.isin(truth[on], (0.0, 1.0)).all()
        assert (truth[on].sum(axis=(1, 2)) == 10).all() and np.array_equal(truth[~on], labels[~on])


def learner_outcomes(rescue: bool, moves: int) -> tuple[int, int, LearnerPlay]:
    """Games lost and won by a learner that scores its cells at random, over ``moves`` moves of 8 beginner boards."""
    rng = np.random.default_rng(3)
    lost = won = 0
    with ThreadPoolExecutor(1) as pool:
        learner = LearnerPlay(BEGINNER, 8, 1, 0.05, pool, rescue=rescue)
        engine_step = learner.engine.step

        def counted(actions: np.ndarray) -> Any:
            nonlocal lost, won
            result = engine_step(actions)
            won += int((result.terminated & result.success).sum())
            lost += int((result.terminated & ~result.success).sum())
            return result

        learner.engine.step = counted  # type: ignore[method-assign]
        for _ in range(moves):
            learner.step(lambda grids: rng.random((len(grids), 81)))
        pool.shutdown(wait=True)
    return lost, won, learner


def test_a_rescued_learner_plays_its_games_to_the_end() -> None:
    lost, won, plain = learner_outcomes(False, 40)
    assert lost > 0 and plain.rescued == 0
    lost, won, rescued = learner_outcomes(True, 40)
    assert lost == 0 and won > 0 and rescued.rescued > 0  # each mine it picks, exploring or not, is replaced
    assert len(rescued.harvest()) == 40  # every position is still labelled for training


def test_a_rescue_takes_the_best_scored_safe_cell() -> None:
    with ThreadPoolExecutor(1) as pool:
        learner = LearnerPlay(BoardSpec(1, 4, 2, "none"), 3, 1, 0.0, pool, rescue=True)
    mines = np.array([[1, 0, 1, 0], [1, 0, 1, 0], [0, 1, 1, 0]], dtype=np.uint8)
    scores = np.array([[9.0, 1.0, 8.0, 2.0], [9.0, 1.0, 8.0, 2.0], [1.0, 9.0, 8.0, 2.0]])
    hidden = np.ones((3, 4), dtype=bool)
    playable = hidden.copy()
    playable[1, 3] = False  # a wrong mark on board 1's best safe cell
    playable[2, 0] = False
    actions = learner._rescued(np.array([0, 0, 1]), scores, playable, hidden, mines, np.array([True, True, False]))
    assert actions.tolist() == [3, 1, 1]  # board 2's layout is not known yet: its move stands
    assert learner.rescued == 2
    playable[1] = [True, False, True, False]  # only mines are playable: a safe hidden cell is taken instead
    assert learner._rescued(np.array([0, 0, 0]), scores, playable, hidden, mines, np.ones(3, bool))[1] == 3


def test_the_targets_losses() -> None:
    rng = np.random.default_rng(1)
    logits = th.as_tensor(rng.normal(size=(6, 16)), dtype=th.float32)
    grids = th.as_tensor(rng.choice([HIDDEN, 0, 1], size=(6, 16)), dtype=th.int8)
    labels = th.as_tensor(rng.random((6, 16)), dtype=th.float32)
    truth = (th.as_tensor(rng.random((6, 16))) < labels).float()
    weight = th.ones_like(labels)
    exact = lever_loss(logits, grids, labels, truth, "exact", 0.1, 0.5)
    assert th.equal(exact, distill_loss(logits, grids, labels, weight, 0.1, 0.5))
    mines = lever_loss(logits, grids, labels, truth, "mines", 0.1, 0.0)
    assert th.equal(mines, distill_loss(logits, grids, truth, weight, 0.1))
    both = lever_loss(logits, grids, labels, truth, "both", 0.1, 0.5)
    mean = (exact + lever_loss(logits, grids, labels, truth, "mines", 0.1, 0.5)) / 2
    assert th.allclose(both, mean, atol=1e-6)  # cross-entropy is linear in its target
    assert not th.allclose(mines, lever_loss(logits, grids, labels, truth, "exact", 0.1, 0.0))


def test_per_position_the_cell_loss_is_the_mean_of_each_positions_own() -> None:
    rng = np.random.default_rng(2)
    logits = th.as_tensor(rng.normal(size=(3, 12)), dtype=th.float32)
    grids = th.full((3, 12), HIDDEN, dtype=th.int8)
    grids[1, :8] = 1  # a late position: 4 hidden cells against 12
    grids[2, :3] = 0
    grids[0, 0] = 0
    labels = th.as_tensor(rng.random((3, 12)), dtype=th.float32) * (grids == HIDDEN)
    for revealed_weight in (0.0, 0.1):  # the revealed cells' term too is each position's mean
        own = [float(lever_loss(logits[i : i + 1], grids[i : i + 1], labels[i : i + 1], None, "exact",
                                revealed_weight, 0.0)) for i in range(3)]  # fmt: skip
        assert float(lever_loss(logits, grids, labels, None, "exact", revealed_weight, 0.0,
                                per_position=True)) == pytest.approx(np.mean(own), rel=1e-5)  # fmt: skip
    own = [float(lever_loss(logits[i : i + 1], grids[i : i + 1], labels[i : i + 1], None, "exact", 0.0, 0.0))
           for i in range(3)]  # fmt: skip
    hidden = np.array([11, 4, 9])
    assert float(lever_loss(logits, grids, labels, None, "exact", 0.0, 0.0)) == pytest.approx(
        np.dot(own, hidden) / hidden.sum(), rel=1e-5)  # by default a position counts by its hidden cells


def test_the_log_odds_term_weighs_a_small_chance_put_ten_times_too_low_and_skips_certain_cells() -> None:
    labels = th.tensor([[0.0, 0.003, 0.5, 1.0, 0.003]])
    grids = th.tensor([[HIDDEN, HIDDEN, HIDDEN, HIDDEN, 0]], dtype=th.int8)  # the last cell is revealed
    hidden = grids == HIDDEN
    chances = labels.clamp(1e-6, 1 - 1e-6)
    exact = th.log((1 - chances) / chances)  # safety logits: minus the mine log-odds
    assert float(log_odds_loss(exact, labels, hidden)) == pytest.approx(0.0, abs=1e-6)
    off = exact + th.tensor([[5.0, 0.0, 0.0, -5.0, 5.0]])  # certain and revealed cells: no term
    assert float(log_odds_loss(off, labels, hidden)) == pytest.approx(0.0, abs=1e-6)
    off[0, 1] += float(np.log(10.0))  # its chance put at 0.0003
    assert float(log_odds_loss(off, labels, hidden)) == pytest.approx(np.log(10.0) ** 2 / 2, rel=1e-4)
    base = lever_loss(off, grids, labels, None, "exact", 0.1, 0.5)
    weighed = lever_loss(off, grids, labels, None, "exact", 0.1, 0.5, 0.2)
    assert float(weighed - base) == pytest.approx(0.2 * np.log(10.0) ** 2 / 2, rel=1e-4)
    small = exact.clone()
    small[0, 1] += float(np.log(10.0))  # that error alone: the cross-entropy barely sees it
    seen = lever_loss(small, grids, labels, None, "exact", 0.1, 0.5) - lever_loss(exact, grids, labels, None, "exact",
                                                                                0.1, 0.5)  # fmt: skip
    assert 0.0 < float(seen) < 0.01 < float(weighed - base)


def test_a_position_is_read_with_its_own_mine_count() -> None:
    net = BoardTrunk(channels=8, dilations=(1, 2), mines=10, pooled=(1,))
    grids = th.full((2, 5, 7), HIDDEN, dtype=th.int8)
    grids[:, 0, :3] = th.tensor([0, 1, 2], dtype=th.int8)
    counts = th.tensor([10, 20], dtype=th.int16)
    density = board_density(grids, counts)
    features = net.trunk(net.input_planes(grids, density))
    assert th.allclose(features[0], net(grids)[0])  # the preset's count: as it plays
    net.set_mine_count(20)
    assert th.allclose(features[1], net(grids)[1])
    assert net.mines == 20  # only set_mine_count changes the trunk's count; training never does


def test_bad_lever_settings_get_one_line(capsys) -> None:  # type: ignore[no-untyped-def]
    for value, message in (("5", "two integers"), ("20,5", "LO <= HI"), ("5,100", "do not fit")):
        with pytest.raises(SystemExit) as stop:
            main(["--mine-range", value, "--device", "cpu"])
        assert stop.value.code == 2 and message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--targets", "truth", "--device", "cpu"])
    assert "targets must be one of exact, mines, both" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--scatter", "1.5", "--device", "cpu"])
    assert "scatter is a share of the positions, from 0 to 1" in capsys.readouterr().err


def test_a_resume_keeps_both_levers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = StreamConfig(mine_range="5,20", targets="both", device="cpu")
    (tmp_path / "config.json").write_text(json.dumps(config.__dict__))
    (tmp_path / "checkpoint.pt").write_bytes(b"")
    seen: list[StreamConfig] = []
    monkeypatch.setattr(distill_stream, "run", lambda config, resume: seen.append(config) or resume)
    assert main(["--resume", str(tmp_path), "--minutes", "9"]) == 0
    assert (seen[0].mine_range, seen[0].targets, seen[0].minutes) == ("5,20", "both", 9.0)
    assert main(["--resume", str(tmp_path), "--targets", "mines"]) == 0  # an option given overrides it
    assert (seen[1].mine_range, seen[1].targets) == ("5,20", "mines")


@pytest.mark.slow
def test_a_short_run_with_the_levers_resumes(tmp_path: Path) -> None:
    options = ["--preset", "beginner", "--device", "cpu", "--producers", "1", "--producer-boards", "16",
               "--chunk", "256", "--learner-boards", "16", "--learner-workers", "1", "--channels", "8",
               "--dilations", "1,2", "--pooled", "1", "--batch-size", "32", "--buffer", "5000", "--runs-dir",
               str(tmp_path), "--run-name", "run", "--checkpoint-minutes", "0.05", "--mine-range", "5,20",
               "--targets", "both", "--scatter", "0.3", "--log-odds-weight", "0.05"]  # fmt: skip
    assert main([*options, "--minutes", "0.1"]) == 0
    run_dir = tmp_path / "run"
    assert main(["--resume", str(run_dir), "--minutes", "0.2"]) == 0
    state = th.load(run_dir / "checkpoint.pt", weights_only=False)
    assert state["resumes"] == 1 and state["step"] > 0
    config = state["config"]
    levers = (config["mine_range"], config["targets"], config["scatter"], config["log_odds_weight"])
    assert levers == ("5,20", "both", 0.3, 0.05)
    card = json.loads((run_dir / "dilated.json").read_text())
    assert card["network"]["trunk_kwargs"]["mines"] == 10  # it plays beginner's count, as any model of it
    assert np.isfinite(card["eval"]["held_out"]["dilated_error"])


def test_trunk_logits_take_the_density() -> None:
    network = CellScorer(BoardTrunk(channels=4, dilations=(1,), mines=3))
    grids = th.full((1, 4, 4), HIDDEN, dtype=th.int8)
    plain = trunk_logits(network, grids, [1])[0]
    assert th.equal(plain, trunk_logits(network, grids, [1], board_density(grids, th.tensor([3])))[0])
    assert not th.equal(plain, trunk_logits(network, grids, [1], board_density(grids, th.tensor([9])))[0])

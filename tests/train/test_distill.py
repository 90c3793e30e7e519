"""Oracle distillation: the labels, the dataset on disk, the network's inputs and reach, the script end to end,
``--init`` for the three RL algorithms, and the errors for bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th
from sb3_contrib import MaskablePPO

from agents.model_card import ModelCard
from agents.probability import mine_probabilities
from mine_env.engine.batch import BatchEngine
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from train.distill.config import DistillConfig
from train.distill.data import Dataset, PositionCollector
from train.distill.labels import Labeller, first_click_images, label_positions
from train.distill.losses import choice_loss, count_loss, distill_loss
from train.distill.network import new_model, safety_logits
from train.distill.trainer import Trainer
from train.sb3 import dqn, maskable_ppo, ppo
from train.sb3.evaluation import save_model
from train.sb3.networks import BoardFeatures, action_scores
from train.sb3.vec_env import BatchVecEnv
from train.sb3.warm_start import DQN_Q_SCALE, load_distilled

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[2]
SPEC = BoardSpec(5, 6, 5, "opening")
TINY = {"rows": 5, "cols": 6, "mines": 5, "channels": 8, "dilations": "1,2,1"}


def played_positions(spec: BoardSpec, boards: int = 16, steps: int = 6, seed: int = 3) -> np.ndarray:
    """Positions of games played by uniform hidden cells on the batched engine (N, rows, cols)."""
    engine = BatchEngine(spec, boards)
    engine.reset(seed)
    rng = np.random.default_rng(seed)
    grids = []
    for _ in range(steps):
        grid = engine.grids()
        grids.append(grid)
        keys = np.where(grid.reshape(boards, -1) == HIDDEN, rng.random((boards, spec.n_cells)), -1.0)
        engine.step(keys.argmax(axis=1))
    return np.concatenate(grids)


@pytest.fixture(scope="module")
def distilled_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A distilled model (untrained weights, seeded) saved the way the script saves one, with its card."""
    config = DistillConfig(**TINY, seed=5)
    th.manual_seed(5)
    model = new_model(config, SPEC)
    path = tmp_path_factory.mktemp("distilled") / "model.zip"
    save_model(model, path, "distill", config)
    return path


def test_labels_are_the_exact_probabilities() -> None:
    grids = played_positions(SPEC)
    labels = label_positions(grids, SPEC.mines, SPEC.first_click)
    touched = [i for i in range(len(grids)) if not (grids[i] == HIDDEN).all()]
    assert len(touched) > 20
    for i in touched:
        np.testing.assert_allclose(labels[i], mine_probabilities(grids[i], SPEC.mines), atol=1e-6)


def test_untouched_board_marks_the_first_click_and_its_mirror_images() -> None:
    labels = label_positions(np.full((1, 9, 9), HIDDEN, dtype=np.int8), 10, "opening")[0]
    assert {tuple(cell) for cell in np.argwhere(labels == 0.0)} == {(2, 2), (2, 6), (6, 2), (6, 6)}
    assert labels[0, 0] == pytest.approx(10 / 81)
    for index in range(8):  # the label of the mirrored board is the mirrored label
        mirrored = Trainer.symmetry(th.as_tensor(labels[None]), index)[0].numpy()
        np.testing.assert_array_equal(mirrored, labels)


def test_first_click_images_on_a_rectangle_are_the_four_flips() -> None:
    assert first_click_images(16, 30, "opening") == {(3, 3), (3, 26), (12, 3), (12, 26)}
    assert first_click_images(4, 5, "safe") == {(0, 0), (0, 4), (3, 0), (3, 4)}


def test_two_workers_label_like_one() -> None:
    grids = played_positions(SPEC, boards=32)
    with Labeller(workers=2, chunk=16) as labeller:
        spread = labeller.label(grids, SPEC.mines, SPEC.first_click)
    np.testing.assert_array_equal(spread, label_positions(grids, SPEC.mines, SPEC.first_click))


def test_inconsistent_position_is_refused() -> None:
    grid = np.full((1, 3, 3), HIDDEN, dtype=np.int8)
    grid[0, 1, 1] = 8
    with pytest.raises(ValueError, match="fits no layout of 2 mines"):
        label_positions(grid, 2, "opening")


def test_dataset_round_trip(tmp_path: Path) -> None:
    grids = played_positions(SPEC)
    dataset = Dataset(SPEC, grids, label_positions(grids, SPEC.mines, "opening").astype(np.float16), {"seed": 7})
    path = dataset.save(tmp_path / "positions")
    assert path.name == "positions.npz"
    again = Dataset.load(path)
    assert again.spec == SPEC and again.config == {"seed": 7}
    np.testing.assert_array_equal(again.grids, dataset.grids)
    np.testing.assert_array_equal(again.labels, dataset.labels)


def test_a_save_stopped_midway_leaves_the_previous_dataset_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run killed while writing its dataset must not leave a truncated file where the last good one was."""
    grids = played_positions(SPEC)
    dataset = Dataset(SPEC, grids, label_positions(grids, SPEC.mines, "opening").astype(np.float16))
    path = dataset.save(tmp_path / "positions.npz")

    def stopped(handle: Any, **arrays: Any) -> None:
        handle.write(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", stopped)
    with pytest.raises(KeyboardInterrupt):
        Dataset(SPEC, grids[:3], dataset.labels[:3]).save(path)
    assert len(Dataset.load(path)) == len(grids)
    assert [item.name for item in tmp_path.iterdir()] == ["positions.npz"]


def test_dataset_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"no dataset at .*missing\.npz: write one with"):
        Dataset.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_text("not a zip")
    with pytest.raises(ValueError, match="is not a distillation dataset"):
        Dataset.load(tmp_path / "junk.npz")
    dataset = Dataset.empty(SPEC, {})
    with pytest.raises(ValueError, match=r"positions of 5x6 boards with 5 mines .* not of the 9x9/10"):
        dataset.check_board(BoardSpec(9, 9, 10, "opening"), "d.npz")


def test_collector_mixes_policies_and_labels_every_position() -> None:
    with Labeller(workers=1) as labeller:
        collector = PositionCollector(SPEC, boards=8, seed=1, labeller=labeller, explore=0.1)
        grids, labels, stats = collector.collect(200, (0.5, 0.3, 0.2), lambda g: -np.zeros((len(g), SPEC.n_cells)))
    assert grids.shape == labels.shape == (200, 5, 6)
    assert stats["games"] > 0
    np.testing.assert_array_equal(labels, label_positions(grids, SPEC.mines, "opening"))


def test_network_sees_density_and_edge_and_any_board() -> None:
    th.manual_seed(0)
    features = BoardFeatures(BatchVecEnv(SPEC, 1).observation_space, channels=4, dilations=(1, 2), mines=5)
    grid = th.full((1, 9, 9), HIDDEN, dtype=th.int8)
    planes = features.input_planes(grid)
    assert planes.shape == (1, 14, 9, 9)
    assert th.all(planes[0, -2] == 1) and th.allclose(planes[0, -1], th.full((9, 9), 5 / 81))
    out = features(grid)[0, 0]
    assert not th.allclose(out[0, 0], out[4, 4])  # the edge is seen on an all-hidden board
    assert features(th.full((2, 16, 30), HIDDEN, dtype=th.int8)).shape == (2, 4, 16, 30)
    # receptive field 3 + 2 * (1 + 2) = 9 cells: a change 4 cells away reaches the cell, 5 cells away does not
    # (the density, a global input, held fixed)
    density = th.tensor([5 / 81])

    def cell(board: th.Tensor, row: int, col: int) -> th.Tensor:
        return features.trunk(features.input_planes(board, density))[0, :, row, col]

    near, far = grid.clone(), grid.clone()
    near[0, 4, 8] = 0
    far[0, 0, 0] = 0
    assert not th.allclose(cell(near, 4, 4), cell(grid, 4, 4))
    assert th.allclose(cell(far, 5, 5), cell(grid, 5, 5))


def test_distill_script_end_to_end(tmp_path: Path) -> None:
    """Two rounds on a tiny budget in a subprocess: models with cards, the log, the dataset; eval plays it."""
    options = [
        *[part for k, v in TINY.items() for part in (f"--{k}", str(v))], "--rounds", "2", "--positions", "300",
        "--boards", "16", "--samples", "128", "--batch-size", "32", "--eval-games", "8", "--label-workers", "2",
        "--runs-dir", str(tmp_path), "--run-name", "run", "--save-dataset", str(tmp_path / "data.npz"),
        "--no-progress-bar",
    ]  # fmt: skip
    result = subprocess.run([sys.executable, "-m", "train.distill", *options], cwd=ROOT, capture_output=True,
                            text=True, timeout=240)  # fmt: skip
    assert result.returncode == 0, result.stderr
    run_dir = tmp_path / "run"
    card = ModelCard.of_model(run_dir / "final_model.zip")
    assert card.algo == "distill" and card.board == (5, 6) and card.steps == 600
    assert (run_dir / "best_model.json").is_file()
    assert len((run_dir / "logs" / "progress.csv").read_text().splitlines()) == 3
    assert len(Dataset.load(tmp_path / "data.npz")) == 600
    from agents.networks.player import load_model_agent

    agent = load_model_agent(run_dir / "final_model.zip", BoardSpec(9, 9, 10, "opening"))
    grid = np.full((9, 9), HIDDEN, dtype=np.int8)
    assert 0 <= agent.act(grid, {"mines": 10, "action_mask": np.ones(81, np.int8)}) < 81


@pytest.mark.parametrize("algo", ["ppo", "maskable_ppo", "dqn"])
def test_init_starts_from_the_distilled_choices(algo: str, distilled_model: Path, tmp_path: Path) -> None:
    module = {"ppo": ppo, "maskable_ppo": maskable_ppo, "dqn": dqn}[algo]
    extra = {} if algo == "dqn" else {"n_steps": 16, "batch_size": 32}
    config = module.ALGORITHM.config_class(rows=5, cols=6, mines=5, num_envs=4, init=str(distilled_model),
                                           runs_dir=str(tmp_path), progress_bar=False, **extra)  # fmt: skip
    config.validate()
    env = BatchVecEnv(SPEC, 4)
    model = module.ALGORITHM.build(config, env)
    load_distilled(model, config.init, SPEC.mines)
    source = MaskablePPO.load(distilled_model, device="cpu").policy
    grids = played_positions(SPEC)
    with th.no_grad():
        expected = safety_logits(source, source.features_extractor.input_planes(th.as_tensor(grids)))
    scores = action_scores(model.policy, grids)
    if algo == "dqn":
        th.testing.assert_close(scores, DQN_Q_SCALE * expected)
    else:  # the distribution's logits are normalised: compare them up to the shift per row
        th.testing.assert_close(
            scores - scores.logsumexp(1, keepdim=True), expected - expected.logsumexp(1, keepdim=True)
        )
        # the critic has its own copy of the trunk, so its fresh head cannot rewrite the actor's
        assert model.policy.vf_features_extractor is not model.policy.pi_features_extractor
    masks = grids.reshape(len(grids), -1) == HIDDEN
    greedy = np.where(masks, expected.numpy(), -np.inf).argmax(axis=1)
    first = grids[:4]  # the first observations of the run's boards: nothing revealed yet
    assert (first == HIDDEN).all()
    kwargs = {"action_masks": masks[:4]} if algo == "maskable_ppo" else {}
    actions, _ = model.predict(first, deterministic=True, **kwargs)
    np.testing.assert_array_equal(actions, greedy[:4])
    if algo != "ppo":
        actions, _ = model.predict(grids, deterministic=True, action_masks=masks)
        np.testing.assert_array_equal(actions, greedy)


def test_init_script_runs(distilled_model: Path, tmp_path: Path) -> None:
    options = ["--rows", "5", "--cols", "6", "--mines", "5", "--num-envs", "4", "--n-steps", "16", "--batch-size",
               "32", "--steps", "64", "--eval-games", "4", "--init", str(distilled_model), "--runs-dir",
               str(tmp_path), "--run-name", "ft", "--no-progress-bar", "--checkpoint-every", "0"]  # fmt: skip
    result = subprocess.run([sys.executable, "-m", "train.sb3.maskable_ppo", *options], cwd=ROOT, capture_output=True,
                            text=True, timeout=240)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert ModelCard.of_model(tmp_path / "ft" / "final_model.zip").config["init"] == str(distilled_model)


def test_init_refuses_a_model_for_another_observation(tmp_path: Path) -> None:
    shipped = ROOT / "models" / "dqn_beginner_opening.zip"
    config = ppo.PPOConfig(init=str(shipped), runs_dir=str(tmp_path))
    with pytest.raises(ValueError, match="is a dqn model: a ppo run starts from a distilled model or from a model"):
        config.validate()
    with pytest.raises(FileNotFoundError, match="does not exist"):
        dqn.DQNConfig(init=str(tmp_path / "nothing.zip")).validate()


def test_distill_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from support import run_cli

    status, _, err = run_cli(["train", "distill", "--dataset", str(tmp_path / "none.npz")], capsys)
    assert status == 2 and "no dataset at" in err
    Dataset.empty(SPEC, {}).save(tmp_path / "small.npz")
    status, _, err = run_cli(["train", "distill", "--dataset", str(tmp_path / "small.npz"), "--positions", "0",
                              "--runs-dir", str(tmp_path)], capsys)  # fmt: skip
    assert status == 2 and "holds positions of 5x6 boards" in err
    status, _, err = run_cli(["train", "distill", "--shares", "1,2"], capsys)
    assert status == 2 and "shares must be 3 non-negative numbers" in err


def test_choice_loss_rewards_mass_on_the_safest_cells() -> None:
    labels = th.tensor([[0.0, 0.0, 0.5, 0.2], [0.1, 0.3, 0.3, 0.9]])
    candidates = th.tensor([[True, True, True, False], [True, True, True, True]])
    right = th.tensor([[5.0, 5.0, -5.0, 9.0], [5.0, 0.0, 0.0, -5.0]])  # the 9 is not a candidate: ignored
    wrong = th.tensor([[-5.0, -5.0, 5.0, 9.0], [-5.0, 5.0, 0.0, 5.0]])
    assert choice_loss(right, labels, candidates) < 0.01
    assert choice_loss(wrong, labels, candidates) > 9.0
    one_safe_cell = th.tensor([[20.0, -20.0, -5.0, 0.0]])  # all the mass on one of two safe cells is enough
    assert choice_loss(one_safe_cell, labels[:1], candidates[:1]) < 1e-6
    none = th.zeros_like(candidates)
    assert choice_loss(right, labels, none) == 0.0


@pytest.mark.parametrize("term", ["choice", "count"])
def test_each_weight_adds_its_loss(term: str) -> None:
    grids = th.full((1, 4), HIDDEN, dtype=th.int8)
    labels, logits = th.tensor([[0.0, 0.5, 0.5, 0.5]]), th.tensor([[-1.0, 1.0, 1.0, 1.0]])
    weight = th.ones_like(labels)
    plain = distill_loss(logits, grids, labels, weight, 0.1)
    both = distill_loss(logits, grids, labels, weight, 0.1, **{f"{term}_weight": 0.5})
    hidden = grids == HIDDEN
    term_loss = (choice_loss(logits, labels, hidden) if term == "choice"
                 else count_loss(logits, labels, hidden.float()))  # fmt: skip
    assert th.isclose(both, plain + 0.5 * term_loss)
    with pytest.raises(ValueError, match=f"{term}_weight must be 0 or more"):
        DistillConfig(**TINY, **{f"{term}_weight": -1.0}).validate()


def test_count_loss_is_the_squared_error_of_the_summed_mine_chances() -> None:
    labels = th.tensor([[0.0, 0.5, 0.5, 1.0], [0.25, 0.25, 0.25, 0.25]])
    hidden = th.tensor([[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]])  # the 1.0 label is on a revealed cell
    exact = th.log((1 - labels) / labels.clamp(min=1e-6)).clamp(-30, 30)  # safety logits of the labels
    assert count_loss(exact, labels, hidden) < 1e-8
    # each cell a little off the same way: cell-wise small, but the second board is 0.4 of a mine off in total
    off = exact.clone()
    off[1] = th.log(th.tensor(0.65 / 0.35))  # mine chance 0.35 instead of 0.25 on all four cells
    assert th.isclose(count_loss(off, labels, hidden), th.tensor(0.4**2 / 2))
    # errors that cancel in the sum cost nothing: the cell-wise loss is there for those
    swapped = exact.clone()
    swapped[0, 1], swapped[0, 2] = th.log(th.tensor(0.6 / 0.4)), th.log(th.tensor(0.4 / 0.6))
    assert count_loss(swapped, labels, hidden) < 1e-8


def test_critic_warmup_keeps_the_distilled_actor_until_it_ends(distilled_model: Path, tmp_path: Path) -> None:
    from train.sb3.training import train

    def trained(warmup: int, name: str) -> tuple[dict[str, th.Tensor], dict[str, th.Tensor]]:
        config = maskable_ppo.MaskablePPOConfig(
            rows=5, cols=6, mines=5, num_envs=4, n_steps=16, batch_size=32, steps=64, eval_games=0,
            checkpoint_every=0, init=str(distilled_model), critic_warmup=warmup, runs_dir=str(tmp_path),
            run_name=name, progress_bar=False,
        )  # fmt: skip
        policy = MaskablePPO.load(train(maskable_ppo.ALGORITHM, config) / "final_model.zip").policy
        return policy.pi_features_extractor.state_dict(), policy.vf_features_extractor.state_dict()

    start = MaskablePPO.load(distilled_model).policy.features_extractor.state_dict()
    actor, critic = trained(64, "warm")  # one rollout of 64 steps, all of it warm-up
    for name, value in start.items():
        th.testing.assert_close(actor[name], value)
    assert any(not th.equal(critic[name], value) for name, value in start.items() if value.is_floating_point())
    actor, _ = trained(0, "cold")
    assert any(not th.equal(actor[name], value) for name, value in start.items() if value.is_floating_point())
    with pytest.raises(ValueError, match="critic_warmup must be at least 0"):
        maskable_ppo.MaskablePPOConfig(critic_warmup=-1).validate()


def test_a_crop_is_seen_with_the_board_around_it() -> None:
    """The loss covers the window; the input adds the network's receptive radius of board on each side where the
    board has it, so no cell of the loss takes a window side for the board's edge."""
    spec = BoardSpec(6, 20, 15, "opening")
    config = DistillConfig(rows=6, cols=20, mines=15, channels=4, dilations="1,2", crop_rows=6, crop_cols=4,
                                   batch_size=2)  # fmt: skip
    reach = config.receptive_radius()
    assert reach == 4
    columns = np.broadcast_to(np.arange(20, dtype=np.float16) / 64, (3, 6, 20))  # each label names its column
    dataset = Dataset(spec, np.full((3, 6, 20), HIDDEN, np.int8), columns.copy())
    policy = new_model(config, spec).policy
    trainer = Trainer(config, policy, total_steps=1)
    lefts = set()
    for _ in range(60):
        grids, labels, weight, *_ = trainer.batch(dataset)
        assert grids.shape == labels.shape == weight.shape and grids.shape[1] == 6
        loss_columns = np.flatnonzero(weight[0, 0].numpy())
        assert weight.sum() == 2 * 6 * 4 and len(loss_columns) == 4
        left = round(float(labels[0, 0, loss_columns[0]]) * 64)  # the window's first column on the board
        assert loss_columns[0] == min(left, reach)  # as much board on the left as there is, up to the reach
        assert grids.shape[2] - 1 - loss_columns[-1] == min(20 - (left + 4), reach)
        lefts.add(left)
    assert {0, 16} <= lefts or len(lefts) > 8  # windows drawn across the board


def test_augmented_minibatches_are_symmetric_images_with_their_own_labels() -> None:
    """With --augment every minibatch is one of the board's 8 symmetries, grids and labels moved alike: the
    labels are still the exact probabilities of the grids the network sees."""
    grids = played_positions(SPEC)
    touched = grids[[not (grid == HIDDEN).all() for grid in grids]]
    dataset = Dataset(SPEC, touched, label_positions(touched, SPEC.mines, "opening").astype(np.float16))
    config = DistillConfig(**TINY, augment=True, batch_size=4)
    trainer = Trainer(config, new_model(config, SPEC).policy, total_steps=1)
    shapes = set()
    for _ in range(12):
        batch_grids, labels, weight, *_ = trainer.batch(dataset)
        shapes.add(tuple(batch_grids.shape[1:]))
        assert labels.shape == weight.shape == batch_grids.shape
        for grid, label in zip(batch_grids.numpy(), labels.numpy(), strict=True):
            np.testing.assert_allclose(label, mine_probabilities(grid, SPEC.mines), atol=1e-3)
    assert shapes == {(5, 6), (6, 5)}  # transposed images come too
    board = th.arange(30).view(1, 5, 6)
    images = {Trainer.symmetry(board, index).numpy().tobytes() for index in range(8)}
    assert len(images) == 8


def test_late_share_draws_that_share_of_each_minibatch_from_the_endgame() -> None:
    """A late position has fewer than a tenth of the safe cells still hidden; --late-share puts that share of
    every minibatch among them, and a dataset without any falls back to uniform minibatches."""
    spec = BoardSpec(5, 6, 5, "opening")  # 25 safe cells: late means at most 2 of them hidden
    grids = np.zeros((10, 5, 6), np.int8)
    grids[:, :, :1] = HIDDEN  # 5 hidden cells: every safe cell revealed
    grids[1:, 1, 1:4] = HIDDEN  # 8 hidden: 3 safe ones hidden, not late
    dataset = Dataset(spec, grids, np.zeros(grids.shape, np.float16))
    np.testing.assert_array_equal(dataset.late_positions(), [0])
    config = DistillConfig(**TINY, late_share=0.25, batch_size=8)
    trainer = Trainer(config, new_model(config, SPEC).policy, total_steps=1)
    index = trainer.positions(len(dataset), trainer.focus_groups(dataset))
    assert len(index) == 8 and (index[-2:] == 0).all()
    assert len(trainer.positions(len(dataset), [(0.25, np.array([], np.int64))])) == 8
    with pytest.raises(ValueError, match="late_share must be between 0 and 1"):
        DistillConfig(**TINY, late_share=1.5).validate()


def test_guess_share_draws_from_the_positions_without_a_safe_cell() -> None:
    """A true-guess position has every hidden cell's label above 0 (the untouched board does not count);
    --guess-share puts its share of every minibatch among them, beside the late share."""
    spec = BoardSpec(5, 6, 5, "opening")
    grids = np.full((4, 5, 6), HIDDEN, np.int8)
    labels = np.full(grids.shape, 0.2, np.float16)  # every hidden cell risky...
    labels[2, 4, 5] = 0.0  # ...but one of position 2's
    grids[1:, 0, 0] = 1  # positions 1-3 started, 0 is the untouched board
    dataset = Dataset(spec, grids, labels)
    np.testing.assert_array_equal(dataset.guess_positions(), [1, 3])
    config = DistillConfig(**TINY, guess_share=0.5, batch_size=8)
    trainer = Trainer(config, new_model(config, SPEC).policy, total_steps=1)
    index = trainer.positions(len(dataset), trainer.focus_groups(dataset))
    assert len(index) == 8 and set(index[-4:].tolist()) <= {1, 3}
    with pytest.raises(ValueError, match="guess_share must be between 0 and 1 - late_share"):
        DistillConfig(**TINY, late_share=0.6, guess_share=0.5).validate()

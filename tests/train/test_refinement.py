"""The count refinement: its checks of a draft against the numbers and the mine count, its start as the identity
when a plain network is grown into it, and the errors for what it cannot do."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch as th

from agents.networks.layers import CountRefinement
from agents.networks.saved import CellScorer
from agents.networks.trunks import BoardTrunk
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.spec import BoardSpec
from train.distill.network import safety_logits, start_from
from train.distill.rounds import run as distill
from train.distill.rounds.config import DistillConfig
from train.distill.rounds.run import new_distilled
from train.distill.saved import save_distilled
from train.distilled import distilled_network
from train.sb3 import maskable_ppo
from train.sb3.networks import action_scores
from train.sb3.vec_env import BatchVecEnv
from train.sb3.warm_start import load_distilled

pytestmark = pytest.mark.train

SPEC = BoardSpec(6, 7, 6, "opening")
SHAPE = {"rows": 6, "cols": 7, "mines": 6, "channels": 6, "dilations": "1,2,1"}


def test_count_planes_measure_the_draft_against_numbers_and_mines_left() -> None:
    """Rows ``2 H H`` / ``1 M H`` with 3 mines in all, drafted at 0.25, 0.5 and 0.75 on the hidden cells."""
    h = HIDDEN
    grid = th.tensor([[[2, h, h], [1, MINE, h]]], dtype=th.int8)
    extractor = BoardTrunk(channels=4, dilations=(1,), mines=3)
    planes = extractor.input_planes(grid)
    chances = th.tensor([[0.0, 0.25, 0.5], [0.0, 0.0, 0.75]])
    draft = th.log((1 - chances) / chances.clamp(min=1e-6)).view(1, 1, 2, 3)
    checks = CountRefinement.count_planes(draft, planes)[0]
    assert checks.shape == (CountRefinement.PLANES, 2, 3)
    th.testing.assert_close(checks[0], chances * th.tensor([[0.0, 1, 1], [0, 0, 1]]))
    # the 2 sees 0.25 + the shown mine: residual +0.75; the 1 sees the same: -0.25; only (0, 1) touches them
    th.testing.assert_close(checks[1], th.tensor([[0.0, 0.5, 0.0], [0.0, 0.0, 0.0]]))
    th.testing.assert_close(checks[2], th.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]))
    th.testing.assert_close(checks[3], th.tensor([[0.0, 0.5, 0.0], [0.0, 0.0, 0.0]]))  # each has one covered cell
    th.testing.assert_close(checks[4], th.full((2, 3), 0.5))  # 2 mines left, 1.5 drafted
    th.testing.assert_close(checks[5], th.full((2, 3), 0.5 / 3))
    th.testing.assert_close(checks[6], th.tensor([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]))


def random_positions(count: int, seed: int) -> th.Tensor:
    rng = np.random.default_rng(seed)
    codes = rng.integers(-1, 9, size=(count, SPEC.rows, SPEC.cols))
    return th.as_tensor(np.where(rng.random(codes.shape) < 0.5, HIDDEN, codes).astype(np.int8))


def logits(policy: CellScorer, grids: th.Tensor) -> th.Tensor:
    with th.no_grad():
        return safety_logits(policy, policy.trunk.input_planes(grids))


def saved(tmp_path: Path, name: str, seed: int = 2, **options: object) -> Path:
    """A distilled model of random (seeded) weights, saved with its card."""
    config = DistillConfig(**{**SHAPE, **options}, seed=seed)
    model = new_distilled(config, SPEC)
    path = tmp_path / name
    save_distilled(model, path, SPEC, config, 0)
    return path


@pytest.mark.parametrize("channels, refine", [(6, 1), (6, 3), (9, 2)])
def test_a_plain_network_grown_into_refinement_gives_the_same_logits(
    tmp_path: Path, channels: int, refine: int
) -> None:
    plain = saved(tmp_path, "plain")
    source = new_distilled(DistillConfig(**SHAPE), SPEC)
    start_from(source, str(plain), SPEC.mines)
    config = DistillConfig(**{**SHAPE, "channels": channels}, refine=refine, seed=9)
    refined = new_distilled(config, SPEC)
    start_from(refined, str(plain), SPEC.mines)
    grids = random_positions(32, seed=4)
    th.testing.assert_close(logits(refined, grids), logits(source, grids), atol=1e-5, rtol=0)
    # the update starts at zero and is the first part to learn: it gets a gradient
    loss = safety_logits(refined, refined.trunk.input_planes(grids)).square().mean()
    loss.backward()
    assert refined.trunk.refinement.update.weight.grad.abs().sum() > 0


def test_refinement_weights_load_for_any_number_of_passes_but_do_not_grow(tmp_path: Path) -> None:
    start = saved(tmp_path, "refined", refine=2)
    policy = new_distilled(DistillConfig(**SHAPE, refine=2), SPEC)
    start_from(policy, str(start), SPEC.mines)
    three = new_distilled(DistillConfig(**SHAPE, refine=3), SPEC)
    start_from(three, str(start), SPEC.mines)
    assert th.equal(three.trunk.refinement.mix.weight, policy.trunk.refinement.mix.weight)
    wider = new_distilled(DistillConfig(**{**SHAPE, "channels": 8}, refine=2), SPEC)
    with pytest.raises(ValueError, match="count refinement passes grows into nothing else"):
        start_from(wider, str(start), SPEC.mines)
    plain = new_distilled(DistillConfig(**SHAPE), SPEC)
    with pytest.raises(ValueError, match="--refine 1 or more"):
        start_from(plain, str(start), SPEC.mines)


def test_refinement_reads_the_board_s_count_beyond_the_receptive_field() -> None:
    """Two boards that differ only in a cell beyond the corner's reach (radius 2 + 3): with the update at zero the
    corner's logit is the same, with a trained update the board's residual carries the difference to it."""
    config = DistillConfig(**{**SHAPE, "dilations": "1"}, refine=1, seed=1)
    policy = new_distilled(config, SPEC)
    grids = th.full((2, SPEC.rows, SPEC.cols), HIDDEN, dtype=th.int8)
    grids[1, 5, 6] = 1
    planes = policy.trunk.input_planes(grids, th.full((2,), 0.2))  # the same density: only the cell

    def corner_logits() -> th.Tensor:
        with th.no_grad():
            return safety_logits(policy, planes)[:, 0]

    update = policy.trunk.refinement.update
    with th.no_grad():
        update.weight.zero_()
        update.bias.zero_()
    plain = corner_logits()
    assert plain[0] == plain[1]
    with th.no_grad():
        update.weight.normal_(0, 1.0)
    refined = corner_logits()
    assert not math.isclose(float(refined[0]), float(refined[1]), abs_tol=1e-6)


def test_init_from_a_refining_network_keeps_its_choices(tmp_path: Path) -> None:
    start = saved(tmp_path, "refined", refine=2)
    source = distilled_network(start, SPEC.mines)
    config = maskable_ppo.ALGORITHM.config_class(
        **{key: SHAPE[key] for key in ("rows", "cols", "mines")}, num_envs=4, n_steps=16, batch_size=32,
        init=str(start), runs_dir=str(tmp_path), progress_bar=False,
    )  # fmt: skip
    config.validate()
    model = maskable_ppo.ALGORITHM.build(config, BatchVecEnv(SPEC, 4))
    load_distilled(model, config.init, SPEC.mines)
    assert model.policy.features_extractor.refine == 2
    grids = random_positions(16, seed=6).numpy()
    expected = logits(source, th.as_tensor(grids))
    scores = action_scores(model.policy, grids)
    th.testing.assert_close(scores - scores.logsumexp(1, keepdim=True), expected - expected.logsumexp(1, keepdim=True))


@pytest.mark.parametrize("options, message", [
    ({"refine": -1}, "refine must be 0 or more"),
    ({"refine": 1, "crop_rows": 4, "crop_cols": 4}, "--refine and --crop-rows/--crop-cols do not go together"),
])  # fmt: skip
def test_bad_refinement_settings_are_refused(options: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DistillConfig(**SHAPE, **options).validate()


def test_a_run_with_refinement_trains_and_saves(tmp_path: Path) -> None:
    config = DistillConfig(**SHAPE, refine=2, rounds=1, positions=200, boards=16, samples=64, batch_size=32,
                                   eval_games=4, label_workers=1, runs_dir=str(tmp_path), run_name="run",
                                   progress_bar=False)  # fmt: skip
    run_dir = distill.run(config)
    policy = distilled_network(run_dir / "final_model", SPEC.mines)
    assert policy.trunk.refine == 2
    assert policy.trunk.refinement.update.weight.abs().sum() > 0  # trained away from its zero start

"""Growing a distilled network into a wider or deeper one: the same logits at the start, then it trains."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

import torch as th

from agents.networks.saved import CellScorer
from mine_env.engine.spec import BoardSpec
from train.distill.grow import match_blocks
from train.distill.network import safety_logits, start_from
from train.distill.rounds.config import DistillConfig
from train.distill.rounds.run import new_distilled
from train.distill.saved import save_distilled

pytestmark = pytest.mark.train

SPEC = BoardSpec(6, 7, 6, "opening")


def random_positions(count: int, seed: int) -> th.Tensor:
    """Grids with hidden cells and numbers in random places (the network reads any grid)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(-1, 9, size=(count, SPEC.rows, SPEC.cols))
    return th.as_tensor(np.where(rng.random(codes.shape) < 0.5, -1, codes).astype(np.int8))


def logits(policy: CellScorer, grids: th.Tensor) -> th.Tensor:
    with th.no_grad():
        return safety_logits(policy, policy.trunk.input_planes(grids))


@pytest.fixture(scope="module")
def small_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = DistillConfig(rows=6, cols=7, mines=6, channels=6, dilations="1,2,1", seed=2)
    model = new_distilled(config, SPEC)
    path = tmp_path_factory.mktemp("small") / "model"
    save_distilled(model, path, SPEC, config, 0)
    return path


@pytest.mark.parametrize("channels, dilations", [(6, "1,2,4,1"), (10, "1,2,1"), (9, "1,1,2,3,1,1")])
def test_grown_network_gives_the_same_logits_and_can_learn(small_model: Path, channels: int, dilations: str) -> None:
    small = new_distilled(DistillConfig(rows=6, cols=7, mines=6, channels=6, dilations="1,2,1"), SPEC)
    start_from(small, str(small_model), SPEC.mines)
    config = DistillConfig(rows=6, cols=7, mines=6, channels=channels, dilations=dilations, seed=9)
    th.manual_seed(9)
    large = new_distilled(config, SPEC)
    grids = random_positions(32, seed=4)
    before = logits(large, grids)
    start_from(large, str(small_model), SPEC.mines)
    after = logits(large, grids)
    assert not th.allclose(before, after)
    assert th.allclose(after, logits(small, grids), atol=1e-5)
    # every weight of the grown network gets a gradient path: the new parts are not dead
    loss = safety_logits(large, large.trunk.input_planes(grids)).square().mean()
    loss.backward()
    assert all(parameter.grad is not None and parameter.grad.abs().sum() > 0
               for parameter in large.head.parameters())  # fmt: skip


@pytest.mark.parametrize("channels, dilations, message", [
    (4, "1,2,1", "6 channels into one of 4"),
    (6, "1,1,2", "must appear, in order"),
    (8, "2,1", "must appear, in order"),
])  # fmt: skip
def test_a_network_that_cannot_hold_the_start_is_refused(
    small_model: Path, channels: int, dilations: str, message: str
) -> None:
    config = DistillConfig(rows=6, cols=7, mines=6, channels=channels, dilations=dilations)
    large = new_distilled(config, SPEC)
    with pytest.raises(ValueError, match=message):
        start_from(large, str(small_model), SPEC.mines)


def test_blocks_are_matched_in_order() -> None:
    assert match_blocks((1, 2, 1), (1, 1, 2, 4, 1)) == [0, None, 1, None, 2]
    assert match_blocks((1, 1), (1, 1, 1)) == [0, 1, None]


def pooled_model(tmp_path: Path, pooled: str) -> Path:
    """A small network whose global-pooling biases have random (non-zero) weights, saved."""
    config = DistillConfig(rows=6, cols=7, mines=6, channels=6, dilations="1,2,1", pooled=pooled, seed=3)
    th.manual_seed(3)
    model = new_distilled(config, SPEC)
    with th.no_grad():
        for bias in model.trunk.global_biases.values():
            bias.linear.weight.normal_(0, 0.3)
            bias.linear.bias.normal_(0, 0.3)
    path = tmp_path / f"pooled{pooled}"
    save_distilled(model, path, SPEC, config, 0)
    return path


@pytest.mark.parametrize("channels, dilations, pooled", [(6, "1,2,1", "1"), (10, "1,1,2,3,1,1", "0,2,5")])
def test_global_pooling_is_added_or_kept_with_the_same_logits(
    small_model: Path, tmp_path: Path, channels: int, dilations: str, pooled: str
) -> None:
    grids = random_positions(32, seed=5)
    for start in (small_model, pooled_model(tmp_path, "1")):  # block 1 of the start is block 1 or 2 after growth
        source = new_distilled(DistillConfig(rows=6, cols=7, mines=6, channels=6, dilations="1,2,1",
                                                         pooled="1" if start != small_model else ""), SPEC)  # fmt: skip
        start_from(source, str(start), SPEC.mines)
        config = DistillConfig(rows=6, cols=7, mines=6, channels=channels, dilations=dilations,
                                       pooled=pooled, seed=9)  # fmt: skip
        large = new_distilled(config, SPEC)
        start_from(large, str(start), SPEC.mines)
        assert th.allclose(logits(large, grids), logits(source, grids), atol=1e-5)
    loss = safety_logits(large, large.trunk.input_planes(grids)).square().mean()
    loss.backward()
    biases = large.trunk.global_biases.values()
    assert all(bias.linear.weight.grad.abs().sum() > 0 for bias in biases)


def test_growth_that_would_drop_global_pooling_is_refused(tmp_path: Path) -> None:
    start = pooled_model(tmp_path, "1")
    for dilations, pooled in (("1,2,1", ""), ("1,2,1", "0"), ("1,1,2,1", "1")):
        config = DistillConfig(rows=6, cols=7, mines=6, channels=6, dilations=dilations, pooled=pooled)
        with pytest.raises(ValueError, match="global pooling"):
            start_from(new_distilled(config, SPEC), str(start), SPEC.mines)


def test_global_pooling_sees_beyond_the_receptive_field(tmp_path: Path) -> None:
    """One 3x3 block reaches 2 cells; with a pooled bias, a cell far away changes the corner's logit."""
    config = DistillConfig(rows=6, cols=7, mines=6, channels=4, dilations="1", pooled="0", seed=1)
    policy = new_distilled(config, SPEC)
    grids = th.full((2, 6, 7), -1, dtype=th.int8)
    grids[1, 5, 6] = 0  # a revealed cell far from (0, 0)
    planes = policy.trunk.input_planes(grids, th.full((2,), 0.2))  # the same density: only the cell
    with th.no_grad():
        policy.trunk.global_biases["0"].linear.weight.zero_()

    def corner_logits() -> th.Tensor:
        with th.no_grad():
            return safety_logits(policy, planes)[:, 0]

    plain = corner_logits()
    assert plain[0] == plain[1]  # zero pooling weights: only the receptive field counts
    with th.no_grad():
        policy.trunk.global_biases["0"].linear.weight.normal_(0, 1.0)
    pooled = corner_logits()
    assert pooled[0] != pooled[1]
    with pytest.raises(ValueError, match="pooled must name distinct blocks 0 to 0"):
        DistillConfig(rows=6, cols=7, mines=6, dilations="1", pooled="1").validate()
    with pytest.raises(ValueError, match="--pooled and --crop-rows"):
        DistillConfig(rows=6, cols=7, mines=6, dilations="1", pooled="0", crop_rows=4).validate()

"""The moving average of a network's weights (train.weight_average)."""

from __future__ import annotations

import pytest
import torch as th
from torch import nn

from train.weight_average import WeightAverage, check_decay, decay_at


def network() -> nn.Module:
    th.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))


def test_the_decay_is_a_share_from_0_up_to_1() -> None:
    for bad in (-0.1, 1.0, 2.0):
        with pytest.raises(ValueError, match="from 0 \\(off\\) up to 1"):
            check_decay(bad)
    check_decay(0.0)
    assert decay_at(0.999, 0) == pytest.approx(0.1) and decay_at(0.999, 10**6) == 0.999  # few updates move it more


def test_the_average_moves_towards_the_weights_by_the_decay() -> None:
    module = network()
    before = module[0].weight.detach().clone()
    average = WeightAverage(module, 0.9, updates=1000)
    with th.no_grad():
        module[0].weight.add_(1.0)
    average.update()
    assert th.allclose(average.state_dict()["0.weight"], before + 0.1)
    assert average.updates == 1001 and "1.num_batches_tracked" not in average.state_dict()


def test_the_averaged_weights_play_inside_the_block_and_the_trained_ones_come_back() -> None:
    module = network().eval()
    average = WeightAverage(module, 0.5, updates=1000)
    with th.no_grad():
        module[0].weight.mul_(3.0)
    trained = module[0].weight.detach().clone()
    inputs = th.ones(2, 3)
    out = module(inputs)
    with average.applied() as applied:
        assert applied is module and th.allclose(module[0].weight, trained / 3.0)
        assert not th.allclose(module(inputs), out)
    assert th.equal(module[0].weight, trained) and th.allclose(module(inputs), out)


def test_without_warm_up_every_update_moves_the_average_by_one_minus_the_decay() -> None:
    module = network()
    before = module[0].weight.detach().clone()
    average = WeightAverage(module, 0.75, warm_up=False)
    with th.no_grad():
        module[0].weight.add_(4.0)
    average.update()
    assert th.allclose(average.state_dict()["0.weight"], before + 1.0)  # a quarter of the way at the first update


def test_a_saved_average_continues_where_it_was() -> None:
    module = network()
    average = WeightAverage(module, 0.9, updates=5)
    with th.no_grad():
        module[0].bias.add_(2.0)
    average.update()
    restored = WeightAverage(network(), 0.9, average.state_dict(), average.updates)
    assert restored.updates == 6
    assert all(th.equal(restored.state_dict()[key], value) for key, value in average.state_dict().items())

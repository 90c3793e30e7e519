"""studies/weight_soup.py: the soup of models is the mean of their weights, saved as a model that plays as the first
does; the soup of a model with itself is that model; networks of different architectures are refused in one line."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.model_card import ModelCard  # noqa: E402
from agents.networks.player import load_model_agent  # noqa: E402
from agents.networks.saved import load_network, save_network  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import weight_soup  # noqa: E402


def nudged_copy(model: str, out: Path, scale: float) -> str:
    """A copy of the shipped ``model`` with every weight multiplied by ``scale``, saved at ``out``."""
    card = ModelCard.of_model(model)
    network = load_model_agent(model).network
    with torch.no_grad():
        for tensor in network.state_dict().values():
            tensor.mul_(scale)
    section = save_network(network, card.network_spec.head, out.with_suffix(".json"))
    ModelCard(card.algo, None, card.env_kwargs, card.config, network=section).write(out.with_suffix(".json"))
    return str(out.with_suffix(".pt"))


def test_the_soup_is_the_mean_of_the_weights_and_plays_as_its_first_model(tmp_path: Path) -> None:
    half, double = nudged_copy("maskable-ppo-beginner", tmp_path / "half", 0.5), nudged_copy(
        "maskable-ppo-beginner", tmp_path / "double", 1.5)  # fmt: skip
    weight_soup.main([half, double, "--out", str(tmp_path / "soup")])
    card = ModelCard.read(tmp_path / "soup.json")
    original = load_model_agent("maskable-ppo-beginner").network.state_dict()
    mixed = load_network(card.network_spec, tmp_path).state_dict()
    for key, tensor in original.items():  # (0.5 + 1.5) / 2 = 1
        np.testing.assert_allclose(mixed[key].numpy(), tensor.numpy(), rtol=1e-6, atol=1e-7)
    assert card.config == ModelCard.of_model("maskable-ppo-beginner").config and card.steps is None
    assert load_model_agent(tmp_path / "soup.pt").mark_above == load_model_agent("maskable-ppo-beginner").mark_above


def test_models_of_different_networks_are_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"weight_soup: .*: its network's \w+ is not"):
        weight_soup.main(["maskable-ppo-beginner", "distill-beginner", "--out", str(tmp_path / "soup")])
    with pytest.raises(SystemExit, match="at least two models"):
        weight_soup.main(["maskable-ppo-beginner", "--out", str(tmp_path / "soup")])

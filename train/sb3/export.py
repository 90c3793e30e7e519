"""Training zips to the model format: the playing network's weights (``.pt``) and the card's ``network`` section.

Every save of :mod:`train` writes both (:func:`export_model`), beside the stable-baselines3 zip that resuming and
fine-tuning read. A zip saved before the model format, or a shipped model's, is converted in place: its weights
file written beside it and its card given the ``network`` section, every other field of the card (the run's
record) kept::

    python -m train.sb3.export models/*.zip

Converting twice gives the same bytes. The weights are the policy's own tensors, so the converted network plays
exactly the moves the zip's policy plays (``tests/eval/test_shipped_moves.py`` holds it for the shipped models).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.dqn.policies import DQNPolicy

from agents.model_card import ModelCard, model_paths
from agents.networks.layers import CellLogits
from agents.networks.saved import TRUNK_CLASSES, CellScorer, save_network, trunk_kwargs
from train.sb3.networks import ConvHeads


def playing_network(policy: Any) -> tuple[CellScorer, str]:
    """The network that picks ``policy``'s actions as a :class:`~agents.networks.saved.CellScorer` on CPU (copies
    of its tensors), and which head it is: ``policy`` (an actor-critic's logits), ``q`` (a DQN's Q-values) or ``q_risk``
    (a DQN's Q-values composed from its mine head, ``--mine-prior``).

    Raises:
        ValueError: a policy whose trunk and head are not those of :mod:`train.sb3.networks` (an MLP policy).
    """
    preference, risk, advantage_bound = None, None, 0.0
    if isinstance(policy, DQNPolicy):
        trunk, head, kind = policy.q_net.features_extractor, policy.q_net.q_net, "q"
        if getattr(policy.q_net, "mine_prior", False):
            kind, risk = "q_risk", float(policy.q_net.loss_reward)
            advantage_bound = float(getattr(policy.q_net, "advantage_bound", 0.0))
    elif isinstance(getattr(policy, "mlp_extractor", None), ConvHeads):
        trunk, head, kind = policy.pi_features_extractor, policy.mlp_extractor.policy_head, "policy"
        preference = policy.mlp_extractor.preference
        if policy.mlp_extractor.mine_prior:
            heads = policy.mlp_extractor
            head = folded_prior(head, heads.mine_head, heads.prior_only, getattr(heads, "prior_scale", 1.0))
    else:
        raise ValueError(f"a {type(policy).__name__} is not a policy of train.sb3.networks (a convolutional trunk and "
                         "a per-cell head): the model format cannot save it")  # fmt: skip
    if not isinstance(head, CellLogits):
        raise ValueError(f"the action head is a {type(head).__name__}, not the per-cell CellLogits")
    name, kwargs = trunk_kwargs(trunk)
    bound = 0.0 if preference is None else preference.bound
    network = CellScorer(TRUNK_CLASSES[name](**kwargs), bound, risk, advantage_bound)
    network.trunk.load_state_dict(trunk.state_dict())
    network.head.load_state_dict(head.state_dict())
    if network.mine_head is not None:
        network.mine_head.load_state_dict(policy.q_net.mine_head.state_dict())
    if preference is not None:
        assert network.preference is not None
        network.preference.load_state_dict(preference.state_dict())
    return network.cpu().eval(), kind


def folded_prior(policy_head: CellLogits, mine_head: CellLogits, prior_only: bool = False,
                 scale: float = 1.0) -> CellLogits:  # fmt: skip
    """One head scoring every cell as ``policy_head`` minus ``scale`` times ``mine_head`` (both 1x1 convolutions of
    the same features, so their difference is one too): the logits of a policy trained with ``--mine-prior``
    (``--prior-scale``); with ``prior_only`` (``--prior-only``) the mine head's part alone."""
    head = CellLogits(policy_head.conv.in_channels)
    keep = 0.0 if prior_only else 1.0
    with th.no_grad():
        head.conv.weight.copy_(keep * policy_head.conv.weight - scale * mine_head.conv.weight)
        head.conv.bias.copy_(keep * policy_head.conv.bias - scale * mine_head.conv.bias)
    return head


def export_model(model: BaseAlgorithm, card_path: Path) -> dict[str, Any]:
    """Write the weights of ``model``'s playing network beside ``card_path`` (same stem, ``.pt``); returns the card's
    ``network`` section naming them."""
    network, kind = playing_network(model.policy)
    return save_network(network, kind, card_path)


def convert(path: str | Path) -> Path:
    """Convert the saved model ``path`` (its zip and card) to the model format in place; returns the card's path.

    Raises:
        FileNotFoundError: no zip or no card.
        ValueError: the card's class cannot load the zip, or its policy is not one the format saves.
    """
    archive, card_path = model_paths(path)
    card = ModelCard.of_model(path)
    if not archive.is_file():
        raise FileNotFoundError(f"model {archive} does not exist: converting reads the training zip")
    if card.model_class is None:
        raise ValueError(f"model card {card_path} names no model_class, the class that loads its zip: add it "
                         "(e.g. \"model_class\": \"train.sb3.dqn:MaskedDQN\")")  # fmt: skip
    module, _, name = card.model_class.partition(":")
    try:
        model = getattr(importlib.import_module(module), name).load(archive, device="cpu")
    except Exception as error:  # a foreign class or a corrupt zip fails in many ways inside SB3, torch or zipfile
        raise ValueError(f"cannot load {archive} as {card.model_class}: {error}") from None
    fields = card.to_dict() | {"network": export_model(model, card_path)}
    ModelCard.from_dict(fields).write(card_path)
    return card_path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.sb3.export", description=__doc__.split("\n\n")[0])
    parser.add_argument("model", nargs="+", help="saved models (.zip with its .json card), converted in place")
    args = parser.parse_args(argv)
    for path in args.model:
        try:
            card_path = convert(path)
        except (FileNotFoundError, ValueError) as error:
            print(f"python -m train.sb3.export: error: {error}", file=sys.stderr)
            return 2
        card = ModelCard.read(card_path)
        assert card.network is not None
        weights = card_path.with_name(card.network["weights"])
        print(f"{weights} ({weights.stat().st_size:,} bytes, {card.network['trunk']} trunk) and the card {card_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

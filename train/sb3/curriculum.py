"""``--init PATH`` with a model of the run's own algorithm: a curriculum of boards, learnt by RL alone.

The networks are fully convolutional, so a model trained on one board plays any other, and starts a larger board
from play that already wins some games there instead of from random moves. A new run started from such a model gets
its whole network (trunk, Q- or policy head, value head, mine head; for DQN the target network too) and trains it
on its own board, with a fresh optimizer and its own schedules. No expert data enters: the chain beginner,
intermediate, expert is reinforcement learning from scratch.

The run must build the same network as the model's run did: the settings in :data:`NETWORK_SETTINGS` are compared
with the model's card before anything is built, and the weights are loaded strictly.

A shipped PPO or MaskablePPO model has no training archive, only its playing network (the model format, ``.pt``):
its trunk, its guess preference and its one head. A run started from it (:func:`load_playing_model`) gets those and
plays the very same moves; the value head starts fresh (give ``--critic-warmup`` so the actor waits for a trained
critic) and so do the optimizer and the mine replay. A mine-prior model's head is the mine head's logits times
``-prior_scale`` (``--prior-only``), which gives the mine head back exactly; a model whose head folds a policy head and
the mine head together cannot be split and must start from its archive.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm

from agents.model_card import ModelCard, model_paths
from agents.networks.saved import load_network
from train.sb3.warm_start import load_playing

DISTILLED = "distill"
"""The card ``algo`` of a distilled model, which :mod:`train.sb3.warm_start` starts runs from instead."""

NETWORK_SETTINGS = ("channels", "layers", "dilations", "pooled", "value_hidden", "mine_prior", "detach_prior",
                    "advantage_bound")  # fmt: skip
"""Run settings that shape the network (those a config has); the mine head's presence (``mine_coef`` above 0) is
compared too."""


def is_distilled(init: str | Path) -> bool:
    """Whether ``--init`` names a distilled model (else it must name a model of the run's algorithm)."""
    return ModelCard.of_model(init).algo == DISTILLED


def network_differences(card: ModelCard, config: Any) -> list[str]:
    """The options, as ``--name value`` of the card's run, in which ``config`` would build another network."""
    saved = card.config or {}
    differing = [name for name in NETWORK_SETTINGS
                 if hasattr(config, name) and name in saved and saved[name] != getattr(config, name)]  # fmt: skip
    options = [f"--{name.replace('_', '-')} {saved[name]}" for name in differing]
    if "mine_coef" in saved and (saved["mine_coef"] > 0) != (getattr(config, "mine_coef", 0.0) > 0):
        options.append(f"--mine-coef {saved['mine_coef']}")
    return options


def check_transfer(algo: str, config: Any) -> None:
    """ValueError, in one line, when ``config.init`` (not a distilled model) cannot start a ``algo`` run: a model of
    another algorithm, one without its training archive or its run's settings, or one whose network differs."""
    card = ModelCard.of_model(config.init)
    archive, card_path = model_paths(config.init)
    model = card_path.with_suffix("")
    if card.algo != algo:
        raise ValueError(f"--init {model} is a {card.algo} model: a {algo} run starts from a distilled model or from "
                         f"a model of another {algo} run")  # fmt: skip
    if card.config is None:
        raise ValueError(f"--init {model}: its card does not record its run's settings, so its network is unknown")
    if not archive.is_file():
        check_playing_transfer(card, archive)
    differences = network_differences(card, config)
    if differences:
        raise ValueError(f"--init {model} has another network: give {' '.join(differences)} as its run did")


def check_playing_transfer(card: ModelCard, archive: Path) -> None:
    """ValueError, in one line, when a model without its training archive cannot start a run from its playing
    network alone (see the module docstring)."""
    model = archive.with_suffix("")
    missing = f"--init {model}: its training archive {archive} is missing"
    if card.algo not in ("ppo", "maskable_ppo"):
        raise ValueError(f"{missing} (the run's whole network, critic and target included, is read from it)")
    if card.network_spec is None:
        raise ValueError(f"{missing} and its card has no network section: nothing to start from")
    saved = card.config or {}
    if saved.get("mine_prior") and not saved.get("prior_only"):
        raise ValueError(f"{missing}, and its playing head folds the policy head and the mine head together "
                         "(--mine-prior without --prior-only): they cannot be told apart, start from the archive")


def load_transfer(model: BaseAlgorithm, init: str | Path) -> None:
    """Copy every weight of the model ``init`` (checked by :func:`check_transfer`) into the new ``model``, on its
    device; the mine count a residual trunk reads is an attribute, not a weight, so it stays the new run's. Without
    its training archive, its playing network alone (:func:`load_playing_model`)."""
    archive, _ = model_paths(init)
    if not archive.is_file():
        load_playing_model(model, init)
        return
    source = type(model).load(archive, device=model.device)
    try:
        model.policy.load_state_dict(source.policy.state_dict())
    except RuntimeError as error:
        raise ValueError(f"--init {init}: its weights do not fit this run's network ({error})") from None


def load_playing_model(model: BaseAlgorithm, init: str | Path) -> None:
    """Copy the playing network of the PPO-family model ``init`` (its card and ``.pt``) into the new ``model``: the
    trunk (the critic's copy too), the guess preference, and the head as the policy head or, for a mine-prior model
    (``prior_only``), as the mine head (divided by ``-prior_scale``). The value head stays as built."""
    card = ModelCard.of_model(init)
    _, card_path = model_paths(init)
    assert card.network_spec is not None  # check_playing_transfer
    network = load_network(card.network_spec, card_path.parent)
    policy: Any = model.policy
    try:
        load_playing(policy, network)
        saved = card.config or {}
        if saved.get("mine_prior"):
            scale = float(saved.get("prior_scale", 1.0))
            with th.no_grad():
                policy.mlp_extractor.mine_head.load_state_dict(
                    {name: -value / scale for name, value in network.head.state_dict().items()})
    except RuntimeError as error:
        raise ValueError(f"--init {init}: its weights do not fit this run's network ({error})") from None
    policy.to(model.device)

"""``--init PATH`` with a model of the run's own algorithm: a curriculum of boards, learnt by RL alone.

The networks are fully convolutional, so a model trained on one board plays any other, and starts a larger board
from play that already wins some games there instead of from random moves. A new run started from such a model gets
its whole network (trunk, Q- or policy head, value head, mine head; for DQN the target network too) and trains it
on its own board, with a fresh optimizer and its own schedules. No expert data enters: the chain beginner,
intermediate, expert is reinforcement learning from scratch.

The run must build the same network as the model's run did: the settings in :data:`NETWORK_SETTINGS` are compared
with the model's card before anything is built, and the weights are loaded strictly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stable_baselines3.common.base_class import BaseAlgorithm

from agents.model_card import ModelCard, model_paths

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
        raise ValueError(f"--init {model}: its training archive {archive} is missing (the run's whole network, "
                         "critic and target included, is read from it)")  # fmt: skip
    differences = network_differences(card, config)
    if differences:
        raise ValueError(f"--init {model} has another network: give {' '.join(differences)} as its run did")


def load_transfer(model: BaseAlgorithm, init: str | Path) -> None:
    """Copy every weight of the model ``init`` (checked by :func:`check_transfer`) into the new ``model``, on its
    device; the mine count a residual trunk reads is an attribute, not a weight, so it stays the new run's."""
    archive, _ = model_paths(init)
    source = type(model).load(archive, device=model.device)
    try:
        model.policy.load_state_dict(source.policy.state_dict())
    except RuntimeError as error:
        raise ValueError(f"--init {init}: its weights do not fit this run's network ({error})") from None

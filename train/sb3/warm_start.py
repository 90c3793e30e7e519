"""``--init PATH``: start PPO, MaskablePPO or DQN from a distilled network (:mod:`train.distill`).

The network is read from the model format, as ``eval`` plays it: the card (``.json``) and the weights (``.pt``)
beside it, loaded with torch alone (:func:`agents.networks.saved.load_network`). PATH is a shipped model's short
name (``distill-beginner``), a card's stem, or its ``.pt`` or ``.zip`` path: a run's ``final_model.zip`` is found
by the card and weights that every save writes beside it, and a zip saved before the model format is converted by
``python -m train.sb3.export``. The distilled network's logits are the safety logits of every cell. A new run with
``--init`` is built with the same trunk (:class:`train.sb3.networks.BoardFeatures`, its channels, dilations and
pooled blocks read from the card, its mine count from the run's board) and receives:

- PPO / MaskablePPO: the trunk and the per-cell logit head (the value head starts fresh), so the first
  policy is the distilled one; the critic gets its own copy of the trunk (``share_features_extractor``
  off), so the fresh value head's first, large errors do not rewrite the actor's trunk;
- DQN: the trunk and the head as the Q-network (and its target), the head scaled by :data:`DQN_Q_SCALE` so
  the Q-values start in the range of the rewards; the order of the cells, hence the greedy move, is the
  distilled one;
- DQN with ``--mine-prior``: the trunk, and the head negated as the mine head (a safety logit is minus a mine
  logit), while the return-if-safe head starts at zero, the same for every cell. Its Q-values, ``-p + (1 - p) U``,
  then order the cells by the distilled chance of a mine, and stay so while ``U`` learns its level; what RL adds
  is the part of ``U`` that differs from cell to cell (held small by ``--advantage-bound``): which of two nearly
  as safe cells is worth more, the value of information that the safest cell alone misses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch as th
from gymnasium import spaces
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.dqn import DQN
from stable_baselines3.dqn.policies import QNetwork

from agents.model_card import ModelCard, model_paths
from agents.networks.saved import CellScorer, load_network
from mine_env.env import grid_space
from train.sb3.networks import BoardFeatures, MaskableConvActorCriticPolicy, MaskedQNetwork, set_mine_count

DQN_Q_SCALE = 0.1
"""Factor on the distilled head as a Q-head: safety logits of about -10..10 become Q-values of about -1..1."""


def distilled_network(path: str | Path, mines: int) -> CellScorer:
    """The playing network of the distilled model ``path`` (its card and weights, on CPU), told that its boards hold
    ``mines`` mines.

    Raises:
        FileNotFoundError: no such model, card or weights file.
        ValueError: the model is not a distilled one (another algorithm, another observation, another trunk), or its
            card has no network section, or the weights are not the card's.
    """
    card = ModelCard.of_model(path)
    archive, card_path = model_paths(path)
    model = card_path.with_suffix("")
    if card.algo != "distill":
        raise ValueError(
            f"--init {model} is a {card.algo} model, not a distilled one: --init takes a model written by "
            "'minesweeper train distill' (its network reads the board, the mine density and the edge)"
        )
    if card.obs_mode != "grid" or card.flags:
        raise ValueError(f"--init {model} observes {card.obs_mode!r} with flags={card.flags}; runs observe the grid")
    spec = card.network_spec
    if spec is None:
        raise ValueError(f"--init {model}: its card has no network section (a run saved before the model format): "
                         f"convert it with `python -m train.sb3.export {archive}`")  # fmt: skip
    if spec.trunk != "board":
        raise ValueError(f"--init {model}: its network is a {spec.trunk} trunk, not the distillation trunk (board)")
    network = load_network(spec, card_path.parent)
    set_mine_count(network, mines)
    return network


def board_kwargs(network: CellScorer, mines: int) -> dict[str, Any]:
    """The ``features_extractor_kwargs`` of a :class:`BoardFeatures` shaped like ``network``'s trunk."""
    trunk = network.trunk
    return {"channels": trunk.features_dim, "dilations": trunk.dilations, "mines": mines, "pooled": trunk.pooled,
            "refine": trunk.refine}  # fmt: skip


def load_playing(policy: Any, network: CellScorer, preference: bool = True) -> None:
    """Copy ``network`` into an actor-critic ``policy`` of :mod:`train.sb3.networks` of the same trunk: the trunk
    (into the critic's copy too), the logit head and, with ``preference`` and where both have one, the guess
    preference. The value head is left as it is: the model format does not hold it."""
    with th.no_grad():
        for extractor in {policy.pi_features_extractor, policy.vf_features_extractor}:
            extractor.load_state_dict(network.trunk.state_dict())
        policy.mlp_extractor.policy_head.load_state_dict(network.head.state_dict())
        own = policy.mlp_extractor.preference
        if preference and own is not None and network.preference is not None:
            own.load_state_dict(network.preference.state_dict())


def distilled_policy(path: str | Path, mines: int) -> MaskableConvActorCriticPolicy:
    """The distilled model ``path`` as the MaskablePPO policy the distillation code reads (on CPU): built from its
    card, the network of :func:`distilled_network` copied in, a fresh value head (built without drawing from torch's
    global generator)."""
    network = distilled_network(path, mines)
    card = ModelCard.of_model(path)
    rows, cols = card.board
    with th.random.fork_rng(devices=[]):
        policy = MaskableConvActorCriticPolicy(
            grid_space(rows, cols), spaces.Discrete(rows * cols), lambda _: 0.0,
            features_extractor_class=BoardFeatures, features_extractor_kwargs=board_kwargs(network, mines),
            preference_bound=0.0 if network.preference is None else float(network.preference.bound),
        )  # fmt: skip
    load_playing(policy, network)
    return policy.eval()


def network_kwargs(init: str, channels: int, layers: int, mines: int) -> dict[str, Any]:
    """The ``policy_kwargs`` that choose the trunk: the distilled model's (``init``) or the plain one."""
    if not init:
        return {"features_extractor_kwargs": {"channels": channels, "layers": layers}}
    kwargs = board_kwargs(distilled_network(init, mines), mines)
    return {"features_extractor_class": BoardFeatures, "features_extractor_kwargs": kwargs}


def load_distilled(model: BaseAlgorithm, init: str, mines: int) -> None:
    """Copy the distilled network of ``init`` into a new model built with :func:`network_kwargs`."""
    source = distilled_network(init, mines)
    if isinstance(model, DQN):
        for network in (model.q_net, model.q_net_target):
            load_q_network(network, source)
        return
    load_playing(model.policy, source, preference=False)


def load_q_network(network: QNetwork, source: CellScorer) -> None:
    """Copy the distilled ``source`` into a DQN's Q-network: its trunk, and its head as the Q-head (scaled) or, with
    the mine prior, as the mine head (negated) beside a return-if-safe head of zeros."""
    with th.no_grad():
        network.features_extractor.load_state_dict(source.trunk.state_dict())
        head = source.head.state_dict()
        if not isinstance(network, MaskedQNetwork) or not network.mine_prior:
            network.q_net.load_state_dict({name: value * DQN_Q_SCALE for name, value in head.items()})
            return
        assert network.mine_head is not None
        network.mine_head.load_state_dict({name: -value for name, value in head.items()})
        for parameter in network.q_net.parameters():
            parameter.zero_()

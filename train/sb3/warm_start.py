"""``--init PATH``: start PPO, MaskablePPO or DQN from a distilled network (:mod:`train.distill`).

The network is read from the model format by :func:`train.distilled.distilled_network`, as ``eval`` plays it: the
card (``.json``) and the weights (``.pt``) beside it, loaded with torch alone. PATH is a shipped model's short name
(``distill-beginner``), a card's stem, or its ``.pt`` or ``.zip`` path, and a zip saved before the model format is
converted by ``python -m train.sb3.export``. The distilled network's logits are the safety logits of every cell. A
new run with ``--init`` is built with the same trunk (:class:`train.sb3.networks.BoardFeatures`, its channels,
dilations and pooled blocks read from the card, its mine count from the run's board) and receives:

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

from typing import Any

import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.dqn import DQN
from stable_baselines3.dqn.policies import QNetwork

from agents.networks.saved import CellScorer
from train.distilled import distilled_network
from train.sb3.networks import BoardFeatures, MaskedQNetwork

DQN_Q_SCALE = 0.1
"""Factor on the distilled head as a Q-head: safety logits of about -10..10 become Q-values of about -1..1."""


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

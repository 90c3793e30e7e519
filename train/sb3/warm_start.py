"""``--init PATH``: start PPO, MaskablePPO or DQN from a distilled network (:mod:`train.distill`).

The distilled model is a MaskablePPO model whose actor logits are the safety logits of every cell. A new
run with ``--init`` is built with the same trunk (:class:`train.sb3.networks.BoardFeatures`, its channels,
dilations and pooled blocks read from the distilled model, its mine count from the run's board) and receives:

- PPO / MaskablePPO: the trunk and the per-cell logit head (the value head starts fresh), so the first
  policy is the distilled one; the critic gets its own copy of the trunk (``share_features_extractor``
  off), so the fresh value head's first, large errors do not rewrite the actor's trunk;
- DQN: the trunk and the head as the Q-network (and its target), the head scaled by :data:`DQN_Q_SCALE` so
  the Q-values start in the range of the rewards; the order of the cells, hence the greedy move, is the
  distilled one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.dqn import DQN

from agents.model_card import ModelCard, model_paths
from train.sb3.networks import BoardFeatures, set_mine_count

DQN_Q_SCALE = 0.1
"""Factor on the distilled head as a Q-head: safety logits of about -10..10 become Q-values of about -1..1."""


def distilled_policy(path: str | Path, mines: int) -> Any:
    """The policy of the distilled model ``path`` (on CPU), told that its boards hold ``mines`` mines.

    Raises:
        FileNotFoundError: no such model or model card.
        ValueError: the model is not a distilled one (another algorithm, or another observation).
    """
    card = ModelCard.of_model(path)
    archive, _ = model_paths(path)
    if card.algo != "distill":
        raise ValueError(
            f"--init {archive} is a {card.algo} model, not a distilled one: --init takes a model written by "
            "'minesweeper train distill' (its network reads the board, the mine density and the edge)"
        )
    if card.obs_mode != "grid" or card.flags:
        raise ValueError(f"--init {archive} observes {card.obs_mode!r} with flags={card.flags}; runs observe the grid")
    try:
        policy = MaskablePPO.load(archive, device="cpu").policy
    except Exception as error:  # a corrupt or foreign zip fails in many ways inside SB3
        raise ValueError(f"cannot load --init {archive} as a distilled model: {error}") from None
    if not isinstance(policy.features_extractor, BoardFeatures):
        raise ValueError(f"--init {archive}: its network is not the distillation trunk (BoardFeatures)")
    set_mine_count(policy, mines)
    return policy


def network_kwargs(init: str, channels: int, layers: int, mines: int) -> dict[str, Any]:
    """The ``policy_kwargs`` that choose the trunk: the distilled model's (``init``) or the plain one."""
    if not init:
        return {"features_extractor_kwargs": {"channels": channels, "layers": layers}}
    extractor: BoardFeatures = distilled_policy(init, mines).features_extractor
    kwargs = {"channels": extractor.features_dim, "dilations": extractor.dilations, "mines": mines,
              "pooled": extractor.pooled, "refine": extractor.refine}  # fmt: skip
    return {"features_extractor_class": BoardFeatures, "features_extractor_kwargs": kwargs}


def load_distilled(model: BaseAlgorithm, init: str, mines: int) -> None:
    """Copy the distilled network of ``init`` into a new model built with :func:`network_kwargs`."""
    source = distilled_policy(init, mines)
    trunk = source.features_extractor.state_dict()
    head = source.mlp_extractor.policy_head.state_dict()
    if isinstance(model, DQN):
        q_head = {name: value * DQN_Q_SCALE for name, value in head.items()}
        for network in (model.q_net, model.q_net_target):
            network.features_extractor.load_state_dict(trunk)
            network.q_net.load_state_dict(q_head)
        return
    with th.no_grad():
        for extractor in {model.policy.pi_features_extractor, model.policy.vf_features_extractor}:
            extractor.load_state_dict(trunk)
        model.policy.mlp_extractor.policy_head.load_state_dict(head)

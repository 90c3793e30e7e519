"""The distilled network as a model: building it, starting it from an earlier one (as it is, or grown), and
reading it: its safety logits, what it plays, how well it matches held-out labels and the solver's guesses."""

from __future__ import annotations

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO

from agents.networks.saved import CellScorer
from agents.networks.trunks import BoardTrunk
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from train.distill.config import DistillConfig
from train.distill.data import Scorer
from train.distill.grow import grow
from train.distill.guesses import GuessPositions, guess_report
from train.sb3.networks import BoardFeatures, MaskableConvActorCriticPolicy
from train.sb3.vec_env import BatchVecEnv
from train.sb3.warm_start import distilled_network, load_playing


def new_model(config: DistillConfig, spec: BoardSpec) -> MaskablePPO:
    """A MaskablePPO model on ``spec`` whose actor is the distillation network (its value head stays unused)."""
    env = BatchVecEnv(spec, 1)
    policy_kwargs = {
        "features_extractor_class": BoardFeatures,
        "features_extractor_kwargs": {"channels": config.channels, "dilations": config.dilation_list(),
                                      "mines": spec.mines, "pooled": config.pooled_list(), "refine": config.refine},
    }  # fmt: skip
    return MaskablePPO(MaskableConvActorCriticPolicy, env, n_steps=8, batch_size=8, seed=config.seed,
                       device=config.device, policy_kwargs=policy_kwargs)  # fmt: skip


def start_from(policy: MaskableConvActorCriticPolicy, init: str, mines: int) -> None:
    """Load the distilled model ``init`` into ``policy``: as it is when the networks have the same shape (the number
    of refinement passes may differ: they share their weights), else grown into the wider, deeper, pooling or
    refining one (:mod:`train.distill.grow`: the same logits at the start)."""
    source = distilled_network(init, mines)
    small, large = source.trunk, policy.features_extractor
    if shape(small) == shape(large):
        load_playing(policy, source)
        return
    try:
        grow(small, source.head, large, policy.mlp_extractor.policy_head)
    except ValueError as error:
        raise ValueError(f"--init {init}: {error}") from None


def shape(extractor: BoardTrunk) -> tuple[int, tuple[int, ...], tuple[int, ...], bool]:
    """What must match for one network's weights to load into another as they are."""
    return extractor.features_dim, extractor.dilations, extractor.pooled, extractor.refinement is not None


def safety_logits(policy: MaskableConvActorCriticPolicy, planes: th.Tensor) -> th.Tensor:
    """The network's safety logit per cell (N, H * W) from its input planes."""
    return policy.mlp_extractor.policy_head(policy.features_extractor.trunk(planes))


def learner_scores(policy: MaskableConvActorCriticPolicy) -> Scorer:
    """The network as the collector's learner: safety logits of a batch of grids, as numpy."""

    def scores(grids: np.ndarray) -> np.ndarray:
        with th.no_grad():
            obs = th.as_tensor(grids)
            return safety_logits(policy, policy.features_extractor.input_planes(obs)).cpu().numpy()

    return scores


def play_scores(policy: MaskableConvActorCriticPolicy) -> Scorer:
    """What the network plays on a batch of grids: its safety logits, plus its guess preference where it has one
    (:class:`train.sb3.networks.GuessPreference`, :mod:`train.distill.guess_preference`), as numpy (N, cells)."""

    def scores(grids: np.ndarray) -> np.ndarray:
        with th.no_grad():
            features = policy.extract_features(th.as_tensor(grids), policy.pi_features_extractor)
            return policy.mlp_extractor.forward_actor(features).cpu().numpy()

    return scores


def network_scores(network: CellScorer) -> Scorer:
    """What a network of the model format (a distilled model's card and weights) plays on a batch of grids, as
    :func:`play_scores` gives it for the policy it was saved from."""

    def scores(grids: np.ndarray) -> np.ndarray:
        with th.no_grad():
            return network(th.as_tensor(grids)).cpu().numpy()

    return scores


def accuracy(policy: MaskableConvActorCriticPolicy, grids: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """How well the network matches held-out labels: mean absolute error of p over hidden cells, and the share
    of positions (with a hidden cell) where its choice is one of the oracle's safest cells."""
    flat_labels = labels.reshape(len(labels), -1).astype(np.float32)
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    logits = learner_scores(policy)(grids)
    predicted = 1.0 / (1.0 + np.exp(logits))
    error = float(np.abs(predicted - flat_labels)[hidden].mean())
    choice = np.where(hidden, logits, -np.inf).argmax(axis=1)
    best = np.where(hidden, flat_labels, np.inf).min(axis=1)
    chosen = flat_labels[np.arange(len(choice)), choice]
    return {"mae": error, "agree": float((chosen <= best + 1e-3).mean())}


def guess_agreement(policy: MaskableConvActorCriticPolicy, grids: np.ndarray, choices: np.ndarray) -> float:
    """The share of the true-guess positions ``grids`` where the network's move (:func:`play_scores`) is the
    solver's guess ``choices`` (NaN without a position)."""
    if not len(grids):
        return float("nan")
    return guess_report(play_scores(policy)(grids), GuessPositions(grids, choices, None))["solver_agree"]

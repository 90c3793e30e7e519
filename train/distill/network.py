"""The distilled network, a plain :class:`agents.networks.saved.CellScorer`: building it, starting it from an earlier
one (as it is, or grown), and reading it: its safety logits, what it plays, how well it matches held-out labels and
the solver's guesses.

The trunk gives the features, the 1x1 head one *safety logit* per cell (``logit(1 - p)``), and the guess-preference
head, where there is one, a bonus among near-ties. A new network starts as the distilled networks always have:
orthogonal weights of gain sqrt(2) in the trunk and the preference head, a head of gain 0.01 (logits near zero), zero
biases, the preference's last layer zero (no bonus until trained).
"""

from __future__ import annotations

import numpy as np
import torch as th
from torch import nn

from agents.networks.saved import CellScorer
from agents.networks.trunks import BoardTrunk
from mine_env.engine.constants import HIDDEN
from train.distill.data import Scorer
from train.distill.grow import grow
from train.distill.guesses import GuessPositions, guess_report
from train.distilled import distilled_network

TRUNK_GAIN = 2.0**0.5
"""Gain of the orthogonal start of every convolution and linear layer of the trunk and the preference head."""
HEAD_GAIN = 0.01
"""Gain of the orthogonal start of the safety head: logits near zero, every hidden cell about as likely at first."""


def torch_device(name: str) -> th.device:
    """The torch device ``--device`` names (``auto``: CUDA where there is one, else the CPU)."""
    return th.device("cuda" if name == "auto" and th.cuda.is_available() else ("cpu" if name == "auto" else name))


def dilation_list(text: str) -> tuple[int, ...]:
    """The dilations of ``--dilations`` (integers separated by commas, each at least 1)."""
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"dilations must be integers separated by commas, got {text!r}") from None
    if not values or min(values) < 1:
        raise ValueError(f"every dilation must be at least 1, got {text!r}")
    return values


def pooled_list(text: str, dilations: str) -> tuple[int, ...]:
    """The blocks with a global-pooling bias (``--pooled``), checked against the blocks ``dilations`` gives."""
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"pooled must be block indices separated by commas, got {text!r}") from None
    blocks = len(dilation_list(dilations))
    if any(not 0 <= value < blocks for value in values) or len(set(values)) != len(values):
        raise ValueError(f"pooled must name distinct blocks 0 to {blocks - 1} (one per dilation), got {text!r}")
    return values


def new_network(trunk: nn.Module, seed: int, preference_bound: float = 0.0, device: str = "cpu") -> CellScorer:
    """A network of ``trunk`` and a safety head (and a guess preference of ``preference_bound`` above 0), its weights
    drawn from ``seed`` as the module docstring says, on ``device``."""
    network = CellScorer(trunk, preference_bound)
    generator = th.Generator().manual_seed(seed)
    with th.no_grad():
        for module in (network.trunk, network.preference):
            if module is not None:
                orthogonal_start(module, TRUNK_GAIN, generator)
        orthogonal_start(network.head, HEAD_GAIN, generator)
        if network.preference is not None:
            network.preference.start_neutral()
    return network.to(torch_device(device))


def orthogonal_start(module: nn.Module, gain: float, generator: th.Generator) -> None:
    """Orthogonal weights of ``gain`` and zero biases for every convolution and linear layer in ``module``."""
    for layer in module.modules():
        if isinstance(layer, (nn.Conv2d, nn.Linear)):
            nn.init.orthogonal_(layer.weight, gain=gain, generator=generator)
            if layer.bias is not None:
                nn.init.zeros_(layer.bias)


def start_from(network: CellScorer, init: str, mines: int) -> None:
    """Load the distilled model ``init`` into ``network``: as it is when the networks have the same shape (the number
    of refinement passes may differ: they share their weights), else grown into the wider, deeper, pooling or
    refining one (:mod:`train.distill.grow`: the same logits at the start). A guess preference stays as it is."""
    source = distilled_network(init, mines)
    small, large = source.trunk, network.trunk
    if not isinstance(large, BoardTrunk):
        raise ValueError(f"--init {init}: it starts the distillation trunk (board), not a {type(large).__name__}")
    if shape(small) == shape(large):
        with th.no_grad():
            large.load_state_dict(small.state_dict())
            network.head.load_state_dict(source.head.state_dict())
        return
    device = device_of(network)
    try:
        grow(small, source.head, large.cpu(), network.head.cpu())
    except ValueError as error:
        raise ValueError(f"--init {init}: {error}") from None
    finally:
        network.to(device)  # the same parameters, moved back: an optimiser over them stays valid


def shape(trunk: BoardTrunk) -> tuple[int, tuple[int, ...], tuple[int, ...], bool]:
    """What must match for one trunk's weights to load into another as they are."""
    return trunk.features_dim, trunk.dilations, trunk.pooled, trunk.refinement is not None


def device_of(network: nn.Module) -> th.device:
    """The device ``network``'s weights are on."""
    return next(network.parameters()).device


def safety_logits(network: CellScorer, planes: th.Tensor) -> th.Tensor:
    """The network's safety logit per cell (N, H * W) from its input planes (the trunk's ``input_planes``)."""
    return network.head(network.trunk.trunk(planes))


def learner_scores(network: CellScorer) -> Scorer:
    """The network as the collector's learner: safety logits of a batch of grids, as numpy."""

    def scores(grids: np.ndarray) -> np.ndarray:
        with th.no_grad():
            obs = th.as_tensor(grids, device=device_of(network))
            return safety_logits(network, network.trunk.input_planes(obs)).cpu().numpy()

    return scores


def play_scores(network: CellScorer) -> Scorer:
    """What the network plays on a batch of grids: its safety logits, plus its guess preference where it has one
    (:mod:`train.distill.guess.preference`), as numpy (N, cells): the scores ``eval`` plays the saved model by."""

    def scores(grids: np.ndarray) -> np.ndarray:
        with th.no_grad():
            return network(th.as_tensor(grids, device=device_of(network))).cpu().numpy()

    return scores


def accuracy(network: CellScorer, grids: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """How well the network matches held-out labels: mean absolute error of p over hidden cells, and the share
    of positions (with a hidden cell) where its choice is one of the oracle's safest cells."""
    flat_labels = labels.reshape(len(labels), -1).astype(np.float32)
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    logits = learner_scores(network)(grids)
    predicted = 1.0 / (1.0 + np.exp(logits))
    error = float(np.abs(predicted - flat_labels)[hidden].mean())
    choice = np.where(hidden, logits, -np.inf).argmax(axis=1)
    best = np.where(hidden, flat_labels, np.inf).min(axis=1)
    chosen = flat_labels[np.arange(len(choice)), choice]
    return {"mae": error, "agree": float((chosen <= best + 1e-3).mean())}


def guess_agreement(network: CellScorer, grids: np.ndarray, choices: np.ndarray) -> float:
    """The share of the true-guess positions ``grids`` where the network's move (:func:`play_scores`) is the
    solver's guess ``choices`` (NaN without a position)."""
    if not len(grids):
        return float("nan")
    return guess_report(play_scores(network)(grids), GuessPositions(grids, choices, None))["solver_agree"]

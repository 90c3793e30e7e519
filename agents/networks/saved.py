"""The playing network of a saved model, and its weights file: built from the card, loaded with torch alone.

:class:`CellScorer` is what every trained policy of :mod:`train` plays with: a trunk, the 1x1 head whose scores
pick the action (an actor-critic's logits or a DQN's Q-values; with a mine head beside it, a DQN's return if safe,
which the chance of a mine weighs) and, for a distilled network trained to choose among near-ties, the
guess-preference head. The value head and the optimizer stay in the training zip: playing
does not read them. The weights file is a plain dict of tensors (``torch.save``), loaded with ``weights_only``.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import torch as th
from torch import nn

from agents.networks.layers import CellLogits, GuessPreference, bounded_spread, hidden_cells
from agents.networks.spec import FORMAT_VERSION, WEIGHTS_SUFFIX, NetworkSpec
from agents.networks.trunks import BoardTrunk, CellTrunk, IteratedTrunk, TaperedTrunk

TRUNK_CLASSES: dict[str, type[nn.Module]] = {"cell": CellTrunk, "board": BoardTrunk, "iterated": IteratedTrunk,
                                             "tapered": TaperedTrunk}
"""The trunk of each name of :data:`agents.networks.spec.TRUNKS`."""


class CellScorer(nn.Module):
    """A trunk and one score per cell from a 1x1 head (plus a guess preference when ``preference_bound`` > 0).
    With ``risk`` (a ``q_risk`` card's ``loss_reward``), a second 1x1 head gives each cell's mine logit and the
    score is the Q-value ``p * loss_reward + (1 - p) * head``, ``p`` the chance of a mine; ``advantage_bound`` above 0
    holds the head within that much of its mean over the hidden cells first (:func:`bounded_spread`).

    ``forward`` maps grids (N, H, W) to scores (N, H * W), flattened row-major like the actions, on any board size.
    """

    def __init__(self, trunk: nn.Module, preference_bound: float = 0.0, risk: float | None = None,
                 advantage_bound: float = 0.0) -> None:  # fmt: skip
        super().__init__()
        channels = int(trunk.features_dim)  # type: ignore[arg-type]
        self.trunk = trunk
        self.head = CellLogits(channels)
        self.preference = GuessPreference(channels, preference_bound) if preference_bound else None
        self.mine_head = None if risk is None else CellLogits(channels)
        self.loss_reward = 0.0 if risk is None else float(risk)
        self.advantage_bound = float(advantage_bound)

    def forward(self, grids: th.Tensor) -> th.Tensor:
        features = self.trunk(grids)
        scores = self.head(features)
        if self.mine_head is not None:
            if self.advantage_bound:
                scores = bounded_spread(scores, hidden_cells(grids), self.advantage_bound)
            return risk_weighted(scores, self.mine_head(features), self.loss_reward)
        if self.preference is None:
            return scores
        return scores + self.preference(features, scores)


def risk_weighted(safe_returns: th.Tensor, mine_logits: th.Tensor, loss_reward: float) -> th.Tensor:
    """Q-values from each cell's return if safe and its mine logit: ``p * loss_reward + (1 - p) * safe_returns``."""
    mine = th.sigmoid(mine_logits)
    return mine * loss_reward + (1 - mine) * safe_returns


def trunk_kwargs(trunk: nn.Module) -> tuple[str, dict[str, Any]]:
    """The name and constructor arguments of a trunk of :mod:`agents.networks.trunks` (or a subclass of one), as the
    card records them; ValueError for any other module."""
    if isinstance(trunk, BoardTrunk):
        kwargs = {"channels": trunk.features_dim, "dilations": list(trunk.dilations), "mines": trunk.mines,
                  "pooled": list(trunk.pooled), "refine": trunk.refine}  # fmt: skip
        return "board", kwargs
    if isinstance(trunk, IteratedTrunk):
        return "iterated", {"channels": trunk.features_dim, "passes": trunk.passes, "mines": trunk.mines,
                            "state_norm": trunk.state_norm}  # fmt: skip
    if isinstance(trunk, TaperedTrunk):
        return "tapered", {"widths": list(trunk.widths), "mines": trunk.mines, "norm": trunk.norm}
    if isinstance(trunk, CellTrunk):
        return "cell", {"channels": trunk.features_dim, "layers": trunk.layers}
    raise ValueError(f"a {type(trunk).__name__} is no trunk of agents.networks.trunks: the model format cannot save it")


def build_network(spec: NetworkSpec) -> CellScorer:
    """A network of the card's architecture, its weights not yet loaded.

    Raises:
        ValueError: the trunk's arguments do not build it.
    """
    try:
        trunk = TRUNK_CLASSES[spec.trunk](**spec.trunk_kwargs)
    except (TypeError, ValueError) as error:
        raise ValueError(f"network trunk_kwargs do not build a {spec.trunk} trunk: {error}") from None
    risk = spec.loss_reward if spec.head == "q_risk" else None
    return CellScorer(trunk, float(spec.preference_bound), risk, float(spec.advantage_bound))


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_weights(network: CellScorer, path: Path) -> str:
    """Write ``network``'s weights to ``path`` as a plain dict of CPU tensors; returns the file's SHA-256.

    Saved through a buffer: torch names the archive inside after a file it writes, so the same weights give the
    same bytes under any file name."""
    state = {key: value.detach().cpu().contiguous().clone() for key, value in network.state_dict().items()}
    buffer = io.BytesIO()
    th.save(state, buffer)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())
    return file_sha256(path)


def save_network(network: CellScorer, head: str, card_path: Path) -> dict[str, Any]:
    """Write ``network``'s weights beside ``card_path`` (same stem, ``.pt``); returns the card's ``network`` section
    naming them. ``head`` is which head gives the action (:data:`agents.networks.spec.HEADS`)."""
    weights = card_path.with_suffix(WEIGHTS_SUFFIX)
    sha256 = save_weights(network, weights)
    name, kwargs = trunk_kwargs(network.trunk)
    bound = 0.0 if network.preference is None else float(network.preference.bound)
    section = {"format": FORMAT_VERSION, "weights": weights.name, "sha256": sha256, "trunk": name,
               "trunk_kwargs": kwargs, "head": head, "preference_bound": bound}  # fmt: skip
    if network.mine_head is not None:
        section["loss_reward"] = network.loss_reward
    if network.advantage_bound:  # a card without it reads as unbounded, as every earlier card is
        section["advantage_bound"] = network.advantage_bound
    return section


def load_network(spec: NetworkSpec, folder: Path) -> CellScorer:
    """The network of a card's ``network`` section with its weights from ``folder``, on CPU, in eval mode.

    Raises:
        FileNotFoundError: the weights file is missing.
        ValueError: the file is not the card's (another SHA-256), not a dict of tensors, or its tensors are not the
            architecture's.
    """
    path = folder / spec.weights
    if not path.is_file():
        raise FileNotFoundError(f"model weights {path} do not exist (the card {spec.weights!r} names them)")
    if file_sha256(path) != spec.sha256:
        raise ValueError(f"model weights {path} are not the ones its card names (another SHA-256): the card and "
                         "the weights come from different saves")  # fmt: skip
    network = build_network(spec)
    try:
        state = th.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # a corrupt file fails in zipfile, pickle or torch in many ways
        raise ValueError(f"model weights {path} cannot be read: {error}") from None
    if not isinstance(state, dict) or not all(isinstance(value, th.Tensor) for value in state.values()):
        raise ValueError(f"model weights {path} are not a dict of tensors")
    try:
        network.load_state_dict(state)
    except RuntimeError as error:
        first = str(error).strip().splitlines()[-1].strip()
        raise ValueError(f"model weights {path} do not fit the card's {spec.trunk} network: {first}") from None
    return network.eval()

"""The ``network`` section of a model card: what rebuilds the playing network without the code that trained it.

A model in the model format is its card (``foo.json``, :class:`agents.model_card.ModelCard`) and a weights file
beside it (``foo.pt``: a plain dict of tensors, loaded with ``torch.load(weights_only=True)``, so loading runs no
pickled code). The card's ``network`` section names the architecture and its arguments::

    "network": {"format": 1, "weights": "foo.pt", "sha256": "...", "trunk": "board",
                "trunk_kwargs": {"channels": 64, "dilations": [1, 1, 2], "mines": 99, "pooled": [], "refine": 0},
                "head": "policy", "preference_bound": 0.0}

``trunk`` is a class of :mod:`agents.networks.trunks` (``cell``, ``board``, ``iterated``, ``tapered``) built with
``trunk_kwargs``; ``head`` says which head of the trained policy gives the action (``policy``: an actor-critic's
action logits, a distilled network's safety logits; ``q``: a DQN's Q-values), a 1x1 convolution either way, or
``q_risk``: a DQN's Q-values composed from two 1x1 heads, each cell's chance of a mine ``p`` and its return if
safe ``U``, as ``p * loss_reward + (1 - p) * U`` (``loss_reward``: the reward of a step onto a mine; with
``advantage_bound`` above 0, ``U`` is the head's mean over the hidden cells plus at most that much either side,
:func:`agents.networks.layers.bounded_spread`); ``preference_bound`` above 0 adds the guess-preference head. The
board and the observation are the card's ``env_kwargs`` (the networks read the ``grid`` observation). This module
reads and checks the section without torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

FORMAT_VERSION = 1
"""The version of the format this code writes and reads."""
WEIGHTS_SUFFIX = ".pt"
"""The weights file's suffix (its stem is the card's)."""
TRUNKS: dict[str, tuple[str, ...]] = {
    "cell": ("channels", "layers"),
    "board": ("channels", "dilations", "mines", "pooled", "refine"),
    "iterated": ("channels", "passes", "mines", "state_norm"),
    "tapered": ("widths", "mines", "norm"),
}
"""Each trunk's name in the card and the arguments it may be given (:mod:`agents.networks.trunks`)."""
HEADS = ("policy", "q", "q_risk")
"""Which head gives the action: an actor-critic's logits, a Q-network's values, or a Q-network's values composed
from a mine head and a return-if-safe head."""


@dataclass(frozen=True)
class NetworkSpec:
    """The card's ``network`` section (see the module docstring).

    Raises:
        ValueError: a field of the wrong kind or value, saying which.
    """

    trunk: str
    trunk_kwargs: dict[str, Any]
    head: str
    weights: str
    sha256: str
    preference_bound: float = 0.0
    loss_reward: float = 0.0
    """``q_risk`` only: the reward of a step onto a mine, what a cell certain to hold one is worth."""
    advantage_bound: float = 0.0
    """``q_risk`` only: how far a cell's return if safe may lie from the board's mean of it (0: unbounded)."""
    format: int = field(default=FORMAT_VERSION)

    def __post_init__(self) -> None:
        if self.format != FORMAT_VERSION:
            raise ValueError(f"network format {self.format!r} is not {FORMAT_VERSION}, the one this version reads")
        if self.trunk not in TRUNKS:
            raise ValueError(f"network trunk {self.trunk!r} is none of {', '.join(TRUNKS)}")
        if not isinstance(self.trunk_kwargs, dict) or not set(self.trunk_kwargs) <= set(TRUNKS[self.trunk]):
            raise ValueError(f"network trunk_kwargs must be an object with keys among {', '.join(TRUNKS[self.trunk])}, "
                             f"got {self.trunk_kwargs!r}")  # fmt: skip
        if self.head not in HEADS:
            raise ValueError(f"network head {self.head!r} is none of {', '.join(HEADS)}")
        if not isinstance(self.weights, str) or "/" in self.weights or not self.weights.endswith(WEIGHTS_SUFFIX):
            raise ValueError(
                f"network weights must be a {WEIGHTS_SUFFIX} file name beside the card, got {self.weights!r}"
            )
        if not isinstance(self.sha256, str) or len(self.sha256) != 64:
            raise ValueError(f"network sha256 must be the weights file's 64 hex digits, got {self.sha256!r}")
        if isinstance(self.preference_bound, bool) or not isinstance(self.preference_bound, (int, float)):
            raise ValueError(f"network preference_bound must be a number, got {self.preference_bound!r}")
        if self.preference_bound < 0:
            raise ValueError(f"network preference_bound must be 0 (no head) or above, got {self.preference_bound}")
        if isinstance(self.loss_reward, bool) or not isinstance(self.loss_reward, (int, float)):
            raise ValueError(f"network loss_reward must be a number, got {self.loss_reward!r}")
        if isinstance(self.advantage_bound, bool) or not isinstance(self.advantage_bound, (int, float)):
            raise ValueError(f"network advantage_bound must be a number, got {self.advantage_bound!r}")
        if self.advantage_bound < 0 or (self.advantage_bound and self.head != "q_risk"):
            raise ValueError(f"network advantage_bound must be 0, or above 0 for a q_risk head, got "
                             f"{self.advantage_bound} for a {self.head} head")  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """The section as JSON values."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> NetworkSpec:
        """The section of a parsed JSON object; ValueError for missing, unknown or malformed fields."""
        required = [item.name for item in fields(cls) if item.name not in OPTIONAL]
        return cls(**checked_fields(cls, data, required, "network must be an object", "network keys"))


OPTIONAL = ("preference_bound", "loss_reward", "advantage_bound", "format")
"""The fields a card may leave out (their defaults: no such head, the current format)."""


def checked_fields(cls: Any, data: Any, required: Sequence[str], what: str, keys: str) -> dict[str, Any]:
    """``data`` as the keyword arguments of the dataclass ``cls``; ValueError when it is not a dict holding every
    ``required`` key ("{what} with keys ...") or holds a key ``cls`` has no field for ("unknown {keys} ...")."""
    if not isinstance(data, dict) or any(key not in data for key in required):
        raise ValueError(f"{what} with keys {', '.join(required)}")
    unknown = sorted(set(data) - {item.name for item in fields(cls)})
    if unknown:
        raise ValueError(f"unknown {keys} {', '.join(unknown)}")
    return data

"""The model card: the JSON file beside a saved model that says how it was trained.

A saved model is its card (``models/foo.json``) with the files of the same stem beside it: the playing network's
weights (``models/foo.pt``, the model format of :mod:`agents.networks`, which the evaluation loads with torch alone)
and, for a run, the stable-baselines3 training zip (``foo.zip``, which only resuming the run reads). The
training scripts (:mod:`train.sb3.training`) write the card and the player (:mod:`agents.networks.player`) reads it,
both through :class:`ModelCard`::

    {"algo": "dqn" | "ppo" | "maskable_ppo" | "distill" | ..., "model_class": "module.path:ClassName",
     "env_kwargs": {"rows": .., "cols": .., "mines": .., "first_click": .., "obs_mode": "grid", "flags": false},
     "config": {...the run's settings...}, "steps": .., "eval": {"games": .., "seed": .., "win_rate": ..},
     "network": {...the architecture and the weights file: agents.networks.spec...},
     "opening": {...the first cell learnt from the model's own games: agents.opening...}}

``algo`` and ``env_kwargs`` (with at least ``rows`` and ``cols``) are required; the rest is the training run's
record, and ``network`` what the player plays (a card without it is an older run's, whose zip
``python -m train.sb3.export`` converts). The card names the algorithm as a plain word (``algo``); ``model_class`` is
the library class that loads the run's training zip, which only training reads (resuming, converting): a card with
no zip beside it, as the shipped models' are, leaves it out, since the player imports no training library.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from agents.networks.spec import WEIGHTS_SUFFIX, NetworkSpec, checked_fields
from agents.opening import LearntOpening
from agents.shipped_models import shipped_model, shipped_names

REQUIRED_KEYS = ("algo", "env_kwargs")
"""Keys every card must have."""


def model_paths(path: str | Path) -> tuple[Path, Path]:
    """The training ``.zip`` and the card for a model path given with or without the ``.zip`` (or the weights'
    ``.pt``) suffix, or for the short name of a shipped model (:mod:`agents.shipped_models`)."""
    path = shipped_model(path) or Path(path)
    if path.suffix == WEIGHTS_SUFFIX:
        path = path.with_suffix("")
    archive = path if path.suffix == ".zip" else path.with_name(path.name + ".zip")
    return archive, archive.with_suffix(".json")


@dataclass(frozen=True)
class ModelCard:
    """What a saved model was trained on, and the record of its training run.

    Attributes:
        algo: The training algorithm as a plain word (``"dqn"``, ``"ppo"``, ``"maskable_ppo"``, ``"rllib_ppo"``, or
            ``"distill"``: the oracle distilled by :mod:`train.distill`, whose logits are its safety logits).
        model_class: The class that loads the training zip, ``"module.path:ClassName"``; None for a card with no
            zip (nothing but training reads it).
        env_kwargs: The :class:`mine_env.env.MinesweeperEnv` keyword arguments of the board it plays
            (``rows`` and ``cols`` at least; ``obs_mode`` defaults to ``"grid"``, ``flags`` to False).
        config: The training run's settings (None when not recorded).
        steps: Environment steps it was trained for (None when not recorded).
        eval: Its last evaluation during training: ``{"games", "seed", "win_rate"}`` (None when not recorded).
        network: The playing network's architecture and weights file (:class:`agents.networks.spec.NetworkSpec`
            as JSON; None for a card written before the model format).
        opening: The first cell learnt from the model's own games (:class:`agents.opening.LearntOpening` as JSON;
            None when none was learnt).

    Raises:
        ValueError: a field of the wrong kind, saying which.
    """

    algo: str
    model_class: str | None
    env_kwargs: dict[str, Any]
    config: dict[str, Any] | None = None
    steps: int | None = None
    eval: dict[str, Any] | None = None
    network: dict[str, Any] | None = None
    opening: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """ValueError naming the first field that is not what the evaluation relies on."""
        if not isinstance(self.algo, str) or not self.algo:
            raise ValueError(f"algo must be a non-empty string, got {self.algo!r}")
        if self.model_class is not None and (
            not isinstance(self.model_class, str) or not all(self.model_class.partition(":")[::2])
        ):
            raise ValueError(f"model_class must look like 'module.path:ClassName', got {self.model_class!r}")
        env_kwargs = self.env_kwargs
        if not isinstance(env_kwargs, dict) or any(key not in env_kwargs for key in ("rows", "cols")):
            raise ValueError("env_kwargs must be an object giving at least rows and cols")
        if not isinstance(self.obs_mode, str):
            raise ValueError(f"env_kwargs: obs_mode must be a string, got {self.obs_mode!r}")
        for name in ("config", "eval"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), dict):
                raise ValueError(f"{name} must be an object, got {getattr(self, name)!r}")
        if self.steps is not None and (isinstance(self.steps, bool) or not isinstance(self.steps, int)):
            raise ValueError(f"steps must be an integer, got {self.steps!r}")
        if self.network is not None:
            NetworkSpec.from_dict(self.network)
        if self.opening is not None:
            LearntOpening.from_dict(self.opening)

    @property
    def network_spec(self) -> NetworkSpec | None:
        """The ``network`` section, read (None when the card has none)."""
        return None if self.network is None else NetworkSpec.from_dict(self.network)

    @property
    def learnt_opening(self) -> LearntOpening | None:
        """The ``opening`` section, read (None when the card has none)."""
        return None if self.opening is None else LearntOpening.from_dict(self.opening)

    @property
    def board(self) -> tuple[int, int]:
        """(rows, cols) of the board the model's network is shaped for."""
        return self.env_kwargs["rows"], self.env_kwargs["cols"]

    @property
    def obs_mode(self) -> Any:
        """The observation the model was trained on: ``"grid"``, ``"planes"`` or ``"dict"``."""
        return self.env_kwargs.get("obs_mode", "grid")

    @property
    def flags(self) -> bool:
        """Whether the model was trained with flag actions."""
        return bool(self.env_kwargs.get("flags", False))

    @property
    def mark_above(self) -> float:
        """The mine chance above which the network plays with marks (:mod:`agents.marks`); 0: without."""
        return float((self.config or {}).get("mark_above") or 0.0)

    def to_dict(self) -> dict[str, Any]:
        """The card as JSON values, the fields not recorded left out."""
        return {item.name: getattr(self, item.name) for item in fields(self) if getattr(self, item.name) is not None}

    @classmethod
    def from_dict(cls, data: Any) -> ModelCard:
        """The card of a parsed JSON object; ValueError for missing, unknown or malformed fields."""
        fields_given = checked_fields(cls, data, REQUIRED_KEYS, "a model card must be a JSON object", "model card keys")
        return cls(**{"model_class": None, **fields_given})

    def write(self, path: str | Path) -> None:
        """Write the card to ``path`` (indented JSON)."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def read(cls, path: str | Path) -> ModelCard:
        """The card in the JSON file ``path``.

        Raises:
            FileNotFoundError: no such file.
            ValueError: not JSON, or not a card; the message names the file.
        """
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ValueError(f"model card {path} is not valid JSON: {error}") from None
        try:
            return cls.from_dict(data)
        except ValueError as error:
            raise ValueError(f"model card {path}: {error}") from None

    @classmethod
    def of_model(cls, path: str | Path) -> ModelCard:
        """The card of the saved model ``path`` (``.zip`` or ``.pt`` suffix optional).

        Raises:
            FileNotFoundError: no such model (neither its card, its weights nor its zip), or no card beside them.
            ValueError: ``path`` is a folder or a file that is no model, or the card is unreadable or wrong.
        """
        check_model_path(path)
        archive, card = model_paths(path)
        if not any(item.is_file() for item in (archive, card, archive.with_suffix(WEIGHTS_SUFFIX))):
            given = Path(path)
            nor = f", nor {archive}" if given.suffix not in ("", ".zip") else ""
            raise FileNotFoundError(f"model file {given if nor else archive} does not exist{nor} (the shipped "
                                    f"models go by name: {shipped_names()})")
        if not card.is_file():
            raise FileNotFoundError(
                f"model {archive} has no metadata file {card} beside it (the training scripts write one; "
                "it says how the model was trained: algo, env_kwargs, network)"
            )
        return cls.read(card)


def check_model_path(path: str | Path) -> None:
    """ValueError when ``path`` names a folder or an existing file that is not a ``.zip`` or ``.pt``: the usual slips
    (a run folder, the model card, any other file) told as such rather than as a missing ``<path>.zip``."""
    path = Path(path)
    if path.is_dir():
        stems = {item.with_suffix("") for item in [*path.glob("*.zip"), *path.glob(f"*{WEIGHTS_SUFFIX}")]}
        models = sorted(str(stem) for stem in stems)
        hint = f"; the models in it: {', '.join(models)}" if models else ""
        raise ValueError(f"{path} is a folder, not a model file: give a model (its .zip, its {WEIGHTS_SUFFIX} or "
                         f"their stem){hint}")  # fmt: skip
    if path.is_file() and path.suffix not in (".zip", WEIGHTS_SUFFIX):
        archive = path.with_suffix(".zip")
        beside = path.suffix == ".json" and (archive.is_file() or path.with_suffix(WEIGHTS_SUFFIX).is_file())
        hint = f"; the model beside it is {path.with_suffix('')}" if beside else ""
        raise ValueError(
            f"{path} is not a model file: a model is a .json model card with its {WEIGHTS_SUFFIX} weights (and the "
            f"training .zip) beside it; give the .zip, the {WEIGHTS_SUFFIX} or their stem{hint}"
        )

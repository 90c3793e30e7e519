"""Saved stable-baselines3 models as agents: loaded on CPU, checked against the board, played greedily.

A model is a ``.zip`` saved by stable-baselines3 with its model card (:class:`agents.model_card.ModelCard`,
a JSON file of the same stem) beside it, as the training scripts of :mod:`train` write them.

The agent converts the env's grid observation to the model's ``obs_mode`` and picks the best *valid* action
by the policy's own preferences -- the action logits of an actor-critic policy (PPO, A2C, MaskablePPO), the
Q-values of a Q-network (DQN), the mean quantiles of QR-DQN -- with invalid actions masked out, so no learned
policy loses games to moves that change nothing. torch and stable-baselines3 are imported only here, and only
when a model is loaded.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from agents.base import Agent
from agents.model_card import ModelCard, model_paths
from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv, to_planes


def model_label(path: str | Path) -> str:
    """The name a model goes by in reports: its folder and file stem (``ppo-run/best_model``).

    The folder is kept because training runs save ``best_model`` and ``final_model`` in every run directory.
    """
    archive = model_paths(path)[0]
    return f"{archive.parent.name}/{archive.stem}" if archive.parent.name else archive.stem


def check_board(card: ModelCard, spec: BoardSpec, archive: Path) -> None:
    """A model's network is shaped for its board: the suite must have the same rows and columns."""
    rows, cols = card.board
    if (rows, cols) != (spec.rows, spec.cols):
        raise ValueError(
            f"model {archive} was trained on {rows}x{cols} boards and cannot play the suite's "
            f"{spec.rows}x{spec.cols} board"
        )


def trained_env(card: ModelCard, archive: Path) -> MinesweeperEnv:
    """An env of the model's board and observation (no mines needed: only its spaces are read)."""
    if card.flags:
        raise ValueError(f"model {archive} was trained with flag actions; the evaluation plays reveals only")
    rows, cols = card.board
    try:
        return MinesweeperEnv(rows=rows, cols=cols, mines=0, first_click="none", obs_mode=card.obs_mode)
    except (TypeError, ValueError) as error:
        raise ValueError(f"model card of {archive}: env_kwargs do not make an env: {error}") from None


def import_model_class(reference: str) -> type:
    """The class named ``"module.path:ClassName"``, or a ValueError saying why it cannot be had."""
    module_name, _, class_name = reference.partition(":")
    try:
        return getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot import model class {reference!r}: {error}") from None


def load_model_agent(path: str | Path, spec: BoardSpec | None = None) -> ModelAgent:
    """Load a saved model as an agent that plays the env's grid observations greedily over valid actions.

    Args:
        path: The model's ``.zip`` (the ``.zip`` suffix may be left out).
        spec: The board it will play; when given, a model of another size is refused.

    Raises:
        FileNotFoundError: the model or its card does not exist.
        ValueError: the card is wrong, the model does not fit the board, or the zip cannot be loaded.
    """
    archive, _ = model_paths(path)
    card = ModelCard.of_model(archive)
    if spec is not None:
        check_board(card, spec, archive)
    expected = trained_env(card, archive)
    model_class = import_model_class(card.model_class)
    try:
        model = model_class.load(archive, device="cpu")
    except Exception as error:  # a corrupt or foreign zip fails in many ways inside SB3, torch or zipfile
        raise ValueError(f"cannot load model {archive} as {card.model_class}: {error}") from None
    if not any(hasattr(model.policy, attribute) for attribute in _PREFERENCE_ATTRIBUTES):
        raise ValueError(
            f"model {archive}: cannot read action preferences from a {type(model.policy).__name__} policy "
            f"(it has none of {', '.join(_PREFERENCE_ATTRIBUTES)})"
        )
    agent = ModelAgent(model.policy, card.obs_mode, model_label(archive))
    agent.check_spaces(expected, archive)
    return agent


class ModelAgent(Agent):
    """A stable-baselines3 policy playing greedily over the valid actions.

    Args:
        policy: The model's ``policy`` (an SB3 ``BasePolicy``).
        obs_mode: The observation the policy was trained on: ``"grid"``, ``"planes"`` or ``"dict"``.
        name: The agent's name in reports.
    """

    def __init__(self, policy: Any, obs_mode: str, name: str) -> None:
        self.policy = policy
        self.obs_mode = obs_mode
        self.name = name
        policy.set_training_mode(False)

    def check_spaces(self, expected: MinesweeperEnv, archive: Path) -> None:
        """Refuse a model whose saved spaces are not those of its card's env (a zip and a card of different runs)."""
        rows, cols = expected.spec_board.rows, expected.spec_board.cols
        action_space = self.policy.action_space
        if not isinstance(action_space, gym.spaces.Discrete) or int(action_space.n) != expected.n_actions:
            raise ValueError(
                f"model {archive} acts in {action_space}, not Discrete({expected.n_actions}) of a {rows}x{cols} board"
            )
        if _space_shapes(self.policy.observation_space) != _space_shapes(expected.observation_space):
            raise ValueError(
                f"model {archive} observes {self.policy.observation_space}, not the {self.obs_mode!r} observation "
                f"{expected.observation_space} of a {rows}x{cols} board"
            )

    def action_scores(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """The policy's preference for every action (logits or Q-values), float array (n_actions,)."""
        import torch

        tensor, _ = self.policy.obs_to_tensor(self._model_observation(obs, info))
        with torch.no_grad():
            return _preferences(self.policy, tensor)[0].cpu().numpy()

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        scores = self.action_scores(obs, info)
        return int(np.where(info["action_mask"].astype(bool), scores, -np.inf).argmax())

    def _model_observation(self, obs: np.ndarray, info: dict[str, Any]) -> Any:
        if self.obs_mode == "planes":
            return to_planes(obs)
        if self.obs_mode == "dict":
            return {"observation": obs, "action_mask": info["action_mask"]}
        return obs


def _space_shapes(space: Any) -> Any:
    """Shapes of a Box or of a Dict of Boxes, for comparing spaces whatever their bounds."""
    if hasattr(space, "spaces") and isinstance(space.spaces, dict):
        return {key: _space_shapes(sub) for key, sub in space.spaces.items()}
    return tuple(space.shape)


_PREFERENCE_ATTRIBUTES = ("get_distribution", "q_net", "quantile_net")
"""What a policy must have for :func:`_preferences` to read it."""


def _preferences(policy: Any, observation: Any) -> Any:
    """Per-action scores of any SB3 policy for a batch, (N, n_actions): logits, Q-values or mean quantiles."""
    if hasattr(policy, "get_distribution"):  # actor-critic policies, maskable ones included
        return policy.get_distribution(observation).distribution.logits
    if hasattr(policy, "q_net"):  # DQN
        return policy.q_net(observation)
    return policy.quantile_net(observation).mean(dim=1)  # QR-DQN: (N, quantiles, actions)

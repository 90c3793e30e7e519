"""Saved stable-baselines3 models as agents: loaded on CPU, checked against the board, played greedily.

A model is a ``.zip`` saved by stable-baselines3 with its model card (:class:`agents.model_card.ModelCard`,
a JSON file of the same stem) beside it, as the training scripts of :mod:`train` write them.

A model plays any board its network can read: its own, and any other when the network is fully convolutional
(one score per cell whatever the board's size, as the networks of :mod:`train.networks` are). Which it is is
not taken on trust: the network is run on the new board before any game (:meth:`ModelAgent.check_board`).

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
from agents.shipped_models import shipped_model
from eval.symmetries import averaged_scores, gated_scores
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from mine_env.engine.symmetry import check_symmetries
from mine_env.env import MinesweeperEnv, to_planes


def model_label(path: str | Path, symmetries: int = 1, sure: float = 0.0) -> str:
    """The name a model goes by in reports: its folder and file stem (``ppo-run/best_model``) or the short name
    of a shipped model (``distill-expert``), ``+sym8`` when
    it plays averaged over 8 symmetries, and ``-sure1e-05`` when only where it is less sure than that.

    The folder is kept because training runs save ``best_model`` and ``final_model`` in every run directory.
    """
    archive = model_paths(path)[0]
    label = f"{archive.parent.name}/{archive.stem}" if archive.parent.name else archive.stem
    if shipped_model(path) is not None:
        label = str(path)  # a shipped model goes by its short name, wherever it is installed
    if symmetries > 1:
        label += f"+sym{symmetries}"
    return f"{label}-sure{sure:g}" if sure else label


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


def load_model_agent(
    path: str | Path, spec: BoardSpec | None = None, symmetries: int = 1, sure: float = 0.0
) -> ModelAgent:
    """Load a saved model as an agent that plays the env's grid observations greedily over valid actions.

    It sets torch to one CPU thread (``torch.set_num_threads(1)``) for the whole process: see the comment below.

    Args:
        path: The model's ``.zip`` (the ``.zip`` suffix may be left out).
        spec: The board it will play; when its size is not the model's, the network must be fully
            convolutional (:meth:`ModelAgent.check_board`).
        symmetries: Average the policy's scores over this many of the board's symmetries (1, 2, 4, or 8 on a
            square board: :mod:`mine_env.engine.symmetry`).
        sure: With ``symmetries`` > 1 and a distilled model: play the board as it is alone when the network
            gives its chosen cell a mine chance below this, and average only otherwise
            (:func:`eval.symmetries.gated_scores`); 0 (the default) always averages.

    Raises:
        FileNotFoundError: the model or its card does not exist.
        ValueError: the path is not a model, the card is wrong, the zip cannot be loaded, the network cannot
            read the board, or ``sure`` is out of (0, 1), without symmetries or for a model that is not distilled.
    """
    card = ModelCard.of_model(path)
    archive, _ = model_paths(path)
    check_sure(sure, symmetries, card, archive)
    expected = trained_env(card, archive)
    import torch

    # One position at a time through small convolutions: more threads only wait on each other, and on a busy
    # machine OpenMP's spinning threads made a beginner game of the distilled model take 1.6 s instead of 11 ms.
    # Parallel evaluation comes from the runner's processes.
    torch.set_num_threads(1)
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
    agent = ModelAgent(model.policy, card.obs_mode, model_label(archive, symmetries, sure))
    agent.check_spaces(expected, archive)
    rows, cols = card.board if spec is None else (spec.rows, spec.cols)
    if (rows, cols) != card.board:
        agent.check_board(rows, cols, card.board, archive)
    if symmetries != 1:
        agent.use_symmetries(symmetries, rows, cols, archive, sure)
    return agent


def check_sure(sure: float, symmetries: int, card: ModelCard, archive: Path) -> None:
    """ValueError unless ``sure`` is off (0) or a mine chance in (0, 1) for a distilled model over symmetries."""
    if not sure:
        return
    if not 0 < sure < 1:
        raise ValueError(f"sure is a mine chance between 0 and 1 (0: always average), got {sure:g}")
    if symmetries == 1:
        raise ValueError("sure gates the average over symmetries: give symmetries 2, 4 or 8 with it")
    if card.algo != "distill":
        raise ValueError(f"model {archive} was trained by {card.algo!r}: only a distilled model's scores are "
                         "safety logits that sure can read as mine chances")  # fmt: skip


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
        self.symmetries = 1
        self.sure = 0.0
        policy.set_training_mode(False)

    def use_symmetries(self, count: int, rows: int, cols: int, archive: Path, sure: float = 0.0) -> None:
        """Average the scores over ``count`` symmetries of the ``rows`` x ``cols`` board from now on, only where
        the board as it is leaves the network less sure than ``sure`` when that is not 0.

        Raises:
            ValueError: no such count on this board, or a ``dict`` observation (its mask is not mirrored).
        """
        check_symmetries(count, rows, cols)
        if self.obs_mode == "dict":
            raise ValueError(f"model {archive} observes a dict with its action mask: it cannot be played over "
                             "symmetries (only grid and planes observations can)")  # fmt: skip
        self.symmetries = count
        self.sure = sure

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

    def check_board(self, rows: int, cols: int, trained: tuple[int, int], archive: Path) -> None:
        """Refuse a board the network cannot read: it must give one score per cell on a board of another size.

        The network runs on an empty ``rows`` x ``cols`` board and on one a column wider: a network with a
        fixed number of outputs fails the first or, when its output count happens to equal this board's cells,
        the second. A fully convolutional one passes both.
        """
        trained_rows, trained_cols = trained
        for probe_rows, probe_cols in ((rows, cols), (rows, cols + 1)):
            grid = np.full((probe_rows, probe_cols), HIDDEN, dtype=np.int8)
            mask = np.ones(probe_rows * probe_cols, dtype=np.int8)
            try:
                fits = self.action_scores(grid, {"action_mask": mask}).shape == (probe_rows * probe_cols,)
            except Exception:  # a layer shaped for the trained board fails in torch, in many ways
                fits = False
            if not fits:
                raise ValueError(
                    f"model {archive} was trained on {trained_rows}x{trained_cols} boards and its network is not "
                    f"fully convolutional (its {self.obs_mode!r} observation or a layer is shaped for that board), "
                    f"so it cannot play the suite's {rows}x{cols} board; evaluate it on a "
                    f"{trained_rows}x{trained_cols} suite"
                )

    def action_scores(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """The policy's preference for every action (logits or Q-values), float array (n_actions,), on a board of
        any size (SB3's ``obs_to_tensor`` would insist on the trained one)."""
        import torch

        if "mines" in info:
            tell_mine_count(self.policy, int(info["mines"]))
        if self.obs_mode == "dict":
            device = self.policy.device
            observation = {"observation": obs, "action_mask": info["action_mask"]}
            tensor = {key: torch.as_tensor(value[None], device=device) for key, value in observation.items()}
            with torch.no_grad():
                return _preferences(self.policy, tensor)[0].cpu().numpy()
        if self.symmetries > 1 and self.sure:
            valid = info["action_mask"].astype(bool)
            return gated_scores(self.batch_scores, obs, self.symmetries, valid, self.sure)
        if self.symmetries > 1:
            return averaged_scores(self.batch_scores, obs, self.symmetries)
        return self.batch_scores(obs[None])[0]

    def batch_scores(self, grids: np.ndarray) -> np.ndarray:
        """Scores (N, n_actions) of a batch of grids (N, rows, cols), for grid and planes observations (a dict
        observation carries its own mask, which a batch of mirror images would not match)."""
        import torch

        batch = to_planes(grids) if self.obs_mode == "planes" else grids
        with torch.no_grad():
            return _preferences(self.policy, torch.as_tensor(batch, device=self.policy.device)).cpu().numpy()

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        scores = self.action_scores(obs, info)
        return int(np.where(info["action_mask"].astype(bool), scores, -np.inf).argmax())


def tell_mine_count(policy: Any, mines: int) -> None:
    """Give the game's mine count to every part of the network that reads it (a distilled network's input
    has the remaining-mine density; it declares ``reads_mine_count`` and ``set_mine_count``)."""
    for module in policy.modules():
        if getattr(module, "reads_mine_count", False):
            module.set_mine_count(mines)


def _space_shapes(space: Any) -> Any:
    """Shapes of a Box or of a Dict of Boxes, for comparing spaces whatever their bounds."""
    if hasattr(space, "spaces") and isinstance(space.spaces, dict):
        return {key: _space_shapes(sub) for key, sub in space.spaces.items()}
    return tuple(space.shape)


_PREFERENCE_ATTRIBUTES = ("action_net", "q_net", "quantile_net")
"""What a policy must have for :func:`_preferences` to read it."""


def _preferences(policy: Any, observation: Any) -> Any:
    """Per-action scores of any SB3 policy for a batch, (N, n_actions): logits, Q-values or mean quantiles.

    An actor-critic policy's logits are read before its action distribution, the way its ``get_distribution``
    computes them: the distribution is shaped for the trained board's action count (a maskable one reshapes
    the logits to it), and its normalised logits rank the actions the same.
    """
    if hasattr(policy, "action_net"):  # actor-critic policies, maskable ones included
        from stable_baselines3.common.policies import BaseModel

        features = BaseModel.extract_features(policy, observation, policy.pi_features_extractor)
        return policy.action_net(policy.mlp_extractor.forward_actor(features))
    if hasattr(policy, "q_net"):  # DQN
        return policy.q_net(observation)
    return policy.quantile_net(observation).mean(dim=1)  # QR-DQN: (N, quantiles, actions)

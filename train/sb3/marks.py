"""``--mark-above P``: PPO and MaskablePPO trained as they will play, with marks (:mod:`agents.marks`).

A player with marks keeps the hidden cells its network is sure are mines (a logit saying a mine chance above P)
and shows them to the network as flags at the next move: the board becomes the network's memory, so a small
network does not have to find every mine again at every move. A network plays so only where it was trained on such
positions; this wrapper makes the training rollouts the player's own games. At each step it reads the live policy's
raw logits (:func:`policy_scorer`, the saved model's scores) on the grid with the marks kept so far (the player's
reading, :func:`agents.marks.score_marked`), adds the newly sure cells to the marks and hands the policy that grid;
the action masks are the player's cells left to reveal (hidden and unmarked, or every hidden cell once all are
marked). The evaluation plays the same rule (:func:`train.played_games.play_games`), and the run's cards carry P,
so ``minesweeper eval`` and the agents play the model with it.

The marks are the policy's own beliefs, not the env's: nothing of the layout enters. The reading costs one more
forward pass of the policy a step.

A run with marks started (``--init``) from a model that played without them reads a mark as a hidden cell at first
(:func:`read_marks_as_hidden`): the source's flag weights never left their random start, and would otherwise turn
its first games into noise (the shipped expert MaskablePPO won 0 of 50 expert games so, 16 of 50 without marks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from agents.marks import score_marked, show_marks, sure_logit
from agents.model_card import ModelCard
from agents.networks.trunks import read_flags_as_hidden
from train.sb3.networks import cell_logits

Scorer = Callable[[np.ndarray], np.ndarray]
"""The policy's per-cell logits (N, cells) of a batch of grids (N, rows, cols)."""


class MarkingVecEnv(VecEnvWrapper):
    """The boards of ``venv`` played with marks at ``mark_above`` (see the module docstring); the policy's scorer is
    given by :meth:`attach` once the model exists."""

    def __init__(self, venv: VecEnv, mark_above: float) -> None:
        sure_logit(mark_above)  # refuses a threshold that is not a mine chance between 0.5 and 1
        super().__init__(venv)
        self.mark_above = mark_above
        cells = int(np.prod(venv.observation_space.shape or ()))
        self.marks = np.zeros((venv.num_envs, cells), dtype=bool)
        self.playable = np.ones((venv.num_envs, cells), dtype=bool)
        self._scorer: Scorer | None = None

    def attach(self, scorer: Scorer) -> None:
        """Read the marks with ``scorer`` (the live policy's logits) from now on."""
        self._scorer = scorer

    def reset(self) -> np.ndarray:
        self.marks[:] = False
        return self._read(np.asarray(self.venv.reset()))

    def step_wait(self) -> VecEnvStepReturn:
        before = self.marks.copy()
        obs, rewards, dones, infos = self.venv.step_wait()
        for i in np.flatnonzero(dones):
            final = infos[i].get("terminal_observation")
            if final is not None:
                infos[i]["terminal_observation"] = show_marks(final[None], before[i : i + 1])[0]
        self.marks[dones] = False  # a new game on those boards
        return self._read(np.asarray(obs)), rewards, dones, infos

    def _read(self, grids: np.ndarray) -> np.ndarray:
        """The grids as the policy sees them (the marks kept so far shown as flags), the marks and masks updated."""
        if self._scorer is None:
            raise RuntimeError("MarkingVecEnv: attach the policy's scorer before stepping")
        shown = show_marks(grids, self.marks)
        _, self.marks, self.playable = score_marked(self._scorer, grids, self.marks, self.mark_above)
        return shown

    def action_masks(self) -> np.ndarray:
        """The cells left to reveal on every board, bool (N, cells): valid and unmarked (every hidden cell of a
        board whose hidden cells are all marked)."""
        return self.playable.copy()

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:  # fmt: skip
        """``action_masks`` answers with the marked boards' masks; the rest goes to the wrapped env."""
        if method_name == "action_masks":
            return [self.playable[i].copy() for i in self._get_indices(indices)]
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)

    def state(self) -> dict[str, np.ndarray]:
        """What a checkpoint keeps: the marks and the masks of the games in progress."""
        return {"marks": self.marks.copy(), "playable": self.playable.copy()}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        self.marks[:] = state["marks"]
        self.playable[:] = state["playable"]


def policy_scorer(policy: Any) -> Scorer:
    """The live ``policy``'s raw logits as numpy (:func:`train.sb3.networks.cell_logits`): the scores its saved model
    plays by, which the mark threshold reads as mine chances."""
    return lambda grids: cell_logits(policy, grids).float().cpu().numpy()


def marking_env(env: VecEnv | None) -> MarkingVecEnv | None:
    """The :class:`MarkingVecEnv` among ``env``'s wrappers, if any."""
    while isinstance(env, VecEnvWrapper):
        if isinstance(env, MarkingVecEnv):
            return env
        env = env.venv
    return None


def read_marks_as_hidden(policy: Any, init: str) -> bool:
    """When the model ``init`` played without marks, make ``policy``'s trunks (the actor's and the critic's) read a
    flag as a hidden cell (:func:`agents.networks.trunks.read_flags_as_hidden`); returns whether it did."""
    if ModelCard.of_model(init).mark_above:
        return False
    for trunk in {policy.pi_features_extractor, policy.vf_features_extractor}:
        read_flags_as_hidden(trunk)
    return True

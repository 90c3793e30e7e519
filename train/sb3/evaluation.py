"""The model files of a run and its periodic evaluation: the model card written beside each model, and the
win rate on a fixed set of games that decides the run's best model (used by :func:`train.sb3.training.train`),
ties broken by the share of safe cells revealed (where no game is won yet, as on expert early, that share is what
moves)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback

from agents.model_card import ModelCard
from mine_env.engine.spec import BoardSpec
from train.played_games import PolicyEvaluation, play_games
from train.sb3.export import export_model
from train.sb3.networks import action_scores, cell_logits

if TYPE_CHECKING:
    from train.sb3.checkpoints import RunClock
    from train.sb3.run_config import RunConfig


# ---------------------------------------------------------------------- model files
def model_card(
    model: BaseAlgorithm, algo: str, config: RunConfig, evaluation: dict[str, Any] | None = None,
    network: dict[str, Any] | None = None,
) -> ModelCard:
    """The card written beside a model: what ``eval/`` needs to rebuild its env and its network (``network``, the
    section :func:`train.sb3.export.export_model` returns), and the run."""
    spec = config.board_spec()
    model_class = type(model)
    return ModelCard(
        algo=algo,
        model_class=f"{model_class.__module__}:{model_class.__name__}",
        env_kwargs={
            "rows": spec.rows, "cols": spec.cols, "mines": spec.mines, "first_click": spec.first_click,
            "obs_mode": "grid", "flags": False,
        },
        config=dataclasses.asdict(config),
        steps=int(model.num_timesteps),
        eval=evaluation,
        network=network,
    )  # fmt: skip


def save_model(
    model: BaseAlgorithm, path: Path, algo: str, config: RunConfig, evaluation: dict[str, Any] | None = None
) -> None:
    """Save ``path`` (.zip, SB3: what resuming and fine-tuning read), the playing network's weights (same name, .pt:
    the model format the evaluation reads) and the model card (same name, .json).

    ``evaluation`` is the evaluation of this very model on the run's fixed games, where one was made at its step
    (what made a best model the best so far; a final model's reading): ``{"games", "seed", "win_rate", ...}``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    card_path = path.with_suffix(".json")
    model_card(model, algo, config, evaluation, export_model(model, card_path)).write(card_path)


# ---------------------------------------------------------------------- evaluation
def evaluate_policy(
    policy: Any, spec: BoardSpec, games: int, seed: int, scores: Callable[[Any, np.ndarray], Any] = action_scores,
    mark_above: float = 0.0,
) -> PolicyEvaluation:
    """Play the masked greedy policy on a fixed set of games (board i plays game seed + i,
    :func:`train.played_games.play_games`).

    The best valid action is taken by Q-value or logit, so even an unmasked PPO policy is judged on valid moves only.
    ``scores`` maps the policy and a batch of grids to per-action scores (a tensor): the policy's own by default,
    another of its heads in a study. ``mark_above``: play with marks, as a run with ``--mark-above`` trains (its
    ``scores`` then the raw logits, :func:`train.sb3.networks.cell_logits`, that the threshold reads).
    """
    was_training = policy.training
    policy.set_training_mode(False)
    played = play_games(lambda grids: scores(policy, grids).float().cpu().numpy(), spec, games, seed, mark_above)
    policy.set_training_mode(was_training)
    return played


def evaluate_run_policy(policy: Any, config: RunConfig) -> PolicyEvaluation:
    """A run's periodic evaluation of ``policy``: the run's fixed games (``--eval-games``, ``--eval-seed``), with
    marks where the run trains with them (they read the raw logits, as the saved model's do)."""
    mark_above = getattr(config, "mark_above", 0.0)
    scores = cell_logits if mark_above else action_scores
    return evaluate_policy(policy, config.board_spec(), config.eval_games, config.eval_seed, scores, mark_above)


def evaluate_win_rate(
    policy: Any, spec: BoardSpec, games: int, seed: int, scores: Callable[[Any, np.ndarray], Any] = action_scores
) -> float:
    """The win rate of :func:`evaluate_policy`."""
    return evaluate_policy(policy, spec, games, seed, scores).win_rate


class WinRateCallback(BaseCallback):
    """Every ``every`` steps: evaluate on the fixed set, log ``eval/win_rate`` and ``eval/safe_fraction`` with the
    run's wall time so far (``time/wall_seconds``, from ``clock``: the curve against wall-clock time), keep the best
    model: the highest win rate, then the most safe cells revealed."""

    def __init__(self, algo: str, config: RunConfig, run_dir: Path, clock: RunClock) -> None:
        super().__init__()
        self.algo = algo
        self.config = config
        self.run_dir = run_dir
        self.clock = clock
        self.best = self._best_so_far(run_dir / "best_model.json")
        self.next_eval = 0
        self.last_eval = -1
        self.last_evaluation: dict[str, Any] | None = None

    @staticmethod
    def _best_so_far(card_path: Path) -> PolicyEvaluation:
        """The evaluation of a resumed run's best model (below any before the first). A card written before the safe
        share was recorded keeps its model against later ones of the same win rate, as the rule then was."""
        if not card_path.is_file():
            return PolicyEvaluation(-1.0, -1.0)
        evaluation = ModelCard.read(card_path).eval
        if evaluation is None or "win_rate" not in evaluation:
            raise ValueError(f"model card {card_path} records no evaluation win rate")
        return PolicyEvaluation(float(evaluation["win_rate"]), float(evaluation.get("safe_fraction", np.inf)))

    def _on_training_start(self) -> None:
        every = self.config.eval_every  # at whole multiples, so that a resumed run keeps the schedule
        self.next_eval = (self.num_timesteps // every + 1) * every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.config.eval_every
            self.evaluate()
        return True

    def _on_training_end(self) -> None:
        self.evaluate()

    def evaluation_at(self, step: int) -> dict[str, Any] | None:
        """The evaluation made at ``step`` (for the card of the model saved there), or None if none was."""
        return self.last_evaluation if self.last_eval == step else None

    def evaluate(self) -> None:
        if self.config.eval_games == 0 or self.last_eval == self.num_timesteps:
            return
        self.last_eval = self.num_timesteps
        wall_seconds = self.clock.seconds()  # the evaluation's own time is not training
        result = evaluate_run_policy(self.model.policy, self.config)
        self.logger.record("eval/win_rate", result.win_rate)
        self.logger.record("eval/safe_fraction", result.safe_fraction)
        if result.wrong_mark_games is not None:
            self.logger.record("eval/wrong_mark_games", result.wrong_mark_games)
        self.logger.record("time/wall_seconds", round(wall_seconds, 3))
        self.logger.record("time/total_timesteps", self.num_timesteps)
        self.logger.dump(self.num_timesteps)
        marks = "" if result.wrong_mark_games is None else f", games with a wrong mark {result.wrong_mark_games:.3f}"
        print(f"[{time.strftime('%H:%M:%S')}] step {self.num_timesteps}: eval win rate {result.win_rate:.3f}, "
              f"safe cells revealed {result.safe_fraction:.3f}{marks}", flush=True)  # fmt: skip
        self.last_evaluation = {"games": self.config.eval_games, "seed": self.config.eval_seed, **result.record()}
        if result.beats(self.best):
            self.best = result
            save_model(self.model, self.run_dir / "best_model.zip", self.algo, self.config, self.last_evaluation)

"""DQN (stable-baselines3) with the fully convolutional Q-network and action masking.

SB3's DQN has no masks, so :class:`MaskedDQN` adds them in the three places an action is chosen:

1. greedy action selection: invalid Q-values are set to -inf before the argmax (:meth:`MaskedDQN.predict`,
   and the policy's own ``_predict`` in :class:`~train.sb3.networks.MaskedQNetwork`);
2. exploration (epsilon-greedy and the warm-up before ``learning_starts``): a uniform draw among the
   valid actions only, from the model's own seeded ``np.random.Generator`` (SB3 draws from the whole
   action space with the global RNG);
3. the TD target: the max over the next state's *valid* actions (with double DQN, the argmax of the
   online network over valid actions, valued by the target network).

With ``mine_coef`` above 0 the Q-network gets the auxiliary head of :mod:`train.sb3.mine_head` (the true mines of
the hidden cells, stored in the replay buffer beside each observation), its loss added to every TD loss. With
``mine_prior`` the Q-values are composed from it (:class:`~train.sb3.networks.MaskedQNetwork`): a step onto a mine
is worth the loss reward for certain, so only the return if the cell is safe is left to learn, and the TD loss
fits it on the transitions whose cell was safe (the mine head learns the rest from the labels).

The mask of a state is not stored in the replay buffer: with flags off, a reveal is valid exactly when
the cell is hidden in the observation (``grid == HIDDEN``), so the next state's mask is recomputed from
the stored next observation, exactly. An explicit ``action_masks=`` passed to :meth:`MaskedDQN.predict`
overrides it (the same masks on a game in progress).

Run: ``python -m train.sb3.dqn --preset beginner --first-click opening --steps 500000 --seed 0`` or
``minesweeper train dqn ...``; every option is a field of :class:`DQNConfig`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch as th
import torch.nn.functional as F
from stable_baselines3 import DQN
from stable_baselines3.common.buffers import NStepReplayBuffer, ReplayBuffer
from stable_baselines3.common.noise import ActionNoise
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import VecEnv

from mine_env.engine.constants import HIDDEN
from train.options import at_least, option, within
from train.sb3.mine_head import MineBatch, MineNStepReplayBuffer, MineReplayBuffer, ReplayMineLabels, mine_head_loss
from train.sb3.networks import MaskedDQNPolicy, action_scores, damp_residual_trunks, hidden_cells, masked_argmax
from train.sb3.run_config import RunConfig, policy_network_kwargs
from train.sb3.training import Algorithm, script_main


def safe_steps_loss(current: th.Tensor, targets: th.Tensor, batch: MineBatch, actions: th.Tensor) -> th.Tensor:
    """The TD loss of the returns if safe (B, 1) over the transitions whose cell held no mine (a weighted mean):
    those onto a mine say nothing of what a safe step is worth."""
    onto_mine = batch.mines.gather(1, actions).bool() & batch.known.view(-1, 1)
    weights = (~onto_mine).float()
    losses = F.smooth_l1_loss(current, targets, reduction="none")
    return (losses * weights).sum() / weights.sum().clamp(min=1.0)


def random_valid_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row of ``masks`` (bool (N, n_actions)), uniform among that row's valid actions."""
    keys = rng.random(masks.shape)
    keys[~masks] = -1.0
    return keys.argmax(axis=1)


class MaskedDQN(DQN):
    """DQN that never picks an invalid action, in play, in exploration or in its TD target."""

    def __init__(self, *args: Any, double_q: bool = True, mine_coef: float = 0.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.double_q = double_q
        self.mine_coef = mine_coef
        self.explore_rng = np.random.default_rng(self.seed)

    def predict(  # type: ignore[override]
        self,
        observation: np.ndarray,
        state: tuple[np.ndarray, ...] | None = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> tuple[np.ndarray, tuple[np.ndarray, ...] | None]:
        """Masked greedy actions, or with probability ``exploration_rate`` per board (when not
        deterministic) a uniform valid one. ``observation``: one grid (rows, cols) or a batch."""
        grids = np.asarray(observation)
        single = grids.ndim == 2
        batch = grids.reshape(-1, *self.observation_space.shape)
        if action_masks is None:
            masks = batch.reshape(len(batch), -1) == HIDDEN
        else:
            masks = np.asarray(action_masks, dtype=bool).reshape(len(batch), -1)
        scores = action_scores(self.policy, batch).cpu().numpy()
        actions = np.where(masks, scores, -np.inf).argmax(axis=1)
        if not deterministic:
            explore = self.explore_rng.random(len(batch)) < self.exploration_rate
            actions[explore] = random_valid_actions(masks[explore], self.explore_rng)
        return (actions[0] if single else actions), state

    def _sample_action(
        self, learning_starts: int, action_noise: ActionNoise | None = None, n_envs: int = 1
    ) -> tuple[np.ndarray, np.ndarray]:
        """Uniform valid actions during the warm-up, epsilon-greedy masked actions after it."""
        if self.num_timesteps < learning_starts:
            masks = np.asarray(self._last_obs).reshape(n_envs, -1) == HIDDEN
            actions = random_valid_actions(masks, self.explore_rng)
        else:
            actions, _ = self.predict(self._last_obs, deterministic=False)
        return actions, actions

    def _store_transition(self, replay_buffer: ReplayBuffer, *args: Any, **kwargs: Any) -> None:
        """SB3's, after handing a mine-labelled buffer the true mines behind the observations the step acted on."""
        if isinstance(replay_buffer, ReplayMineLabels):
            replay_buffer.pending = self.env.unwrapped.layouts_before_step()  # type: ignore[union-attr]
        super()._store_transition(replay_buffer, *args, **kwargs)

    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        """SB3's DQN update with the max (or double-DQN argmax) of the target over valid actions only, plus
        ``mine_coef`` times the mine head's loss when the network has one."""
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        losses, mine_losses = [], []
        for _ in range(gradient_steps):
            batch = self.replay_buffer.sample(batch_size, env=self._vec_normalize_env)  # type: ignore[union-attr]
            data = batch.samples if isinstance(batch, MineBatch) else batch
            discounts = data.discounts if data.discounts is not None else self.gamma
            with th.no_grad():
                next_values = self._masked_next_values(data.next_observations)
                targets = data.rewards + (1 - data.dones) * discounts * next_values
            q_values, mine_logits = self.q_net.forward_with_mines(data.observations)
            current = th.gather(q_values, dim=1, index=data.actions.long())
            if self.q_net.mine_prior and isinstance(batch, MineBatch):
                loss = safe_steps_loss(current, targets, batch, data.actions.long())
            else:
                loss = F.smooth_l1_loss(current, targets)
            losses.append(loss.item())
            if mine_logits is not None and isinstance(batch, MineBatch):
                mine_loss = mine_head_loss(mine_logits, data.observations, batch.mines, batch.known)
                loss = loss + self.mine_coef * mine_loss
                mine_losses.append(mine_loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", np.mean(losses))
        if mine_losses:
            self.logger.record("train/mine_loss", np.mean(mine_losses))

    def _masked_next_values(self, next_observations: th.Tensor) -> th.Tensor:
        """Value of each next state under the target network, over its valid actions only: (B, 1).

        A next state with no hidden cell (only possible on a finished game, whose value the done flag
        zeroes anyway) gets 0 instead of -inf, so no NaN reaches the loss.
        """
        valid = hidden_cells(next_observations)
        target_q = self.q_net_target(next_observations)
        if self.double_q:
            best = masked_argmax(self.q_net(next_observations), valid)
            values = target_q.gather(1, best.unsqueeze(1))
        else:
            values = target_q.masked_fill(~valid, -th.inf).amax(dim=1, keepdim=True)
        return th.where(valid.any(dim=1, keepdim=True), values, th.zeros_like(values))


@dataclass
class DQNConfig(RunConfig):
    """DQN settings on top of :class:`~train.sb3.run_config.RunConfig`."""

    algo: ClassVar[str] = "dqn"

    num_envs: int = option(16, "Boards stepped together (each env step adds num_envs transitions).")
    learning_rate: float = option(1e-4, "Adam learning rate (the whole run's, or until the first of --lr-drops).")
    buffer_size: int = option(200_000, "Replay buffer capacity in transitions.")
    learning_starts: int = option(10_000, "Transitions of uniform valid actions before learning starts.")
    batch_size: int = option(128, "Minibatch size of each gradient step.")
    train_freq: int = option(1, "Vector-env steps between two training phases.")
    gradient_steps: int = option(2, "Gradient steps per training phase.")
    target_update_interval: int = option(5_000, "Transitions between two copies of the online net to the target.")
    gamma: float = option(0.99, "Discount factor.")
    exploration_fraction: float = option(0.2, "Fraction of training over which epsilon decays linearly.")
    exploration_initial_eps: float = option(1.0, "Epsilon at the start.")
    exploration_final_eps: float = option(0.02, "Epsilon after the decay.")
    max_grad_norm: float = option(10.0, "Gradient norm clipping.")
    double_q: bool = option(True, "Double DQN: online argmax over valid actions, valued by the target net.")
    n_step: int = option(
        1, "Steps of reward summed before bootstrapping (SB3's NStepReplayBuffer; the target's discount is gamma "
        "to the power of the steps taken, fewer where the game ended): 1 = one-step DQN.",
    )  # fmt: skip
    mine_coef: float = option(
        0.0, "Weight of the auxiliary mine head's loss (train.sb3.mine_head): a second head on the Q-network's trunk "
        "learns the true mines of the hidden cells, stored in the replay buffer; 0 = no head.",
    )  # fmt: skip
    mine_prior: bool = option(
        False, "Q-values composed from the mine head (--mine-coef above 0): p * reward_loss + (1 - p) * U, p a cell's "
        "chance of a mine and U the Q head's return if it is safe, fitted on the safe steps only.",
    )  # fmt: skip
    advantage_bound: float = option(
        0.0, "With --mine-prior: U held within this much of its mean over the hidden cells (a dueling split, "
        "U = m + B tanh(u - m)), so U's errors from cell to cell cannot outweigh large differences of the mine "
        "chance; 0 = U unbounded.",
    )  # fmt: skip
    frozen_trunk: bool = option(
        False, "With --init: the trunk's weights stay as they start, only the 1x1 heads learn (a start from a "
        "distilled network keeps the features it learnt from the oracle, and each step is cheaper).",
    )  # fmt: skip

    def validate(self) -> None:
        """The shared checks, then DQN's own (SB3 would fail on them later, or train nonsense)."""
        super().validate()
        at_least(self, 1, "buffer_size", "batch_size", "train_freq", "target_update_interval", "n_step")
        at_least(self, 0, "learning_starts", "mine_coef")
        at_least(self, -1, "gradient_steps")  # -1: as many gradient steps as transitions collected (SB3)
        within(self, 0.0, 1.0, "gamma", "exploration_fraction", "exploration_initial_eps", "exploration_final_eps")
        if not self.max_grad_norm > 0:
            raise ValueError(f"max_grad_norm must be positive, got {self.max_grad_norm}")
        if self.mine_prior and not self.mine_coef > 0:
            raise ValueError("--mine-prior reads the mine head: give --mine-coef above 0 too")
        at_least(self, 0, "advantage_bound")
        if self.advantage_bound and not self.mine_prior:
            raise ValueError("--advantage-bound bounds the return if safe of --mine-prior: give --mine-prior too")
        if self.frozen_trunk and not self.init:
            raise ValueError("--frozen-trunk keeps a trained trunk: give --init the model to start from")


def build_model(config: DQNConfig, env: VecEnv) -> MaskedDQN:
    model = damped(MaskedDQN(
        MaskedDQNPolicy, env, learning_rate=config.learning_rate, buffer_size=config.buffer_size,
        learning_starts=config.learning_starts, batch_size=config.batch_size, train_freq=config.train_freq,
        gradient_steps=config.gradient_steps, target_update_interval=config.target_update_interval,
        gamma=config.gamma, exploration_fraction=config.exploration_fraction,
        exploration_initial_eps=config.exploration_initial_eps, exploration_final_eps=config.exploration_final_eps,
        max_grad_norm=config.max_grad_norm, double_q=config.double_q, seed=config.seed, device=config.device,
        mine_coef=config.mine_coef, policy_kwargs={**policy_network_kwargs(config), "mine_head": config.mine_coef > 0,
                                                   "mine_prior": config.mine_prior, "loss_reward": config.reward_loss,
                                                   "advantage_bound": config.advantage_bound},
        **replay_buffer(config),
    ), config)  # fmt: skip
    freeze_trunk(model, config)
    return model


def damped(model: MaskedDQN, config: DQNConfig) -> MaskedDQN:
    """The model, with a residual trunk (``--dilations``) damped at the start as PPO's is
    (:func:`train.sb3.networks.damp_residual_trunks`), and the target network a copy of the damped one."""
    if config.dilations:
        damp_residual_trunks(model.q_net)
        model.q_net_target.load_state_dict(model.q_net.state_dict())
    return model


def freeze_trunk(model: MaskedDQN, config: DQNConfig) -> None:
    """With ``--frozen-trunk``, take the Q-network's trunk out of training: no gradient reaches it, so the optimizer
    leaves it as loaded (a flag of the module, not of the saved weights: set again on every build and resume)."""
    if config.frozen_trunk:
        model.q_net.features_extractor.requires_grad_(False)


def replay_buffer(config: DQNConfig) -> dict[str, Any]:
    """The replay buffer's class and settings: n-step for ``n_step`` above 1, with the true mines for ``mine_coef``
    above 0 (SB3's default buffer otherwise)."""
    mines = config.mine_coef > 0
    if config.n_step == 1:
        return {"replay_buffer_class": MineReplayBuffer} if mines else {}
    return {"replay_buffer_class": MineNStepReplayBuffer if mines else NStepReplayBuffer,
            "replay_buffer_kwargs": {"n_steps": config.n_step, "gamma": config.gamma}}  # fmt: skip


def resumed(model: MaskedDQN, config: DQNConfig) -> None:
    """Rebuild the epsilon schedule from the config: SB3 measures it as a fraction of the total steps, so a
    resume with more ``--steps`` would otherwise move epsilon back up the old decay; freeze the trunk again
    (``--frozen-trunk``)."""
    model.exploration_schedule = LinearSchedule(
        config.exploration_initial_eps, config.exploration_final_eps, config.exploration_fraction
    )
    freeze_trunk(model, config)


EXPLORATION = frozenset({"exploration_fraction", "exploration_initial_eps", "exploration_final_eps"})
"""What a resumed DQN run may change: the epsilon schedule (``resumed`` rebuilds it)."""

ALGORITHM = Algorithm("dqn", DQNConfig, MaskedDQN, build_model, resumed, changeable=EXPLORATION)

if __name__ == "__main__":
    # Run through the imported module, so that saved models name train.sb3.dqn, not __main__, as their class.
    from train.sb3 import dqn

    sys.exit(script_main(dqn.ALGORITHM))

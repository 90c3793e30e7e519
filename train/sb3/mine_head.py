"""PPO, MaskablePPO and DQN with an auxiliary head that learns the true mines of the hidden cells.

A game's layout is a free label: the engine knows it from the first reveal on, and the network is never shown it.
With ``mine_coef`` above 0 the policy gets a second 1x1 head on the actor's trunk
(:class:`train.sb3.networks.ConvHeads`, ``mine_head``) and every update adds ``mine_coef`` times its binary
cross-entropy against the true mines, over the hidden cells of games whose mines are placed. The trunk so learns
what decides a cell's danger from every step, not only from the rare reward at a game's end (the strongest
published pure-RL intermediate agent trains such a head). Play reads the head only with ``--mine-prior``
(:class:`train.sb3.networks.ConvHeads`).

The labels travel with the rollout: before each step the vector env keeps the boards' layouts
(:meth:`train.sb3.vec_env.BatchVecEnv.layouts_before_step`), and the rollout buffer stores them beside the
observations they belong to (:class:`MineRolloutBuffer`). The update (:meth:`MineHeadAlgorithm.train`) is PPO's
clipped surrogate, value loss (clipped around the rollout's values when ``clip_range_vf`` is set) and entropy bonus
as stable-baselines3 computes them, in one pass with the mine head (``target_kl``, which the runs here never set, is
refused). With ``mine_balance`` the head's loss weighs the mines and the safe cells of each minibatch equally, as
the published PPO's head does (a hidden cell is a mine about once in six on intermediate); with ``mine_positions``
each position weighs the same, not each hidden cell (the late positions, where few cells are hidden, decide most
games). With ``mine_replay`` the update also keeps its rollouts' positions in a
:class:`train.sb3.mine_replay.MineReplay` and ends with ``mine_replay_steps`` steps of the head's loss alone on
minibatches drawn from it (each shown under one of ``mine_replay_mirror`` of the board's symmetries).

DQN stores the labels in its replay buffer beside each transition's observation (:class:`ReplayMineLabels`: the
model hands them over before it stores a step, :meth:`train.sb3.dqn.MaskedDQN._store_transition`), samples them
with it, and adds the head's loss to the TD loss of every minibatch (:meth:`train.sb3.dqn.MaskedDQN.train`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Generator
from typing import Any, NamedTuple

import numpy as np
import torch as th
import torch.nn.functional as F
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from stable_baselines3 import PPO
from stable_baselines3.common.buffers import NStepReplayBuffer, ReplayBuffer, RolloutBuffer
from stable_baselines3.common.utils import explained_variance

from mine_env.engine.constants import FLAG, HIDDEN
from train.sb3.mine_replay import MineReplay

LabelSource = Callable[[], tuple[np.ndarray, np.ndarray]]
"""Returns the mines behind the observations of the step just taken (uint8 (N, n_cells)) and which games had
them placed (bool (N,))."""


class MineBatch(NamedTuple):
    """A minibatch of the rollout (SB3's samples) with the true mines of its observations and whether known."""

    samples: Any
    mines: th.Tensor
    known: th.Tensor


class _MineLabels:
    """Rollout-buffer mix-in: stores each step's true mines beside its observation, yields them in minibatches."""

    buffer_size: int
    n_envs: int
    obs_shape: tuple[int, ...]
    generator_ready: bool
    pos: int
    label_source: LabelSource | None = None

    def reset(self) -> None:
        cells = int(np.prod(self.obs_shape))
        self.mines = np.zeros((self.buffer_size, self.n_envs, cells), dtype=np.uint8)
        self.known = np.zeros((self.buffer_size, self.n_envs), dtype=np.bool_)
        super().reset()  # type: ignore[misc]

    def add(self, *args: Any, **kwargs: Any) -> None:
        if self.label_source is not None:
            self.mines[self.pos], self.known[self.pos] = self.label_source()
        super().add(*args, **kwargs)  # type: ignore[misc]

    def get(self, batch_size: int | None = None) -> Generator[MineBatch, None, None]:
        if not self.generator_ready:  # the base class flattens its own arrays, then marks them ready
            self.mines = self.swap_and_flatten(self.mines)  # type: ignore[attr-defined]
            self.known = self.swap_and_flatten(self.known)  # type: ignore[attr-defined]
        yield from super().get(batch_size)  # type: ignore[misc]

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> MineBatch:
        samples = super()._get_samples(batch_inds, env)  # type: ignore[misc]
        to_torch = self.to_torch  # type: ignore[attr-defined]
        return MineBatch(samples, to_torch(self.mines[batch_inds]), to_torch(self.known[batch_inds]).flatten())


class MineRolloutBuffer(_MineLabels, RolloutBuffer):
    """PPO's rollout buffer with the true mines."""


class MaskableMineRolloutBuffer(_MineLabels, MaskableRolloutBuffer):
    """MaskablePPO's rollout buffer (with the action masks) with the true mines."""


def mine_head_loss(logits: th.Tensor, observations: th.Tensor, mines: th.Tensor, known: th.Tensor,
                   balance: bool = False, per_position: bool = False) -> th.Tensor:  # fmt: skip
    """Mean binary cross-entropy of the mine logits (N, n_cells) against the true mines, over the hidden cells of
    the games whose mines are placed (a weighted mean: no host synchronisation on a GPU). A flagged cell is a hidden
    one (the marks of ``--mark-above`` are shown as flags): a mark on a safe cell loses the game, so the head keeps
    learning the cells it has marked, not only the rest. With ``balance`` a mine's
    term weighs (safe cells / mines) of the minibatch, so that the mines count as much as the safe cells. With
    ``per_position`` every position weighs the same, its hidden cells sharing its weight: a late position, with few
    hidden cells, counts as much as an early one with many."""
    cells = observations.flatten(1)
    weights = ((cells == HIDDEN) | (cells == FLAG)).float() * known.float().view(-1, 1)
    if per_position:
        weights = weights / weights.sum(dim=1, keepdim=True).clamp(min=1.0)
    targets = mines.float()
    losses = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    if balance:
        counted_mines = (targets * weights).sum()
        ratio = (weights.sum() - counted_mines) / counted_mines.clamp(min=1.0)
        losses = losses * (1.0 + (ratio - 1.0) * targets)
    return (losses * weights).sum() / weights.sum().clamp(min=1.0)


def clipped_value_loss(values: th.Tensor, old_values: th.Tensor, returns: th.Tensor, clip: float | None) -> th.Tensor:
    """The value loss: the mean squared error against the returns, of values held within ``clip`` of the rollout's
    (``old_values``) when ``clip`` is given, as stable-baselines3 clips them (no gradient beyond the clip)."""
    if clip is not None:
        values = old_values + th.clamp(values - old_values, -clip, clip)
    return F.mse_loss(returns, values)


class MineHeadAlgorithm:
    """Mix-in for PPO and MaskablePPO: the mine-labelled rollout buffer and an update with the mine head's loss."""

    buffer_class: type[RolloutBuffer]

    def __init__(self, *args: Any, mine_coef: float = 0.0, mine_balance: bool = False, mine_positions: bool = False,
                 mine_replay: int = 0, mine_replay_steps: int = 0, mine_replay_late: float = 1.0,
                 mine_replay_mirror: int = 1, **kwargs: Any) -> None:  # fmt: skip
        self.mine_coef = mine_coef
        self.mine_balance = mine_balance
        self.mine_positions = mine_positions
        self.mine_replay = mine_replay
        self.mine_replay_steps = mine_replay_steps
        self.mine_replay_late = mine_replay_late
        self.mine_replay_mirror = mine_replay_mirror
        self.mine_replay_buffer: MineReplay | None = None
        super().__init__(*args, **kwargs)

    def _setup_model(self) -> None:
        self.rollout_buffer_class = self.buffer_class
        super()._setup_model()  # type: ignore[misc]
        if self.mine_coef:
            self.rollout_buffer.label_source = self._labels
        self.set_mine_replay(self.mine_replay, self.mine_replay_steps, late_weight=self.mine_replay_late,
                             mirror=self.mine_replay_mirror)  # fmt: skip

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "mine_replay_buffer"]  # type: ignore[misc]  # beside the checkpoint

    def set_mine_replay(self, capacity: int, steps: int, replay: MineReplay | None = None,
                        late_weight: float | None = None, mirror: int | None = None) -> None:  # fmt: skip
        """Keep the last ``capacity`` positions (0: none) for ``steps`` extra mine-head steps an update, in
        ``replay`` where given (a checkpoint's), else in the replay held so far or a new one; draw its late
        positions ``late_weight`` times as often as the others and show each under one of ``mirror`` of the board's
        symmetries (None: as set before)."""
        self.mine_replay, self.mine_replay_steps = capacity, steps
        if late_weight is not None:
            self.mine_replay_late = late_weight
        if mirror is not None:
            self.mine_replay_mirror = mirror
        late = getattr(self, "mine_replay_late", 1.0)  # a model saved before the option draws uniformly
        held = replay or self.mine_replay_buffer
        if not capacity:
            self.mine_replay_buffer = None
        elif held is not None:
            self.mine_replay_buffer = held.resized(capacity)
            self.mine_replay_buffer.late_weight = late
        else:
            cells = int(np.prod(self.observation_space.shape))  # type: ignore[attr-defined]
            self.mine_replay_buffer = MineReplay(capacity, cells, seed=self.seed or 0,  # type: ignore[attr-defined]
                                                 late_weight=late)  # fmt: skip
        if self.mine_replay_buffer is not None:
            rows, cols = self.observation_space.shape  # type: ignore[attr-defined]
            self.mine_replay_buffer.mirror(getattr(self, "mine_replay_mirror", 1), rows, cols)

    def _labels(self) -> tuple[np.ndarray, np.ndarray]:
        env = self.env.unwrapped  # type: ignore[attr-defined]
        if not hasattr(env, "layouts_before_step"):
            raise ValueError(f"mine_coef needs the batched training env, which knows the layouts; got {type(env)}")
        return env.layouts_before_step()

    def train(self) -> None:
        """One PPO update over the rollout, plus ``mine_coef`` times the mine head's loss when the policy has one."""
        if self.target_kl is not None:  # type: ignore[attr-defined]
            raise ValueError("the update here has no target_kl; leave it unset")
        policy = self.policy  # type: ignore[attr-defined]
        policy.set_training_mode(True)
        self._update_learning_rate(policy.optimizer)  # type: ignore[attr-defined]
        clip = self.clip_range(self._current_progress_remaining)  # type: ignore[attr-defined]
        clip_vf = self.clip_range_vf  # type: ignore[attr-defined]
        clip_vf = None if clip_vf is None else clip_vf(self._current_progress_remaining)
        stats: dict[str, list[th.Tensor]] = defaultdict(list)
        self._keep_rollout_positions()
        for _ in range(self.n_epochs):  # type: ignore[attr-defined]
            for batch in self.rollout_buffer.get(self.batch_size):  # type: ignore[attr-defined]
                data = batch.samples
                values, log_prob, entropy, mine_logits = policy.evaluate_with_mines(
                    data.observations, data.actions.long().flatten(), getattr(data, "action_masks", None)
                )
                advantages = data.advantages
                if self.normalize_advantage and len(advantages) > 1:  # type: ignore[attr-defined]
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                ratio = th.exp(log_prob - data.old_log_prob)
                clipped = th.clamp(ratio, 1 - clip, 1 + clip)
                policy_loss = -th.min(advantages * ratio, advantages * clipped).mean()
                value_loss = clipped_value_loss(values.flatten(), data.old_values, data.returns, clip_vf)
                entropy_loss = -entropy.mean()
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss  # type: ignore[attr-defined]
                if mine_logits is not None and self.mine_coef:
                    mine_loss = mine_head_loss(mine_logits, data.observations, batch.mines, batch.known,
                                               self.mine_balance, self.mine_positions)  # fmt: skip
                    loss = loss + self.mine_coef * mine_loss
                    stats["mine_loss"].append(mine_loss.detach())
                policy.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(policy.parameters(), self.max_grad_norm)  # type: ignore[attr-defined]
                policy.optimizer.step()
                with th.no_grad():
                    log_ratio = log_prob - data.old_log_prob
                    stats["approx_kl"].append(((th.exp(log_ratio) - 1) - log_ratio).mean())
                    stats["clip_fraction"].append(((ratio - 1).abs() > clip).float().mean())
                stats["policy_gradient_loss"].append(policy_loss.detach())
                stats["value_loss"].append(value_loss.detach())
                stats["entropy_loss"].append(entropy_loss.detach())
                stats["loss"].append(loss.detach())
        self._replay_mine_steps(stats)
        self._n_updates += self.n_epochs  # type: ignore[attr-defined]
        buffer = self.rollout_buffer  # type: ignore[attr-defined]
        logger = self.logger  # type: ignore[attr-defined]
        for name, values in stats.items():
            logger.record(f"train/{name}", th.stack(values).mean().item())
        logger.record("train/explained_variance", explained_variance(buffer.values.flatten(), buffer.returns.flatten()))
        logger.record("train/n_updates", self._n_updates, exclude="tensorboard")  # type: ignore[attr-defined]
        logger.record("train/clip_range", clip)

    def _keep_rollout_positions(self) -> None:
        """Add the rollout's positions and mines to the replay (before the update flattens them, steps in order)."""
        if self.mine_replay_buffer is None:
            return
        buffer = self.rollout_buffer  # type: ignore[attr-defined]
        cells = buffer.mines.shape[-1]
        boards = buffer.observations.reshape(-1, cells).astype(np.int8)
        self.mine_replay_buffer.add(boards, buffer.mines.reshape(-1, cells), buffer.known.reshape(-1))

    def _replay_mine_steps(self, stats: dict[str, list[th.Tensor]]) -> None:
        """``mine_replay_steps`` gradient steps of ``mine_coef`` times the head's loss alone, each on a minibatch
        of ``batch_size`` positions drawn from the replay."""
        if self.mine_replay_buffer is None or not self.mine_replay_steps or not self.mine_coef:
            return
        policy = self.policy  # type: ignore[attr-defined]
        shape = self.observation_space.shape  # type: ignore[attr-defined]
        device = self.device  # type: ignore[attr-defined]
        for _ in range(self.mine_replay_steps):
            boards, mines = self.mine_replay_buffer.sample(self.batch_size)  # type: ignore[attr-defined]
            observations = th.as_tensor(boards, device=device).float().view(-1, *shape)
            known = th.ones(len(boards), dtype=th.bool, device=device)
            loss = mine_head_loss(policy.mine_logits(observations), observations, th.as_tensor(mines, device=device),
                                  known, self.mine_balance, self.mine_positions)  # fmt: skip
            if not loss.requires_grad:  # the critic's warm-up holds the head and its trunk
                return
            policy.optimizer.zero_grad()
            (self.mine_coef * loss).backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), self.max_grad_norm)  # type: ignore[attr-defined]
            policy.optimizer.step()
            stats["replay_mine_loss"].append(loss.detach())


class MinePPO(MineHeadAlgorithm, PPO):
    """PPO with the optional mine head (``mine_coef``)."""

    buffer_class = MineRolloutBuffer


class MineMaskablePPO(MineHeadAlgorithm, MaskablePPO):
    """MaskablePPO with the optional mine head (``mine_coef``)."""

    buffer_class = MaskableMineRolloutBuffer


class ReplayMineLabels:
    """Replay-buffer mix-in: each transition's true mines (those behind its observation) and whether they were
    placed, stored beside it and sampled with it as a :class:`MineBatch`.

    The model sets ``pending`` to the step's labels (:data:`LabelSource`'s pair) before each ``add``. SB3 draws the
    sampled boards (``env_indices``) from numpy's global generator inside ``_get_samples``; the labels are read at
    the same draw, replayed from the generator's state before it, so the sampling stays SB3's own, step for step.
    """

    buffer_size: int
    n_envs: int
    pos: int

    def __init__(self, buffer_size: int, observation_space: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(buffer_size, observation_space, *args, **kwargs)  # type: ignore[call-arg]
        cells = int(np.prod(observation_space.shape))
        self.mines = np.zeros((self.buffer_size, self.n_envs, cells), dtype=np.uint8)
        self.known = np.zeros((self.buffer_size, self.n_envs), dtype=np.bool_)
        self.pending: tuple[np.ndarray, np.ndarray] | None = None

    def add(self, *args: Any, **kwargs: Any) -> None:
        if self.pending is None:
            raise ValueError("the mine labels of this step were not handed over: set pending before add")
        self.mines[self.pos], self.known[self.pos] = self.pending
        self.pending = None
        super().add(*args, **kwargs)  # type: ignore[misc]

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> MineBatch:
        before = np.random.get_state()
        samples = super()._get_samples(batch_inds, env)  # type: ignore[misc]
        after = np.random.get_state()
        np.random.set_state(before)
        env_indices = np.random.randint(0, self.n_envs, size=batch_inds.shape)  # the draw SB3 just made
        np.random.set_state(after)
        to_torch = self.to_torch  # type: ignore[attr-defined]
        mines, known = self.mines[batch_inds, env_indices], self.known[batch_inds, env_indices]
        return MineBatch(samples, to_torch(mines), to_torch(known))


class MineReplayBuffer(ReplayMineLabels, ReplayBuffer):
    """DQN's replay buffer with the true mines."""


class MineNStepReplayBuffer(ReplayMineLabels, NStepReplayBuffer):
    """DQN's n-step replay buffer (``--n-step``) with the true mines."""

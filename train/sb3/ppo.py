"""PPO (stable-baselines3) with the fully convolutional policy, without action masks.

The policy may pick a revealed cell: that step changes nothing and earns ``reward_invalid`` (negative by
default here), so PPO has to learn validity itself. Compare :mod:`train.sb3.maskable_ppo`, which never can.

Run: ``python -m train.sb3.ppo --preset beginner --first-click opening --steps 1000000 --seed 0`` or
``minesweeper train ppo ...``; every option is a field of :class:`PPOConfig`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, ClassVar

import torch as th
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv

from mine_env.engine.symmetry import check_symmetries
from train.options import at_least, option, within
from train.sb3.curriculum import is_distilled
from train.sb3.mine_head import MinePPO
from train.sb3.networks import ConvActorCriticPolicy, damp_residual_trunks
from train.sb3.run_config import RunConfig, policy_network_kwargs
from train.sb3.training import Algorithm, script_main


@dataclass
class PPOConfig(RunConfig):
    """PPO settings on top of :class:`~train.sb3.run_config.RunConfig` (also used by MaskablePPO)."""

    algo: ClassVar[str] = "ppo"

    reward_invalid: float = option(-0.1, "Reward for revealing a revealed cell (PPO has no masks to avoid it).")
    n_steps: int = option(64, "Steps per board per rollout; a rollout holds num_envs * n_steps steps.")
    batch_size: int = option(512, "Minibatch size of the PPO update.")
    n_epochs: int = option(4, "Passes over each rollout.")
    gamma: float = option(0.99, "Discount factor.")
    gae_lambda: float = option(0.95, "GAE lambda (bias/variance of the advantages).")
    clip_range: float = option(0.2, "PPO clipping of the probability ratio.")
    clip_range_vf: float = option(
        0.0, "Value clipping: the value moves at most this far from the rollout's estimate in an update (0 = none)."
    )
    ent_coef: float = option(0.01, "Entropy bonus coefficient (exploration).")
    vf_coef: float = option(0.5, "Value loss coefficient.")
    max_grad_norm: float = option(0.5, "Gradient norm clipping.")
    mine_coef: float = option(
        0.0,
        "Weight of the auxiliary mine head's loss (train.sb3.mine_head): a second head learns the true mines of the "
        "hidden cells, free labels that shape the trunk at every step; 0 = no head.",
    )
    mine_balance: bool = option(
        False,
        "The mine head's loss weighs mines and safe cells equally (each minibatch's mines weigh safe/mines), as the "
        "published PPO's head does; else every hidden cell weighs the same.",
    )
    mine_positions: bool = option(
        False,
        "The mine head's loss weighs each position the same, its hidden cells sharing the weight; else every hidden "
        "cell weighs the same, and the early positions, with many more hidden cells than the late ones, dominate.",
    )
    mine_replay: int = option(
        0,
        "Positions of past rollouts (the board and its true mines) kept for extra steps of the mine head "
        "(train.sb3.mine_replay): its labels do not go stale as returns do; 0 = none.",
    )
    mine_replay_steps: int = option(
        0, "Gradient steps of the mine head's loss alone at the end of each update, on minibatches of --batch-size "
        "drawn from --mine-replay.",
    )  # fmt: skip
    mine_replay_late: float = option(
        1.0, "A late position of --mine-replay (under a tenth of its safe cells still hidden) is drawn this many "
        "times as often as another: the endgame is a small share of any replay; 1 = uniform.",
    )  # fmt: skip
    mine_replay_mirror: int = option(
        1, "Each position drawn from --mine-replay is shown under one of this many of the board's symmetries (2 or 4; "
        "8 on a square board), its mines moved with it: a run's own games are not spread evenly over a position's "
        "mirror images; 1 = as played.",
    )  # fmt: skip
    mine_prior: bool = option(
        False,
        "The actor's logits start from the mine head's (--mine-coef above 0): each cell's logit is the policy head's "
        "minus the mine head's, so the policy plays the cells the head finds safest from the first updates on and "
        "RL learns what to prefer among them (train.sb3.networks.ConvHeads).",
    )
    detach_prior: bool = option(
        False,
        "With --mine-prior: the policy's gradient stops at the mine head, which only its own loss then trains (it "
        "stays an estimator of the true mines, the policy head learns the offset against it).",
    )
    prior_only: bool = option(
        False,
        "With --mine-prior and --preference-bound: the actor's logits are the mine head's alone plus a preference "
        "bounded by --preference-bound, so RL orders only the cells the head finds nearly equally safe (the DQN's "
        "bounded advantage, for PPO); the policy head is left out.",
    )
    prior_scale: float = option(
        1.0,
        "With --mine-prior: the weight of the mine head's logits in the actor's; above 1 the sampled policy keeps "
        "closer to the head's safest cells (greedy play is unchanged), so training reaches later stages of the game.",
    )
    preference_bound: float = option(
        0.0,
        "A learned bonus of at most this many nats on each cell's logit, from the trunk's features and the cell's "
        "gap to the safest (agents.networks.layers.GuessPreference); 0 = none.",
    )
    mark_above: float = option(
        0.0,
        "Train and play with marks (train.sb3.marks, agents.marks): hidden cells whose logit says a mine chance above "
        "this are kept, shown to the policy as flags and not played while another cell is hidden; the logits are "
        "the actor's, so with --prior-scale 3 a mine head sure at 0.99 is a chance of about 1 - 1e-6 here; 0 = none.",
    )
    critic_warmup: int = option(
        0,
        "Environment steps at the start in which only the critic learns: the actor's weights (its heads and its "
        "trunk, shared or not) stay frozen, so its first updates follow advantages of a trained critic (for --init "
        "of a distilled or shipped model, whose value head starts fresh).",
    )

    def validate(self) -> None:
        """The shared checks, then PPO's own (SB3 would fail on them with an assertion, or train nonsense)."""
        super().validate()
        at_least(self, 1, "n_steps", "n_epochs")
        at_least(self, 0, "critic_warmup", "mine_coef", "clip_range_vf", "mine_replay", "mine_replay_steps")
        if (self.mine_replay > 0) != (self.mine_replay_steps > 0):
            raise ValueError("--mine-replay keeps positions for --mine-replay-steps: give both above 0, or neither")
        if not self.mine_replay_late > 0:
            raise ValueError(f"--mine-replay-late is a weight above 0, got {self.mine_replay_late:g}")
        if self.mine_replay_late != 1.0 and not self.mine_replay:
            raise ValueError("--mine-replay-late weighs the draws of --mine-replay: give --mine-replay too")
        if self.mine_replay_mirror != 1 and not self.mine_replay:
            raise ValueError("--mine-replay-mirror mirrors the draws of --mine-replay: give --mine-replay too")
        board = self.board_spec()
        check_symmetries(self.mine_replay_mirror, board.rows, board.cols)
        if self.mine_replay and not self.mine_coef > 0:
            raise ValueError("--mine-replay trains the mine head: give --mine-coef above 0 too")
        at_least(self, 2, "batch_size")
        within(self, 0.0, 1.0, "gamma", "gae_lambda")
        if self.mine_prior and not self.mine_coef > 0:
            raise ValueError("--mine-prior reads the mine head: give --mine-coef above 0 too")
        if self.detach_prior and not self.mine_prior:
            raise ValueError("--detach-prior acts on the mine prior: give --mine-prior too")
        if self.prior_scale != 1.0 and not self.mine_prior:
            raise ValueError("--prior-scale weighs the mine prior: give --mine-prior too")
        if not self.prior_scale > 0:
            raise ValueError(f"prior_scale must be above 0, got {self.prior_scale}")
        if self.preference_bound < 0:
            raise ValueError(f"preference_bound must be at least 0, got {self.preference_bound}")
        if self.prior_only and not (self.mine_prior and self.preference_bound > 0):
            raise ValueError("--prior-only plays the mine prior plus a bounded preference: give --mine-prior and "
                             "--preference-bound above 0 too")  # fmt: skip
        if self.mark_above and not 0.5 < self.mark_above < 1.0:
            raise ValueError(f"--mark-above is a mine chance between 0.5 and 1 (0: no marks), got {self.mark_above:g}")
        for name in ("clip_range", "max_grad_norm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")


def ppo_kwargs(config: PPOConfig) -> dict[str, Any]:
    """The keyword arguments PPO and MaskablePPO share, from the config."""
    return {
        "learning_rate": config.learning_rate, "n_steps": config.n_steps, "batch_size": config.batch_size,
        "n_epochs": config.n_epochs, "gamma": config.gamma, "gae_lambda": config.gae_lambda,
        "clip_range": config.clip_range, "clip_range_vf": config.clip_range_vf or None, "ent_coef": config.ent_coef,
        "vf_coef": config.vf_coef, "max_grad_norm": config.max_grad_norm, "seed": config.seed, "device": config.device,
        "mine_coef": config.mine_coef, "mine_balance": config.mine_balance, "mine_positions": config.mine_positions,
        "mine_replay": config.mine_replay, "mine_replay_steps": config.mine_replay_steps,
        "mine_replay_late": config.mine_replay_late, "mine_replay_mirror": config.mine_replay_mirror,
        "policy_kwargs": {
            **policy_network_kwargs(config),
            "value_hidden": config.value_hidden,
            "mine_head": config.mine_coef > 0,
            "mine_prior": config.mine_prior,
            "detach_prior": config.detach_prior,
            "prior_only": config.prior_only,
            "prior_scale": config.prior_scale,
            "preference_bound": config.preference_bound,
            # from distilled weights the critic gets a trunk of its own: a fresh value head's errors, shared,
            # would rewrite the trunk the actor starts from (docs/lab/2026-11-24-rl-from-distilled-weights.md)
            "share_features_extractor": not (config.init and is_distilled(config.init)),
        },
    }  # fmt: skip


class CriticWarmup(BaseCallback):
    """Freeze the actor's own parameters until ``steps`` environment steps have been played.

    A value head fresh on top of a distilled actor gives advantages that are noise at first; PPO then moves
    the actor at random (MaskablePPO lost about a point per 8,000 steps from the distilled weights). Frozen
    parameters get no gradient, so Adam leaves them be, while the critic learns the actor's returns.
    """

    def __init__(self, steps: int) -> None:
        super().__init__()
        self.steps = steps
        self.frozen = False

    def actor_parameters(self) -> list[th.nn.Parameter]:
        """The weights the actor's logits read: its head, its guess preference, its trunk (shared with the critic
        or not: a fresh value head's first errors must not rewrite it) and, with the mine prior, the mine head."""
        policy: Any = self.model.policy
        heads = policy.mlp_extractor
        own = list(heads.policy_head.parameters()) + list(policy.pi_features_extractor.parameters())
        if heads.preference is not None:
            own += list(heads.preference.parameters())
        if heads.mine_prior:
            own += list(heads.mine_head.parameters())
        return own

    def set_frozen(self, frozen: bool) -> None:
        for parameter in self.actor_parameters():
            parameter.requires_grad_(not frozen)
        self.frozen = frozen

    def _on_training_start(self) -> None:
        if self.num_timesteps < self.steps:
            self.set_frozen(True)

    def _on_rollout_start(self) -> None:
        # the update of a rollout follows its collection: the rollout that reaches ``steps`` is still warm-up
        if self.frozen and self.num_timesteps >= self.steps:
            self.set_frozen(False)
            print(f"step {self.num_timesteps}: critic warm-up over, the actor learns from now on", flush=True)

    def _on_step(self) -> bool:
        return True


def ppo_callbacks(config: PPOConfig) -> list[BaseCallback]:
    """The critic warm-up, when asked for."""
    return [CriticWarmup(config.critic_warmup)] if config.critic_warmup else []


def damped(model: MinePPO, config: PPOConfig) -> MinePPO:
    """The model, with its residual trunk (``--dilations``) damped at the start (:meth:`BoardFeatures.damp_residuals`;
    a trunk from ``--init`` is replaced by the distilled one, and the random draws of its runs stay as they were)."""
    if config.dilations:
        damp_residual_trunks(model.policy)
    return model


def build_model(config: PPOConfig, env: VecEnv) -> MinePPO:
    return damped(MinePPO(ConvActorCriticPolicy, env, **ppo_kwargs(config)), config)


SET_ON_RESUME = ("ent_coef", "vf_coef", "max_grad_norm", "n_epochs", "mine_coef", "mine_balance", "mine_positions")
"""The update's weights and passes: model attributes that ``resumed`` sets on a loaded checkpoint."""
CHANGEABLE = frozenset(SET_ON_RESUME) | {"critic_warmup", "mine_replay", "mine_replay_steps", "mine_replay_late",
                                         "mine_replay_mirror"}  # fmt: skip
"""What a resumed PPO or MaskablePPO run may change: :data:`SET_ON_RESUME`, the critic warm-up (a callback built
from the config) and the mine replay (its newest positions kept)."""


def resumed(model: MinePPO, config: PPOConfig) -> None:
    """Set :data:`SET_ON_RESUME` on a loaded checkpoint (SB3 keeps the saved ones); the mine head's
    weight only between positive values, since without it there is no head and no labels."""
    if (config.mine_coef > 0) != (model.mine_coef > 0):
        raise ValueError(f"--mine-coef cannot go from {model.mine_coef} to {config.mine_coef} in a resumed run (the "
                         "mine head and its labels are there only above 0): start a new run")  # fmt: skip
    for name in SET_ON_RESUME:
        setattr(model, name, getattr(config, name))
    model.set_mine_replay(config.mine_replay, config.mine_replay_steps, late_weight=config.mine_replay_late,
                          mirror=config.mine_replay_mirror)  # fmt: skip


ALGORITHM = Algorithm("ppo", PPOConfig, MinePPO, build_model, resumed, callbacks=ppo_callbacks, changeable=CHANGEABLE)

if __name__ == "__main__":
    # Run through the imported module, so that saved models name train.sb3.ppo, not __main__, as their class.
    from train.sb3 import ppo

    sys.exit(script_main(ppo.ALGORITHM))

"""Named recipes: a published run's settings, or one of ours worth naming, as one option, ``--recipe NAME``, that
the options given beside it override (``--recipe anchor --steps 500000``).

A recipe only fills in the defaults of a new run: its ``config.json`` holds every value, so a resumed run needs
no recipe (and takes none). Each recipe says where its figures come from and what of the source it cannot
reproduce here, so a reader sees how close the copy is.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Recipe:
    """One named recipe: the algorithms it is for, the option values it sets, and where they come from."""

    name: str
    algorithms: tuple[str, ...]
    options: dict[str, Any]
    source: str
    differences: str

    def defaults(self, config_class: type) -> Any:
        """``config_class``'s defaults with this recipe's values set (ValueError for a field the class lacks)."""
        known = {item.name for item in dataclasses.fields(config_class)}
        unknown = sorted(set(self.options) - known)
        if unknown:
            raise ValueError(f"recipe {self.name} sets {', '.join(unknown)}, which {config_class.__name__} lacks")
        return config_class(**self.options)


ANCHOR_CELLS = 16 * 16
"""The anchor's board: intermediate, 16x16 with 40 mines and a 3x3 safe start (our ``opening`` rule)."""

ANCHOR = Recipe(
    name="anchor",
    algorithms=("maskable_ppo", "ppo"),
    options={
        "preset": "intermediate", "first_click": "opening", "steps": 4_000_000,
        # the network: 128 channels, 6 residual blocks of two 3x3 convolutions (12 residual convolutions here)
        "channels": 128, "dilations": ",".join(["1"] * 12), "value_hidden": 192,
        # the rollout and the update: 128 boards x 64 steps, 8 minibatches of 1,024, 3 passes
        "num_envs": 128, "n_steps": 64, "batch_size": 1024, "n_epochs": 3,
        "gamma": 0.995, "gae_lambda": 0.95, "clip_range": 0.2, "clip_range_vf": 0.2, "vf_coef": 0.5,
        "ent_coef": 0.002, "learning_rate": 3e-4, "max_grad_norm": 0.5,
        # its true-mine head: weight 0.05, mines and safe cells weighed equally, not read by the policy
        "mine_coef": 0.05, "mine_balance": True,
        # its rewards: +1 a win, -1 a loss, 0.6 spread over the board's cells as they open
        "reward_win": 1.0, "reward_loss": -1.0, "reward_progress": 0.6 / ANCHOR_CELLS,
    },
    source="yakvrz/minesweeper-ppo, configs/cnn_residual_16x16x40.yaml (84.0% of 16x16/40 at about 4M steps)",
    differences=(
        "not copied: its GroupNorm and 0.05 dropout in the blocks, its two-layer 1x1 policy and mine heads (ours: "
        "one 1x1 layer each), its entropy bonus decaying from 0.002 to 0.001 over 300 updates (ours stays at "
        "0.002), its step penalty of 1e-4, its progress input plane (our residual trunk sees the mines left "
        "instead), and its value clip taking the larger of the clipped and plain errors (ours: SB3's clipped one)"
    ),
)

MINE_PRIOR = Recipe(
    name="mine-prior",
    algorithms=("maskable_ppo", "ppo"),
    options={
        "channels": 32, "layers": 5,
        # the comparison's update: 64 boards x 32 steps, minibatches of 256, 4 passes (many updates a step)
        "num_envs": 64, "n_steps": 32, "batch_size": 256, "n_epochs": 4, "learning_rate": 5e-4, "ent_coef": 0.001,
        # the policy is the true-mine head (trained by its own loss alone) at weight 3, so that the sampled policy
        # keeps near the safest cells, plus a preference of at most 0.5 nats
        "mine_coef": 0.5, "mine_prior": True, "detach_prior": True, "prior_only": True, "prior_scale": 3.0,
        "preference_bound": 0.5,
        # the head is the player, and its labels do not go stale: 32 more steps of its loss an update on the last
        # 200,000 positions, each position weighing the same
        "mine_replay": 200_000, "mine_replay_steps": 32, "mine_positions": True,
        # a fifth of the rate from 1M steps, a tenth from 2M: the readings swing by 8 points at the full rate
        "lr_drops": "1000000:1e-4,2000000:5e-5",
        # the return is the game's outcome: +1 a win, -1 a loss
        "reward_progress": 0.0, "gamma": 0.99, "gae_lambda": 0.95,
    },
    source="ours (docs/lab/2026-12-05-masks-and-the-anchor-recipe.md, docs/lab/2026-12-05-mine-prior-ppo-past-60.md, "
    "docs/lab/2026-12-05-the-mine-head-is-the-player.md): "
    "MaskablePPO playing its mine head, as the masked DQN with --mine-prior --advantage-bound does",
    differences=(
        "made for the masks: under PPO (no masks) the head, which learns only hidden cells, scores revealed ones too, "
        "and the policy can move them by its bounded preference alone; PPO takes it as the control of what masks give"
    ),
)

RECIPES: dict[str, Recipe] = {recipe.name: recipe for recipe in (ANCHOR, MINE_PRIOR)}


def recipe_names(algorithm: str) -> list[str]:
    """The recipes an algorithm's script offers."""
    return [name for name, recipe in RECIPES.items() if algorithm in recipe.algorithms]

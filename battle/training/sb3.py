"""A self-play baseline for battle minesweeper: MaskablePPO against a pool of the fixed AIs and of itself.

The learner plays one seat of the PettingZoo parallel env (:func:`battle.env.parallel_env`), a seat drawn
per game; the other seat is an opponent drawn per game from a weighted pool: the fixed AIs of
:mod:`battle.players` (``random``, ``greedy``, ``contest``, ``lookahead``) and ``self``, a frozen copy of the
learner refreshed at every evaluation. :class:`PoolOpponentEnv` hides the opponent's moves inside ``step``, so
the learner sees a single-agent Gymnasium env with action masks, which sb3-contrib's MaskablePPO trains through
its ordinary vectorised env.

What the network sees: the battle view as a single-player grid (:func:`battle.rules.analysis_grid`:
every claimed mine a shown mine, whoever claimed it), the observation of the single-player ``grid`` mode, so the
fully convolutional policy of :mod:`train.sb3.networks` reads it unchanged and the saved model loads where the
single-player models do (its card names a ``grid`` board of the battle's size). The scores are not observed, and
the bomb rule is off (reveals only). Rewards: +1 for a win, -1 for a loss, 0 for a draw, plus ``mine_reward``
per mine the learner claims and minus as much per mine the opponent claims (the env's zero-sum shaping).

Every ``eval_every`` steps the greedy masked policy (the highest logit among hidden cells, as the tournament
plays it) plays ``eval_games`` boards from both seats against ``greedy`` and against ``random``; the model with
the best win rate against greedy is kept (the win rate against random breaks ties). Training stops at ``steps``,
after ``minutes`` of the process's CPU time (what the run cost, on a machine other jobs share) or after
``wall_minutes`` of wall time, whichever comes first.

Run (a short CPU run, niced)::

    nice -n 10 python -m battle.training --steps 400000 --minutes 25 --seed 0 --out models/maskable_ppo_battle_16x16

It writes ``OUT.zip`` and its card ``OUT.json`` (the model that did best against greedy), ``OUT-progress.csv``
(one line per evaluation). The tournament plays it as ``--agent model:OUT.zip``.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from agents.model_card import ModelCard
from battle.env import AGENTS, parallel_env
from battle.players import BATTLE_AGENTS, BattleAgent, make_battle_agent, play_battle
from battle.rules import DRAW, BattleSpec, analysis_grid
from mine_env.env import grid_space
from train.sb3.export import export_model
from train.sb3.networks import MaskableConvActorCriticPolicy, action_scores

SELF = "self"
"""The pool's name for the frozen copy of the learner."""


@dataclass
class BattleTrainConfig:
    """A training run's settings (each is a command-line option of the same name)."""

    rows: int = 16
    cols: int = 16
    mines: int = 51
    steps: int = 400_000
    minutes: float = 25.0
    wall_minutes: float = 90.0
    seed: int = 0
    num_envs: int = 8
    pool: dict[str, float] = field(default_factory=lambda: {"random": 0.2, "greedy": 0.6, SELF: 0.2})
    mine_reward: float = 0.02
    learning_rate: float = 3e-4
    n_steps: int = 128
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.97
    gae_lambda: float = 0.9
    ent_coef: float = 0.01
    channels: int = 32
    layers: int = 4
    eval_games: int = 50
    eval_every: int = 50_000
    out: str = "models/maskable_ppo_battle_16x16"

    def validate(self) -> None:
        """ValueError naming the first setting that cannot work."""
        BattleSpec(self.rows, self.cols, self.mines)
        for name in ("steps", "num_envs", "n_steps", "batch_size", "n_epochs", "channels", "layers", "eval_games",
                     "eval_every"):  # fmt: skip
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        for name in ("minutes", "wall_minutes"):
            if getattr(self, name) <= 0:
                raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(self, name)}")
        unknown = [name for name in self.pool if name not in BATTLE_AGENTS and name != SELF]
        if unknown:
            raise ValueError(f"--pool: unknown opponent {unknown[0]!r}; expected {', '.join([*BATTLE_AGENTS, SELF])}")
        if any(weight < 0 for weight in self.pool.values()) or sum(self.pool.values()) <= 0:
            raise ValueError("--pool weights must be non-negative and not all zero")
        if not Path(self.out).parent.is_dir():
            raise ValueError(f"--out: the folder {Path(self.out).parent} does not exist")


class PolicyPlayer(BattleAgent):
    """A policy's greedy masked move: the hidden cell with the highest logit (what the tournament plays)."""

    name = "policy"

    def __init__(self, policy: Any) -> None:
        super().__init__(0)
        self.policy = policy

    def act(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        grid = analysis_grid(obs["observation"])
        scores = action_scores(self.policy, grid[None])[0].cpu().numpy()
        valid = np.asarray(obs["action_mask"])[: grid.size].astype(bool)
        return int(np.where(valid, scores, -np.inf).argmax())


class PoolOpponentEnv(gym.Env):
    """One seat of the battle env against an opponent from the pool (drawn per game), as a single-agent env.

    Args:
        config: the board, the pool and the shaping.
        snapshot: the frozen learner (``self`` in the pool), shared by every env and refreshed by the trainer.
    """

    def __init__(self, config: BattleTrainConfig, snapshot: PolicyPlayer) -> None:
        self.battle = parallel_env(rows=config.rows, cols=config.cols, mines=config.mines,
                                   mine_reward=config.mine_reward)  # fmt: skip
        self.observation_space = grid_space(config.rows, config.cols)
        self.action_space = gym.spaces.Discrete(config.rows * config.cols)
        self.names = list(config.pool)
        weights = np.array([config.pool[name] for name in self.names], dtype=float)
        self.weights = weights / weights.sum()
        self.snapshot = snapshot
        self.learner, self.other = AGENTS[0], AGENTS[1]
        self.opponent: BattleAgent = snapshot
        self._observations: dict[str, Any] = {}
        self._infos: dict[str, Any] = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        done = True
        while done:  # the opponent moving first may win before the learner's first move (on tiny boards)
            self._observations, self._infos = self.battle.reset(seed=int(self.np_random.integers(2**31)))
            seat = int(self.np_random.integers(2))
            self.learner, self.other = AGENTS[seat], AGENTS[1 - seat]
            name = self.names[int(self.np_random.choice(len(self.names), p=self.weights))]
            agent_seed = int(self.np_random.integers(2**31))
            self.opponent = self.snapshot if name == SELF else make_battle_agent(name, agent_seed)
            _, done = self._opponent_moves()  # mines it takes first are not the learner's doing: no reward
        return self._grid(), {"opponent": name}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        outcome = self.battle.step({self.learner: int(action), self.other: 0})
        reward, done = self._absorb(outcome)
        if not done:
            more, done = self._opponent_moves()
            reward += more
        return self._grid(), reward, done, False, {}

    def action_masks(self) -> np.ndarray:
        """The learner's valid reveals (sb3-contrib reads them through ``env_method``)."""
        return self._observations[self.learner]["action_mask"].astype(bool)

    def _opponent_moves(self) -> tuple[float, bool]:
        """Let the opponent move until it is the learner's turn or the game ends: (learner's reward, ended)."""
        reward, done = 0.0, False
        while not done and not self._observations[self.learner]["action_mask"].any():
            obs = self._observations[self.other]
            action = self.opponent.act(obs, self._infos[self.other])
            more, done = self._absorb(self.battle.step({self.other: action, self.learner: 0}))
            reward += more
        return reward, done

    def _absorb(self, outcome: tuple) -> tuple[float, bool]:
        observations, rewards, terminations, truncations, infos = outcome
        done = bool(terminations.get(self.learner) or truncations.get(self.learner))
        if observations:
            self._observations, self._infos = observations, infos
        return float(rewards.get(self.learner, 0.0)), done

    def _grid(self) -> np.ndarray:
        return analysis_grid(self._observations[self.learner]["observation"])


def win_rate(player: PolicyPlayer, opponent: str, spec: BattleSpec, games: int, seed: int) -> float:
    """The policy's share of wins (draws half) over ``games`` boards of ``seed``, each from both seats."""
    score = 0.0
    for board in range(games):
        for seat in (0, 1):
            other = make_battle_agent(opponent, seed + board)
            game = play_battle(spec, seed + board, (player, other) if seat == 0 else (other, player))
            score += 0.5 if game.winner == DRAW else float(game.winner == seat)
    return score / (2 * games)


class EvaluateAndKeepBest(BaseCallback):
    """Every ``eval_every`` steps: refresh the ``self`` snapshot, play the evaluation, keep the best model."""

    def __init__(self, config: BattleTrainConfig, snapshot: PolicyPlayer) -> None:
        super().__init__()
        self.config, self.snapshot = config, snapshot
        self.started, self.cpu_started = time.monotonic(), time.process_time()
        self.spec = BattleSpec(config.rows, config.cols, config.mines)
        self.best = (-1.0, -1.0)
        self.next_eval = config.eval_every
        self.rows: list[dict[str, Any]] = []

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.config.eval_every
            self.evaluate()
        cpu_left = time.process_time() - self.cpu_started < 60 * self.config.minutes
        return cpu_left and time.monotonic() - self.started < 60 * self.config.wall_minutes

    def _on_training_end(self) -> None:
        if not self.rows or self.rows[-1]["steps"] != self.num_timesteps:
            self.evaluate()

    def evaluate(self) -> None:
        self.snapshot.policy = frozen_copy(self.model.policy)
        player = PolicyPlayer(self.model.policy)
        self.model.policy.set_training_mode(False)
        row = {"steps": self.num_timesteps, "cpu_minutes": round((time.process_time() - self.cpu_started) / 60, 2),
               "wall_minutes": round((time.monotonic() - self.started) / 60, 2),
               **{f"vs_{name}": win_rate(player, name, self.spec, self.config.eval_games, 10_000_019)
                  for name in ("greedy", "random")}}  # fmt: skip
        self.rows.append(row)
        print(json.dumps(row), flush=True)
        out = Path(self.config.out)
        with open(out.with_name(out.name + "-progress.csv"), "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(row))
            writer.writeheader()
            writer.writerows(self.rows)
        score = (row["vs_greedy"], row["vs_random"])  # against greedy first; against random breaks its ties
        if score > self.best:
            self.best = score
            save(self.model, self.config, row)


def frozen_copy(policy: Any) -> Any:
    """A copy of ``policy`` in evaluation mode that later training does not change (for the ``self`` opponent)."""
    frozen = type(policy)(**policy._get_constructor_parameters())
    frozen.load_state_dict(policy.state_dict())
    frozen.set_training_mode(False)
    return frozen


def save(model: MaskablePPO, config: BattleTrainConfig, evaluation: dict[str, Any]) -> None:
    """``OUT.zip``, the weights ``OUT.pt`` and the card ``OUT.json``: a ``grid`` board of the battle's size, the
    network, the run, its evaluation."""
    out = Path(config.out)
    model.save(out.with_suffix(".zip"))
    network = export_model(model, out.with_suffix(".json"))
    ModelCard(
        algo="maskable_ppo_battle",
        model_class=f"{MaskablePPO.__module__}:{MaskablePPO.__name__}",
        env_kwargs={"rows": config.rows, "cols": config.cols, "mines": config.mines, "first_click": "none",
                    "obs_mode": "grid", "flags": False},
        config=asdict(config),
        steps=int(model.num_timesteps),
        eval={"games": 2 * config.eval_games, "seed": 10_000_019, "win_rate": evaluation["vs_greedy"],
              "opponent": "greedy", "win_rate_vs_random": evaluation["vs_random"]},
        network=network,
    ).write(out.with_suffix(".json"))


def train(config: BattleTrainConfig) -> None:
    """Train until ``config.steps`` steps or the time limits; the best model is saved as it comes."""
    config.validate()
    th.set_num_threads(1)
    snapshot = PolicyPlayer(None)
    env = VecMonitor(DummyVecEnv([lambda: PoolOpponentEnv(config, snapshot) for _ in range(config.num_envs)]))
    model = MaskablePPO(
        MaskableConvActorCriticPolicy, env, learning_rate=config.learning_rate, n_steps=config.n_steps,
        batch_size=config.batch_size, n_epochs=config.n_epochs, gamma=config.gamma, gae_lambda=config.gae_lambda,
        ent_coef=config.ent_coef, seed=config.seed, device="cpu", verbose=0,
        policy_kwargs={"features_extractor_kwargs": {"channels": config.channels, "layers": config.layers}},
    )  # fmt: skip
    snapshot.policy = frozen_copy(model.policy)
    model.learn(config.steps, callback=EvaluateAndKeepBest(config, snapshot))


def parse_pool(text: str) -> dict[str, float]:
    """``"greedy:0.6,random:0.2,self:0.2"`` as {name: weight}; a ValueError that says the form otherwise."""
    pool = {}
    for part in text.split(","):
        name, _, weight = part.partition(":")
        try:
            pool[name.strip()] = float(weight)
        except ValueError:
            raise ValueError(f"--pool: cannot read {part!r}; write NAME:WEIGHT,NAME:WEIGHT,...") from None
    return pool


def main(argv: list[str] | None = None) -> int:
    defaults = BattleTrainConfig()
    parser = argparse.ArgumentParser(prog="python -m battle.training", description=__doc__.splitlines()[0])
    for name, value in asdict(defaults).items():
        if name == "pool":
            parser.add_argument("--pool", default=",".join(f"{k}:{v}" for k, v in value.items()),
                                help="opponents and their weights, NAME:WEIGHT,...")  # fmt: skip
        else:
            parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    args = vars(parser.parse_args(argv))
    try:
        args["pool"] = parse_pool(args["pool"])
        train(BattleTrainConfig(**args))
    except ValueError as error:
        parser.exit(2, f"error: {error}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

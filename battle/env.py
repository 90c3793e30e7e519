"""Battle minesweeper as a PettingZoo AEC env (two players; the rules are :mod:`battle.rules`'s).

``env()`` is the wrapped env (illegal moves end the game with -1 for the offender, PettingZoo's convention for
board games; actions outside the space fail an assertion), ``raw_env`` the bare one (an illegal move raises a
ValueError that says why), ``parallel_env()`` the same game through PettingZoo's turn-based conversion.

- Agents ``player_0`` (moves first) and ``player_1``; after a mine the same agent is selected again.
- Observation: {"observation": int8 (rows, cols) the player's view (-1 hidden, 0..8 a number, -3 a mine it
  claimed, -4 one the opponent claimed), "action_mask": int8 (n_actions,)}. Actions ``0..n-1`` reveal a cell,
  ``n..2n-1`` (only with ``bomb=True``) bomb around a cell.
- Info per agent: "mines" (total), "to_win", "score", "opponent_score", "bomb_available".
- Rewards: +1 to the winner and -1 to the loser at the end (0 each on a draw), plus ``mine_reward`` per mine
  claimed to its claimer and minus as much to the other (zero-sum shaping, off by default).
- Seeding: ``reset(seed=s)`` draws the layout key from a generator seeded with ``s``, so the layout is a pure
  function of the seed; later resets without a seed go on drawing from that generator.

PettingZoo is an optional dependency (the ``battle`` extra): importing :mod:`mine_env` does not import this module.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

try:
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError("mine_env.battle needs PettingZoo: pip install 'minesweeper-rl[battle]'") from error

from battle.rules import DRAW, OPPONENT_MINE, OWN_MINE, BattleGame, BattleSpec
from mine_env.engine.rng import draw_layout_key
from mine_env.rendering import EXPLODED_COLOUR, cell_char, render_rgb

__all__ = ["AGENTS", "env", "parallel_env", "raw_env"]

AGENTS: tuple[str, str] = ("player_0", "player_1")
CLAIM_COLOURS: tuple[tuple[int, int, int], tuple[int, int, int]] = ((70, 110, 255), (255, 70, 70))
"""Background of a mine claimed by player_0 (blue) and by player_1 (red) in RGB drawings."""
CLAIM_CHARS = ("A", "B")
"""A mine claimed by player_0 / player_1 in text drawings."""


def env(**kwargs: Any) -> AECEnv:
    """The battle env with PettingZoo's standard wrappers (illegal move -> -1 and the game ends)."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def parallel_env(**kwargs: Any) -> Any:
    """The battle env as a PettingZoo ParallelEnv (turn-based: only the selected agent's action counts)."""
    return turn_based_aec_to_parallel(env(**kwargs))


class raw_env(AECEnv):
    """The bare battle env. Keyword arguments: ``rows``, ``cols``, ``mines`` (16, 16, 51), ``bomb`` (False),
    ``mine_reward`` (0.0), ``render_mode`` (None, "human", "ansi" or "rgb_array")."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"], "name": "battle_minesweeper_v0",
        "is_parallelizable": True, "render_fps": 2,
    }

    def __init__(
        self,
        rows: int = 16,
        cols: int = 16,
        mines: int = 51,
        bomb: bool = False,
        mine_reward: float = 0.0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.spec = BattleSpec(rows, cols, mines, bomb)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; expected one of {self.metadata['render_modes']}")
        if isinstance(mine_reward, bool) or not isinstance(mine_reward, int | float):
            raise ValueError(f"mine_reward must be a number, got {mine_reward!r}")
        self.mine_reward = float(mine_reward)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        n_actions = 2 * self.spec.n_cells if bomb else self.spec.n_cells
        shape = (self.spec.rows, self.spec.cols)
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(low=OPPONENT_MINE, high=8, shape=shape, dtype=np.int8),
                "action_mask": spaces.Box(low=0, high=1, shape=(n_actions,), dtype=np.int8),
            })
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(n_actions) for agent in AGENTS}
        self._np_random, _ = seeding.np_random(None)
        self.game = BattleGame(self.spec, 0)
        self.agent_selection = AGENTS[0]
        self._reset_bookkeeping()

    # ------------------------------------------------------------------ PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; with ``seed`` its layout is a pure function of the seed."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.game = BattleGame(self.spec, draw_layout_key(self._np_random))
        self.agents = list(AGENTS)
        self._reset_bookkeeping()
        self.agent_selection = AGENTS[self.game.mover]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        return {"observation": self.game.view(seat), "action_mask": self.game.action_mask(seat)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = AGENTS.index(agent)
        claimed = self.game.play(action)  # raises ValueError on an illegal move, before any change
        self._clear_rewards()
        self._cumulative_rewards[agent] = 0.0
        if claimed and self.mine_reward:
            self.rewards[agent] += self.mine_reward * claimed
            self.rewards[AGENTS[1 - seat]] -= self.mine_reward * claimed
        if self.game.is_over:
            self._finish()
        self._update_infos()
        self.agent_selection = AGENTS[self.game.mover]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return self._render_rgb()
        text = self._render_ansi()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (no window is opened)."""

    # ------------------------------------------------------------------ helpers
    def _reset_bookkeeping(self) -> None:
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._update_infos()

    def _update_infos(self) -> None:
        for seat, agent in enumerate(AGENTS):
            if agent in self.infos:
                self.infos[agent] = {
                    "mines": self.spec.mines,
                    "to_win": self.spec.to_win,
                    "score": self.game.scores[seat],
                    "opponent_score": self.game.scores[1 - seat],
                    "bomb_available": self.spec.bomb and not self.game.bomb_used[seat],
                }

    def _finish(self) -> None:
        winner = self.game.winner
        if winner != DRAW:
            self.rewards[AGENTS[winner]] += 1.0
            self.rewards[AGENTS[1 - winner]] -= 1.0
        self.terminations = dict.fromkeys(self.agents, True)

    def _render_ansi(self) -> str:
        view = self.game.view(0)
        rows, cols = view.shape
        width = len(str(cols - 1))
        lines = [" " * (len(str(rows - 1)) + 1) + " ".join(str(c).rjust(width) for c in range(cols))]
        for r in range(rows):
            cells = [self._cell_text(int(view[r, c])).rjust(width) for c in range(cols)]
            lines.append(str(r).rjust(len(str(rows - 1))) + " " + " ".join(cells))
        scores = self.game.scores
        status = "draw" if self.game.winner == DRAW else (
            f"{AGENTS[self.game.winner]} wins" if self.game.is_over else f"{AGENTS[self.game.mover]} to move")
        lines.append(f"{AGENTS[0]} (A) {scores[0]} - {scores[1]} {AGENTS[1]} (B), {self.spec.to_win} to win: {status}")
        return "\n".join(lines) + "\n"

    @staticmethod
    def _cell_text(code: int) -> str:
        if code == OWN_MINE:
            return CLAIM_CHARS[0]
        if code == OPPONENT_MINE:
            return CLAIM_CHARS[1]
        return cell_char(code)

    def _render_rgb(self) -> np.ndarray:
        image = render_rgb(self.game.grid)
        cell_px = image.shape[0] // self.spec.rows
        owner = self.game.owner.reshape(self.spec.rows, self.spec.cols)
        for r, c in zip(*np.nonzero(owner >= 0), strict=True):
            tile = image[r * cell_px : (r + 1) * cell_px, c * cell_px : (c + 1) * cell_px]
            tile[(tile == EXPLODED_COLOUR).all(axis=-1)] = CLAIM_COLOURS[owner[r, c]]
        return image

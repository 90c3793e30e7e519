"""The text env in `TextArena <https://github.com/LeonGuertler/TextArena>`_'s interface, graded by the oracle.

TextArena's own ``Minesweeper-v0`` (8x8, 10 mines, ``[row col]`` moves, no flags) pays the share of the safe
cells revealed. :class:`OracleMinesweeperEnv` is a ``textarena.Env`` over :class:`mine_llm.text_env.MinesweeperTextEnv`
instead: the same loop (``reset(num_players=1)``, ``get_observation()``, ``step(reply)`` until done, ``close()``),
the boards, seeds and replies of this project (``reveal 3 4``, ``flag 2 2``, ``[3 4]`` is read as a reveal too),
and at the end the player's reward is the text env's return (``reward="sparse"``: +1 a win, -1 a loss, 0 a game cut
off) while ``game_info[0]`` carries the oracle's tally of the game (logic score, avoidable risk, wrong flags).
:func:`register_envs` adds ``Minesweeper-Oracle-v0`` (beginner), ``-intermediate`` and ``-expert`` to
``textarena.make``. Replies that name no possible move change nothing and say why, as in the text env, rather than
end the game. Needs ``pip install textarena``.
"""

from __future__ import annotations

import re
from typing import Any

import textarena as ta
from textarena.envs.registration import ENV_REGISTRY
from textarena.wrappers import LLMObservationWrapper

from mine_llm.prompt import system_prompt
from mine_llm.text_env import MinesweeperTextEnv

ENV_IDS = {"Minesweeper-Oracle-v0": "beginner", "Minesweeper-Oracle-v0-intermediate": "intermediate",
           "Minesweeper-Oracle-v0-expert": "expert"}  # fmt: skip
"""The ids :func:`register_envs` adds, and their presets."""
_BRACKETED = re.compile(r"^\s*\[\s*(\d+)[\s,]+(\d+)\s*\]\s*$")


class OracleMinesweeperEnv(ta.Env):
    """One player, one game a reset; ``env_kwargs`` are the text env's (``preset``, ``rows``..., ``reward``)."""

    def __init__(self, **env_kwargs: Any) -> None:
        self.env = MinesweeperTextEnv(**env_kwargs)
        self.total = 0.0

    def reset(self, num_players: int, seed: int | None = None) -> None:
        """Start the game of ``Minesweeper-v0`` with ``seed`` (TextArena's global ``random`` is left alone)."""
        if num_players != 1:
            raise ValueError(f"Minesweeper is a one-player game: reset(num_players=1), got {num_players}")
        self.state = ta.SinglePlayerState(num_players=1, max_turns=self.env.max_steps)
        board, info = self.env.reset(seed=seed)
        self.total = 0.0
        self.state.reset(game_state={"board": board, "game": info["game"]},
                         player_prompt_function=lambda player_id, game_state: system_prompt())  # fmt: skip
        self.state.add_observation(message=board, observation_type=ta.ObservationType.GAME_BOARD)

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        """Play one reply; the board after it is the next observation, and the game's end sets the reward."""
        self.state.add_observation(from_id=0, message=action, observation_type=ta.ObservationType.PLAYER_ACTION)
        bracketed = _BRACKETED.match(action) if isinstance(action, str) else None
        reply = f"reveal {bracketed[1]} {bracketed[2]}" if bracketed else action
        board, reward, terminated, truncated, info = self.env.step(reply)
        self.total += reward
        self.state.game_state.update(board=board, game=info["game"])
        self.state.game_info[0].update(info["game"], won=bool(info["is_success"]))
        if terminated or truncated:
            outcome = "won" if info["is_success"] else "lost" if terminated else "cut off at the step limit"
            score = info["game"]["logic_score"]
            self.state.set_outcome(reward=self.total, reason=f"game {outcome}; logic score {score}")
        self.state.add_observation(message=board, observation_type=ta.ObservationType.GAME_BOARD)
        return self.state.step()


def register_envs() -> None:
    """Add :data:`ENV_IDS` to TextArena's registry (once; LLM-style string observations, as its own games)."""
    for env_id, preset in ENV_IDS.items():
        if env_id not in ENV_REGISTRY:
            ta.register(env_id, f"{__name__}:OracleMinesweeperEnv", default_wrappers=[LLMObservationWrapper],
                        preset=preset)  # fmt: skip

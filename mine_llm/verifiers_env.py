"""The text env as a `verifiers <https://github.com/PrimeIntellect-ai/verifiers>`_ multi-turn environment.

Each dataset row is one seeded game of an evaluation suite (its first observation is the prompt); every model
turn is one step of :class:`mine_llm.text_env.MinesweeperTextEnv`, whose next observation is the environment's
reply, until the game ends. The rubric is the oracle's grades of the game:

- ``win`` (weight 1.0): 1 for a won game, else 0;
- ``logic_score`` (weight 0.5): the share of the game's reveals that took no avoidable risk (0 with none);
- metrics (weight 0): ``avoidable_risk_per_move``, ``invalid_replies``, ``env_return`` (the sum of the text
  env's rewards under ``reward``, ``"sparse"`` or ``"dense"``).

Weights are set with ``weights={"win": 1.0, "logic_score": 0.5, "env_return": 0.0, ...}``.

Built on verifiers' classic API (``verifiers.MultiTurnEnv``, ``verifiers.Rubric``; verifiers 0.3, the ``llm``
extra). ``load_environment`` is the entry point that verifiers' tools look for::

    from verifiers.types import ClientConfig  # any OpenAI-compatible server
    env = load_environment(preset="beginner", games=100)
    results = env.evaluate_sync(client=ClientConfig(api_base_url=URL, api_key_var="OPENAI_API_KEY"), model=NAME)
"""

from __future__ import annotations

from typing import Any

import verifiers as vf
from datasets import Dataset

from eval.suites import Suite, adhoc_suite
from mine_env.engine.spec import BoardSpec
from mine_llm.prompt import system_prompt
from mine_llm.text_env import MinesweeperTextEnv

DEFAULT_WEIGHTS: dict[str, float] = {
    "win": 1.0, "logic_score": 0.5, "avoidable_risk_per_move": 0.0, "invalid_replies": 0.0, "env_return": 0.0,
}  # fmt: skip
"""The rubric's functions and their weights (the reward of a rollout is their weighted sum)."""


def _game(state: vf.State) -> dict[str, Any]:
    return state.get("minesweeper_info", {}).get("game", {})


async def win(state: vf.State) -> float:
    """1.0 for a won game, else 0.0."""
    return float(state.get("minesweeper_info", {}).get("is_success", False))


async def logic_score(state: vf.State) -> float:
    """The share of the game's reveals with no avoidable risk (0.0 before any reveal)."""
    return float(_game(state).get("logic_score") or 0.0)


async def avoidable_risk_per_move(state: vf.State) -> float:
    """The avoidable risk of the game's reveals, on average (0.0 before any reveal)."""
    game = _game(state)
    return game["avoidable_risk"] / game["graded_moves"] if game.get("graded_moves") else 0.0


async def invalid_replies(state: vf.State) -> float:
    """Replies of the game that changed nothing."""
    return float(_game(state).get("invalid_replies", 0))


async def env_return(state: vf.State) -> float:
    """The sum of the text env's rewards over the game (its ``reward`` scheme)."""
    return float(state.get("minesweeper_return", 0.0))


_FUNCS = {f.__name__: f for f in (win, logic_score, avoidable_risk_per_move, invalid_replies, env_return)}


class MinesweeperVerifiersEnv(vf.MultiTurnEnv):
    """Seeded Minesweeper games, played one text env step per model turn and graded by the oracle.

    Args:
        suite: The games (one dataset row each; the eval dataset is the same games).
        weights: The rubric's weights by function name (:data:`DEFAULT_WEIGHTS` for those not given).
        env_kwargs: More arguments of the text env (``reward``, ``max_steps``, ``flags``).
        **kwargs: More arguments of ``verifiers.MultiTurnEnv`` (``max_turns``, ...).
    """

    def __init__(
        self,
        suite: Suite,
        weights: dict[str, float] | None = None,
        env_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        unknown = sorted(set(weights or {}) - set(_FUNCS))
        if unknown:
            raise ValueError(f"unknown rubric function(s) {', '.join(unknown)}; expected {', '.join(_FUNCS)}")
        self.suite = suite
        self.env_kwargs = {"rows": suite.rows, "cols": suite.cols, "mines": suite.mines,
                           "first_click": suite.first_click, "boards": suite.boards, "start": suite.start,
                           **(env_kwargs or {})}  # fmt: skip
        merged = {**DEFAULT_WEIGHTS, **(weights or {})}
        rubric = vf.Rubric(funcs=list(_FUNCS.values()), weights=[merged[name] for name in _FUNCS])
        dataset = Dataset.from_list(self._rows())
        super().__init__(dataset=dataset, eval_dataset=dataset, system_prompt=system_prompt(tools=False),
                         rubric=rubric, **kwargs)  # fmt: skip

    def _rows(self) -> list[dict[str, Any]]:
        """One row per game: the first observation as the question, the game's seed in ``info``."""
        env = MinesweeperTextEnv(**self.env_kwargs)
        rows = []
        for game in range(self.suite.games):
            seed = self.suite.game_seeds(game).env
            observation, _ = env.reset(seed=seed)
            rows.append({"question": observation, "answer": "", "info": {"game": game, "seed": seed}})
        return rows

    async def setup_state(self, state: vf.State, **kwargs: Any) -> vf.State:
        env = MinesweeperTextEnv(**self.env_kwargs)
        _, info = env.reset(seed=int(state["info"]["seed"]))
        state["minesweeper"] = env
        state["minesweeper_info"] = info
        state["minesweeper_return"] = 0.0
        return state

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> vf.Messages:
        """Step the game with the model's last reply; its observation is the reply, the last one when it ends."""
        env: MinesweeperTextEnv = state["minesweeper"]
        observation, reward, terminated, truncated, info = env.step(_last_reply(messages))
        state["minesweeper_info"] = info
        state["minesweeper_return"] += reward
        response = [vf.UserMessage(content=observation)]
        if terminated or truncated:
            state["final_env_response"] = response
        return response

    @vf.cleanup
    async def close_game(self, state: vf.State) -> None:
        """Drop the game's env; its last info stays for the rubric."""
        state.pop("minesweeper", None)


def _last_reply(messages: vf.Messages) -> str:
    """The text of the last assistant message (empty when there is none: an invalid reply)."""
    for message in reversed(list(messages)):
        role = message.get("role") if isinstance(message, dict) else getattr(message, "role", None)
        if role == "assistant":
            content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
            return content if isinstance(content, str) else ""
    return ""


def load_environment(
    preset: str | None = "beginner",
    rows: int | None = None,
    cols: int | None = None,
    mines: int | None = None,
    first_click: str = "opening",
    boards: str = "random",
    games: int = 100,
    seed: int = 0,
    **kwargs: Any,
) -> MinesweeperVerifiersEnv:
    """The environment of ``games`` seeded games of a board (verifiers' entry point); ``kwargs`` go to
    :class:`MinesweeperVerifiersEnv` (``weights``, ``env_kwargs``, ``max_turns``)."""
    spec = BoardSpec.from_options(None if rows is not None else preset, rows, cols, mines, first_click)
    return MinesweeperVerifiersEnv(adhoc_suite(spec, games, seed, boards), **kwargs)

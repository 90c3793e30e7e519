"""The text env as an `OpenEnv <https://github.com/meta-pytorch/OpenEnv>`_ environment: its server and its client.

- :class:`MinesweeperEnvironment` (server side) holds one :class:`mine_llm.text_env.MinesweeperTextEnv` per
  session; :func:`create_minesweeper_app` is its FastAPI app (OpenEnv's ``create_app``: ``/reset``, ``/step``,
  ``/state``, ``/schema``, the ``/ws`` sessions), served by ``python -m mine_llm.openenv_env --port 8001``.
- :class:`MinesweeperEnvClient` (client side) is OpenEnv's ``EnvClient`` for it (async; ``.sync()`` for plain
  calls).

An action is one field, ``reply``: the model's text (``reveal 3 4``, ``flag 2 2`` or a ``make_move`` call's
JSON), read as the text env reads it, so a reply that names no move changes nothing and the observation says
why. The observation carries the board text, the error, the oracle's grade of the move and the game's tally;
``reward`` is the text env's (``reward="sparse"`` or ``"dense"``). ``reset(seed=...)`` starts the game of
``Minesweeper-v0`` with that seed. Needs the ``llm`` extra (openenv-core).
"""

from __future__ import annotations

import argparse
import uuid
from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from mine_llm.text_env import MinesweeperTextEnv

ENV_NAME = "minesweeper"


class MinesweeperAction(Action):
    """One reply of the agent."""

    reply: str = Field(..., description="the move: 'reveal ROW COL', 'flag ROW COL' or a make_move call's JSON")


class MinesweeperObservation(Observation):
    """The board after a reply, and the oracle's word on it."""

    board: str = Field(default="", description="the board as text (docs/LLM.md)")
    error: str | None = Field(default=None, description="why the reply changed nothing, or None")
    oracle: dict[str, Any] | None = Field(default=None, description="the oracle's grade of the move, or None")
    game: dict[str, Any] = Field(default_factory=dict, description="the game so far (logic score, invalid replies)")
    won: bool = Field(default=False, description="the game is won")


class MinesweeperEnvironment(Environment):
    """The server side: one text env per session (``MinesweeperTextEnv(**env_kwargs)``)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, **env_kwargs: Any) -> None:
        super().__init__()
        self.env = MinesweeperTextEnv(**env_kwargs)
        self._state = State(episode_id=None, step_count=0)

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> MinesweeperObservation:
        board, info = self.env.reset(seed=seed)
        self._state = State(episode_id=episode_id or uuid.uuid4().hex, step_count=0)
        return _observation(board, info, 0.0, False)

    def step(self, action: MinesweeperAction, timeout_s: float | None = None, **kwargs: Any) -> MinesweeperObservation:
        board, reward, terminated, truncated, info = self.env.step(action.reply)
        self._state.step_count += 1
        return _observation(board, info, reward, terminated or truncated)

    @property
    def state(self) -> State:
        return self._state


def _observation(board: str, info: dict[str, Any], reward: float, done: bool) -> MinesweeperObservation:
    return MinesweeperObservation(
        board=board, error=info["error"], oracle=info["oracle"], game=info["game"], won=bool(info["is_success"]),
        done=done, reward=reward,
    )  # fmt: skip


def create_minesweeper_app(max_concurrent_envs: int = 8, **env_kwargs: Any) -> Any:
    """The FastAPI app serving :class:`MinesweeperEnvironment` (``env_kwargs``: the text env's arguments)."""
    MinesweeperTextEnv(**env_kwargs)  # bad arguments fail here, not in the first session

    def factory() -> MinesweeperEnvironment:
        return MinesweeperEnvironment(**env_kwargs)

    return create_app(factory, MinesweeperAction, MinesweeperObservation, env_name=ENV_NAME,
                      max_concurrent_envs=max_concurrent_envs)  # fmt: skip


class MinesweeperEnvClient(EnvClient[MinesweeperAction, MinesweeperObservation, State]):
    """The client of a Minesweeper OpenEnv server::

        with MinesweeperEnvClient(base_url="http://127.0.0.1:8001").sync() as env:
            result = env.reset(seed=0)
            result = env.step(MinesweeperAction(reply="reveal 4 4"))
            print(result.observation.board, result.reward, result.done)
    """

    def _step_payload(self, action: MinesweeperAction) -> dict[str, Any]:
        return {"reply": action.reply}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[MinesweeperObservation]:
        fields = payload.get("observation", {})
        observation = MinesweeperObservation(
            board=fields.get("board", ""), error=fields.get("error"), oracle=fields.get("oracle"),
            game=fields.get("game", {}), won=bool(fields.get("won", False)), done=payload.get("done", False),
            reward=payload.get("reward"),
        )  # fmt: skip
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> State:
        return State(episode_id=payload.get("episode_id"), step_count=payload.get("step_count", 0))


def main(argv: list[str] | None = None) -> int:
    """``python -m mine_llm.openenv_env [--port N] [--preset NAME] [--reward sparse|dense]``: serve on 127.0.0.1."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m mine_llm.openenv_env", description="Serve Minesweeper-Text-v0 "
                                     "as an OpenEnv environment.")  # fmt: skip
    parser.add_argument("--port", type=int, default=8001, help="port on 127.0.0.1 (default 8001)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--preset", default="beginner", choices=("beginner", "intermediate", "expert"))
    parser.add_argument("--first-click", default="opening", choices=("opening", "safe", "none"))
    parser.add_argument("--boards", default="random", choices=("random", "no_guess"))
    parser.add_argument("--reward", default="sparse", choices=("sparse", "dense"))
    args = parser.parse_args(argv)
    try:
        app = create_minesweeper_app(preset=args.preset, first_click=args.first_click, boards=args.boards,
                                     reward=args.reward)  # fmt: skip
    except ValueError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    uvicorn.run(app, host=args.host, port=args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

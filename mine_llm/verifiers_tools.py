"""The ``make_move`` tool as verifiers 0.4 offers a tool to a model: an MCP server (``python -m
mine_llm.verifiers_tools``, started by verifiers for each game of :mod:`mine_llm.verifiers_env` with ``tools=True``).

The server only declares the tool: the game lives with the env, which plays each call and answers it with the
next board (:meth:`mine_llm.verifiers_env.MinesweeperTask.play_tool_move`), so this module stays small and
imports neither the engine nor the oracle.
"""

from typing import Literal

import verifiers.v1 as vf

TOOL_NAME = "make_move"
"""As :data:`mine_llm.moves.TOOL_NAME` (kept apart so this server imports nothing of the package)."""


class MakeMoveToolset(vf.Toolset[vf.ToolsetConfig, vf.State]):
    """The one tool, advertised bare as ``make_move`` (the name :mod:`mine_llm.chat` offers too)."""

    TOOL_PREFIX = None

    @vf.tool(name=TOOL_NAME)
    async def make_move(self, action: Literal["reveal", "flag"], row: int, col: int) -> str:
        """Play one Minesweeper move: reveal a hidden cell, or put or take off a flag on one (row and column
        counted from 0). 'reveal' on an open number with its flags placed opens its other neighbours."""
        return "the game did not take this call: answer with your move as text, e.g. 'reveal 3 4'"


if __name__ == "__main__":
    MakeMoveToolset.run()

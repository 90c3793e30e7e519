"""minesweeper-rl's game package, four layers from the bottom up: the board engine (:mod:`mine_env.engine`), the
exact analysis of a position (:mod:`mine_env.analysis`), the kinds of board (:mod:`mine_env.boards`), and the
Gymnasium env, its vector env and the two-player PettingZoo env (:mod:`mine_env.battle`, imported when asked for).

Importing it registers ``Minesweeper-v0`` and the preset ids with Gymnasium; the analysis loads only when used.
It first says in one line if another installed distribution hides one of our packages (:mod:`mine_env.name_clash`).
"""

from mine_env.engine.board import Board, BoardState
from mine_env.engine.constants import FIRST_CLICK_RULES, FLAG, HIDDEN, MINE, PRESETS
from mine_env.engine.rewards import RewardConfig
from mine_env.engine.spec import BoardSpec
from mine_env.engine.textformat import TextBoard, parse_board, read_board
from mine_env.env import MinesweeperEnv
from mine_env.name_clash import warn_once
from mine_env.registration import ENV_IDS, register_envs
from mine_env.vector import MinesweeperVectorEnv

warn_once()

register_envs()

__version__ = "0.2.0"
"""The version of the distribution minesweeper-rl, said here only (pyproject.toml reads it; CHANGELOG.md)."""

__all__ = [
    "ENV_IDS",
    "FIRST_CLICK_RULES",
    "FLAG",
    "HIDDEN",
    "MINE",
    "PRESETS",
    "Board",
    "BoardSpec",
    "BoardState",
    "MinesweeperEnv",
    "MinesweeperVectorEnv",
    "RewardConfig",
    "TextBoard",
    "parse_board",
    "read_board",
]

"""The names the command line offers, written out so that its parsers are built without loading the engine.

``minesweeper --help``, ``--version`` and a mistyped option are answered before numba, torch or Gymnasium load:
the parsers take their choices from here, and each handler imports the engine when it runs. Each name below is a
copy of the list it is checked against at run time (named beside it); tests/cli/test_choices.py fails when a copy
and its source differ, so a new agent, preset or program is added in both places.
"""

from __future__ import annotations

import os

PRESETS: tuple[str, ...] = ("beginner", "expert", "intermediate")
"""``mine_env.engine.constants.PRESETS``, sorted."""
FIRST_CLICK_RULES: tuple[str, ...] = ("safe", "opening", "none")
"""``mine_env.engine.constants.FIRST_CLICK_RULES``."""
DEFAULT_FIRST_CLICK = "opening"
"""``mine_env.engine.constants.DEFAULT_FIRST_CLICK``."""
BOARD_KINDS: tuple[str, ...] = ("random", "no_guess")
"""``mine_env.engine.constants.BOARD_KINDS``."""
DEFAULT_BOARDS = "random"
"""``mine_env.engine.constants.DEFAULT_BOARDS``."""
STARTS: tuple[str, ...] = ("agent", "zero")
"""``mine_env.engine.starts.STARTS``."""
SYMMETRY_COUNTS: tuple[int, ...] = (1, 2, 4, 8)
"""``mine_env.engine.symmetry.SYMMETRY_COUNTS``."""
AGENTS: tuple[str, ...] = (
    "guess-value", "random", "rules", "solver", "solver-fast", "solver-search", "solver-search-quick", "solver-standard"
)
"""``agents.registry.AGENTS``, sorted."""
SHIPPED_MODELS: tuple[str, ...] = (
    "distill-beginner", "distill-intermediate", "distill-expert", "dqn-beginner", "dqn-intermediate", "dqn-expert",
    "dqn-expert-curriculum", "ppo-beginner", "ppo-intermediate", "maskable-ppo-beginner",
    "maskable-ppo-intermediate", "maskable-ppo-expert", "rllib-ppo-beginner", "maskable-ppo-battle",
)  # fmt: skip
"""``agents.shipped_models.SHIPPED_MODELS``, in its order."""
BATTLE_AGENTS: tuple[str, ...] = ("random", "greedy", "contest", "lookahead")
"""``battle.players.BATTLE_AGENTS``, in its order."""
BATTLE_BOARD: tuple[int, int, int] = (16, 16, 51)
"""``battle.rules``'s DEFAULT_ROWS, DEFAULT_COLS, DEFAULT_MINES."""
PLAY_MODES: tuple[str, ...] = ("manual", "assist", "auto")
"""``minesweeper_cli.apps.session.MODES``."""
BOT_PROGRAMS: tuple[str, ...] = ("sgt-mines", "xdemineur")
"""``screen_bot.programs.PROGRAMS``, sorted."""


def default_workers() -> int:
    """Every core of this machine, as ``eval.pool.default_workers``."""
    return os.cpu_count() or 1

"""Gymnasium registration of every env id (see ../shared/CONTRACT.md)."""

from __future__ import annotations

import gymnasium as gym

ENV_IDS: dict[str, dict[str, str]] = {
    "Minesweeper-v0": {},
    "Minesweeper-Beginner-v0": {"preset": "beginner"},
    "Minesweeper-Intermediate-v0": {"preset": "intermediate"},
    "Minesweeper-Expert-v0": {"preset": "expert"},
}
TEXT_ENV_ID = "Minesweeper-Text-v0"
"""Minesweeper for language-model agents (docs/LLM.md): registered by an entry-point string, so that neither
``import mine_env`` nor this module imports the package above that holds it (``mine_llm``, with the oracle)."""


def register_envs() -> None:
    """Register each id once, with the single env and the native vector env as entry points, and the text env."""
    for env_id, kwargs in ENV_IDS.items():
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point="mine_env.env:MinesweeperEnv",
            vector_entry_point="mine_env.vector:MinesweeperVectorEnv",
            kwargs=dict(kwargs),
        )
    if TEXT_ENV_ID not in gym.registry:
        gym.register(id=TEXT_ENV_ID, entry_point="mine_llm.text_env:MinesweeperTextEnv")

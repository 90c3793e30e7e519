"""Gymnasium registration of every env id (see ../shared/CONTRACT.md)."""

from __future__ import annotations

import gymnasium as gym

ENV_IDS: dict[str, dict[str, str]] = {
    "Minesweeper-v0": {},
    "Minesweeper-Beginner-v0": {"preset": "beginner"},
    "Minesweeper-Intermediate-v0": {"preset": "intermediate"},
    "Minesweeper-Expert-v0": {"preset": "expert"},
}


def register_envs() -> None:
    """Register each id once, with the single env and the native vector env as entry points."""
    for env_id, kwargs in ENV_IDS.items():
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point="mine_env.env:MinesweeperEnv",
            vector_entry_point="mine_env.vector:MinesweeperVectorEnv",
            kwargs=dict(kwargs),
        )

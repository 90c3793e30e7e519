"""The README's first screen shows what the project is, the two set-up commands and the env made."""

from __future__ import annotations

from pathlib import Path

FIRST_SCREEN = 40
"""Lines a reader sees before scrolling."""


def test_the_first_screen_reaches_gym_make() -> None:
    lines = (Path(__file__).resolve().parents[2] / "README.md").read_text().splitlines()[:FIRST_SCREEN]
    screen = "\n".join(lines)
    for words in ("make demo", "make test", 'env = gym.make("Minesweeper-v0"', "env.step(action)"):
        assert words in screen, f"{words!r} is not in the README's first {FIRST_SCREEN} lines"
